/**
 * Parsing never throws, whatever the text: a quick randomized smoke test over gdb-like fragments
 * (the heavy fuzzing lives elsewhere). Also: every line is accounted for, and chunked streaming
 * gives the same Dump as one push.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DumpParser, parseDump, parseDumpStream } from '../../src/parse/index.js';
import { countLines, goldenText, unaccountedLines } from './fixtures.js';

const fragments = [
  '#0  ', '#12 ', '0x00007f3a1c2e9e2c', ' in ', '?? ', '()', ' (', ')', 'x=1', ', ', 'y=@entry=', '"a(b\\"', "'('", '{', '}', '[', ']', '<optimized out>',
  ' at ', 'f.c:12', ' from ', '/lib/libc.so.6', 'Thread 3 (Thread 0x7f (LWP 9) "n"):', 'Thread 2.4 (LWP 5):', '\n', '\r\n', '\r', '    ', '        i = ', '\t',
  '--Type <RET> for more, q to quit, c to continue without paging--', '---Type <return> to continue, or q <return> to quit---q', 'Quit', '(More stack frames follow...)',
  'Backtrace stopped: x', '...', '[...]', '> ', '<p>', '&lt;', '\x1b[33m', '\x1b[m', '\u200b', '(gdb) ', 'p m', '$1 = {__data = {__owner = 7, ', 'No locals.',
  '[Switching to thread 2 (Thread 0x1 (LWP 2))]', '<signal handler called>', '=#7 ', 'é', '\uFFFD',
];

const gdbish = fc.array(fc.oneof(fc.constantFrom(...fragments), fc.string({ maxLength: 6 })), { maxLength: 60 }).map((parts) => parts.join(''));

test('robust: random gdb-like text never throws, every line accounted for, chunking changes nothing', () => {
  fc.assert(
    fc.property(gdbish, fc.integer({ min: 1, max: 9 }), (text, size) => {
      const dump = parseDump(text);
      assert.equal(dump.stats.lines, countLines(text));
      assert.deepEqual(unaccountedLines(dump), []);
      const parser = new DumpParser();
      for (let i = 0; i < text.length; i += size) parser.push(text.slice(i, i + size));
      assert.equal(goldenText(parser.end()), goldenText(dump));
    }),
    { numRuns: 300, seed: 20261130 },
  );
});

test('robust: arbitrary unicode never throws', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 200 }), (text) => {
      parseDump(text);
    }),
    { numRuns: 300, seed: 7 },
  );
});

test('robust: parseDumpStream decodes UTF-8 split across Buffer chunks', async () => {
  const text = 'Thread 1 (Thread 0x1 (LWP 2) "wörker€"):\n#0  0x1 in f (s=0x2 "ü") at a.c:1\n';
  const bytes = Buffer.from(text, 'utf8');
  async function* chunks() {
    for (let i = 0; i < bytes.length; i += 3) yield bytes.subarray(i, i + 3);
  }
  const dump = await parseDumpStream(chunks());
  assert.equal(dump.backtraces[0]!.thread?.name, 'wörker€');
  assert.deepEqual(dump.backtraces[0]!.frames[0]!.args, [{ name: 's', value: '0x2 "ü"' }]);
});

test('robust: keepFrames false hands every backtrace to onBacktrace, then drops its frames', () => {
  const text = 'Thread 2 (LWP 2):\n#0  0x1 in a ()\n#1  0x2 in b ()\n\nThread 1 (LWP 1):\n#0  0x3 in c ()\n';
  const seen: Array<[number, number, number]> = [];
  const parser = new DumpParser({ keepFrames: false, onBacktrace: (bt, index) => seen.push([index, bt.thread!.id, bt.frames.length]) });
  parser.push(text);
  const dump = parser.end();
  assert.deepEqual(seen, [[0, 2, 2], [1, 1, 1]]);
  assert.deepEqual(dump.backtraces.map((bt) => [bt.thread?.id, bt.frames.length, bt.startLine]), [[2, 0, 1], [1, 0, 5]]);
  assert.equal(dump.stats.frames, 3);
});

test('robust: empty input and a lone newline', () => {
  assert.deepEqual(parseDump('').stats, { lines: 0, backtraces: 0, frames: 0, ignoredLines: 0 });
  assert.deepEqual(parseDump('\n').ignored, [{ line: 1, text: '' }]);
});

test('robust: a backtrace longer than a streaming record (5,000 frames, locals, an elision) stays one backtrace', () => {
  const lines = ['Thread 1 (Thread 0x7f0000002700 (LWP 100) "deep"):'];
  for (let level = 0; level < 5000; level++) {
    if (level === 3000) lines.push('...');
    const shown = level >= 3000 ? level + 10 : level;
    lines.push(`#${shown}  0x00005555555551${(shown % 100).toString().padStart(2, '0')} in recurse (n=${shown}) at deep.c:7`);
    if (shown % 997 === 0) lines.push(`        depth = ${shown}`);
  }
  lines.push('(More stack frames follow...)');
  const text = `${lines.join('\n')}\n`;
  const dump = parseDump(text);
  assert.equal(dump.backtraces.length, 1);
  const bt = dump.backtraces[0]!;
  assert.equal(bt.frames.length, 5000);
  assert.deepEqual(bt.gaps, [{ afterLevel: 2999, beforeLevel: 3010, sourceLine: lines.indexOf('...') + 1 }]);
  assert.equal(bt.truncated, true);
  assert.equal(bt.endLine, lines.length);
  assert.deepEqual(
    bt.frames.filter((f) => f.locals).map((f) => [f.level, f.locals![0]!.value]),
    [0, 997, 1994, 2991, 3988, 4985].map((n) => [n, String(n)]),
  );
  assert.deepEqual(unaccountedLines(dump), []);
});
