/**
 * A line of frames glued after `[Switching to thread 5 (…)]` splits into many one-frame
 * backtraces of the same thread at the same line. Each copy used to add the same analysis note
 * ("Thread 5 appears again at line 1; …") — 15 identical lines in the report. Identical notes are
 * said once, where the first stood, with their count; distinct notes keep their order.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDump } from '../../src/parse/index.js';
import { analyzeText } from '../../src/analyze/index.js';
import { exactAccountingProblems } from './fixtures.js';

const SWITCH = '[Switching to thread 5 (Thread 0x7f0000001000 (LWP 12))]';
const GLUED = `${SWITCH}#0  0x00007f0000401136 in __lll_lock_wait_private (x=${'#1 g (x='.repeat(20)}\n`;

test('glued frames after a thread switch: the parse names every piece, line 1 exactly accounted', () => {
  const dump = parseDump(GLUED);
  assert.equal(dump.stats.lines, 1);
  assert.ok(dump.backtraces.length > 10, `${dump.backtraces.length} backtraces`);
  assert.ok(dump.backtraces.every((bt) => bt.thread?.gdbId === '5' && bt.startLine === 1));
  assert.deepEqual(dump.capped, ['Line 1 holds more than 16 frames; the rest of the line is read as one frame.']);
  assert.deepEqual(exactAccountingProblems(dump, GLUED), []);
});

test('glued frames after a thread switch: identical analysis notes are said once, with their count', () => {
  const copies = parseDump(GLUED).backtraces.length;
  const notes = analyzeText(GLUED).notes;
  assert.equal(new Set(notes).size, notes.length, `repeated notes: ${JSON.stringify(notes)}`);
  const again = notes.filter((n) => n.startsWith('Thread 5 appears again at line 1'));
  assert.deepEqual(again, [`Thread 5 appears again at line 1; both copies are read as one thread's stack (${copies - 1} times).`]);
  assert.ok(notes.includes('Line 1 holds more than 16 frames; the rest of the line is read as one frame.'), 'the cap note stays, once');
});

test('glued frames with no thread switch: the repeated "no thread header" note is said once', () => {
  const text = `${'#0  0x1 in f (x=[Switching to thread 5 (Thread 0x7f0000001000 (LWP 12))]#1 g ('.repeat(30)}\n`;
  const notes = analyzeText(text).notes;
  assert.equal(new Set(notes).size, notes.length, `repeated notes: ${JSON.stringify(notes)}`);
  assert.ok(notes.some((n) => /^The backtrace without a thread header at line 1 .* \(\d+ times\)\.$/.test(n)), JSON.stringify(notes));
});

test('distinct notes keep their order and wording', () => {
  const text = 'Thread 2 (LWP 2):\n#0  0x1 in f () at a.c:1\nThread 2 (LWP 2):\n#0  0x1 in f () at a.c:1\n';
  const notes = analyzeText(text).notes;
  assert.ok(notes.includes("Thread 2 appears again at line 3; both copies are read as one thread's stack."), JSON.stringify(notes));
  assert.ok(!notes.some((n) => / times\)\.$/.test(n)));
});
