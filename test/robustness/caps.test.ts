/**
 * Size: nothing is cut silently. Where the parser limits work (a frame wrapped over too many lines,
 * a `bt full` value too long, too many frames split out of one line) the Dump says so in `capped`,
 * the report prints it as a note, and every line past the limit is still accounted for. Where there
 * is no limit (stack depth, line length, thread count) everything is kept.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { Chalk } from 'chalk';
import { parseDump } from '../../src/parse/index.js';
import { analyzeText } from '../../src/analyze/index.js';
import { renderText } from '../../src/report/text.js';
import { accountingProblem, expectedLineCount } from './check.js';

const CAPPED: Array<[string, string, RegExp]> = [
  ['a frame wrapped over 300 lines', `#0  0x1 in f (\n${'    a=1,\n'.repeat(300)}    b=2) at x.c:1\n`, /The frame at line 1 is wrapped over more than 256 lines/],
  ['20 frames glued into one line', `#0  0x1 in f (x=${'#1 g (x='.repeat(20)}\n`, /Line 1 holds more than 16 frames/],
  ['a bt full value over 2,000 lines', `#0  0x1 in f () at x.c:1\n        v = {${'\n          a = {b = 1},'.repeat(2100)}\n}\n`, /The value at line 2 runs over 2,000 lines/],
];

for (const [label, text, note] of CAPPED) {
  test(`capped and said so: ${label}`, () => {
    const dump = parseDump(text);
    assert.ok(dump.capped?.some((c) => note.test(c)), `Dump.capped: ${JSON.stringify(dump.capped)}`);
    assert.equal(accountingProblem(dump, expectedLineCount(text)), null, 'the lines past the limit are still accounted for');
    const analysis = analyzeText(text);
    assert.ok(analysis.notes.some((n) => note.test(n)), 'the analysis carries the note');
    assert.match(renderText(analysis, { chalk: new Chalk({ level: 0 }) }).replace(/\n\s+/g, ' '), note, 'the text report prints it');
  });
}

test('no limit, nothing capped: a 20,000-frame stack, a 2 MB argument, 5,000 threads are kept whole', () => {
  const deep = `Thread 1 (LWP 1):\n${Array.from({ length: 20_000 }, (_, i) => `#${i}  0x1 in r${i % 7} () at r.c:1`).join('\n')}\n`;
  const d1 = parseDump(deep);
  assert.equal(d1.stats.frames, 20_000);
  assert.equal(d1.capped, undefined);
  const long = `#0  0x1 in f (s=0x2 "${'a'.repeat(2_000_000)}") at x.c:1\n`;
  const d2 = parseDump(long);
  assert.equal(d2.backtraces[0]!.frames[0]!.args[0]!.value.length, 2_000_000 + 6);
  assert.equal(d2.capped, undefined);
  const many = Array.from({ length: 5000 }, (_, i) => `Thread ${i + 1} (LWP ${i + 1}):\n#0  0x1 in f () at a.c:1\n`).join('');
  const d3 = parseDump(many);
  assert.equal(d3.stats.backtraces, 5000);
  assert.equal(d3.capped, undefined);
});
