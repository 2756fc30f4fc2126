/**
 * Exact line accounting: every input line of every fixture (fixtures/**\/*.txt) and of every dump
 * in the shared corpus (when ../shared/corpus exists) is named exactly once by the Dump — as
 * ignored, a header, a frame or local line, an owner print, or a backtrace's marker line
 * (`(More stack frames follow...)`, `Backtrace stopped: …`, `No locals.`, an elided `...`).
 * Only a line gdb put several records on may be named more than once.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import fc from 'fast-check';
import { parseDump } from '../../src/parse/index.js';
import { fixtureTexts, hostileText } from '../robustness/arbitraries.js';
import { FIXTURES, HAS_SHARED_CORPUS, SHARED_CORPUS } from '../helpers/paths.js';
import { exactAccountingProblems, lineClaims } from './fixtures.js';

function textFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) out.push(...textFiles(path));
    else if (entry.name.endsWith('.txt')) out.push(path);
  }
  return out.sort();
}

test('exact accounting: every fixture line is named exactly once', () => {
  const files = textFiles(FIXTURES);
  assert.ok(files.length >= 100, `only ${files.length} fixture texts`);
  const failures: string[] = [];
  for (const file of files) {
    const problems = exactAccountingProblems(parseDump(readFileSync(file, 'utf8')), readFileSync(file, 'utf8'));
    if (problems.length > 0) failures.push(`${relative(FIXTURES, file)}: ${problems.join('; ')}`);
  }
  assert.deepEqual(failures, []);
});

test('exact accounting: every line of every shared-corpus dump is named exactly once', (t) => {
  if (!HAS_SHARED_CORPUS) {
    t.skip(`no shared corpus at ${SHARED_CORPUS}`);
    return;
  }
  const files = readdirSync(SHARED_CORPUS).filter((f) => f.endsWith('.txt')).sort();
  assert.ok(files.length > 0, 'the corpus folder holds no .txt dumps');
  const failures: string[] = [];
  for (const file of files) {
    const text = readFileSync(join(SHARED_CORPUS, file), 'utf8');
    const problems = exactAccountingProblems(parseDump(text), text);
    if (problems.length > 0) failures.push(`${file}: ${problems.join('; ')}`);
  }
  assert.deepEqual(failures, []);
});

test('exact accounting: trailers, locals markers and elisions are marker lines of their backtrace', () => {
  const text = [
    'Thread 2 (Thread 0x7f01 (LWP 11) "w"):', // 1
    '#0  0x0000000000401136 in f () at t.c:3', // 2
    'No locals.', // 3
    '#1  0x0000000000401150 in g () at t.c:7', // 4
    '...', // 5
    '#9  0x0000000000401170 in main () at t.c:12', // 6
    'No symbol table info available.', // 7
    'Backtrace stopped: previous frame inner to this frame (corrupt stack?)', // 8
    '', // 9
    'Thread 1 (Thread 0x7f00 (LWP 10) "m"):', // 10
    '#0  0x0000000000401136 in f () at t.c:3', // 11
    '(More stack frames follow...)', // 12
    '',
  ].join('\n');
  const dump = parseDump(text);
  assert.deepEqual(
    dump.backtraces.map((bt) => bt.markerLines),
    [[3, 5, 7, 8], [12]],
  );
  assert.deepEqual(dump.backtraces[0]!.gaps, [{ afterLevel: 1, beforeLevel: 9, sourceLine: 5 }]);
  assert.deepEqual(exactAccountingProblems(dump, text), []);
});

test('exact accounting: a line named twice or not at all is found', () => {
  const text = 'Thread 1 (LWP 1):\n#0  0x1 in f () at a.c:1\n(More stack frames follow...)\n';
  const dump = parseDump(text);
  assert.deepEqual(exactAccountingProblems(dump, text), []);
  const dropped = structuredClone(dump);
  delete dropped.backtraces[0]!.markerLines;
  assert.match(exactAccountingProblems(dropped, text).join(), /line 3 is named nowhere/);
  const twice = structuredClone(dump);
  twice.ignored.push({ line: 2, text: '' });
  assert.match(exactAccountingProblems(twice, text).join(), /line 2 is named 2 times/);
  assert.equal(lineClaims(dump)[3], 1);
});

test('exact accounting: markerLines are emptied with the frames when frames are dropped', async () => {
  const { DumpParser } = await import('../../src/parse/index.js');
  const parser = new DumpParser({ keepFrames: false, onBacktrace: (bt) => assert.deepEqual(bt.markerLines, [3]) });
  parser.push('Thread 1 (LWP 1):\n#0  0x1 in f () at a.c:1\n(More stack frames follow...)\n');
  const dump = parser.end();
  assert.deepEqual(dump.backtraces[0]!.markerLines, []);
  assert.equal(dump.backtraces[0]!.truncated, true);
});

test('exact accounting: 3,000 hostile texts (mutated fixtures, noise, glued lines) are partitioned exactly', () => {
  const texts = fc.sample(hostileText(fixtureTexts(), { window: 60 }), { numRuns: 3000, seed: 4242 });
  const failures: string[] = [];
  for (const text of texts) {
    const problems = exactAccountingProblems(parseDump(text), text);
    if (problems.length > 0 && failures.length < 5) failures.push(`${problems[0]} in ${JSON.stringify(text.slice(0, 200))}`);
  }
  assert.deepEqual(failures, []);
});
