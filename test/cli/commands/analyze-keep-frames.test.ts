/**
 * The CLI drops each backtrace's frames once it is analysed, unless the chosen format prints
 * stacks (FORMATS_NEEDING_FRAMES): that is what keeps a 300 MB dump out of memory (issue 7,
 * figure 3). This test holds the CLI to it: for every other format, the report from the
 * frame-dropping analysis must be byte for byte the report from the analysis that keeps every
 * frame, on the founding report, every fixture dump and a generated dump with join cycles.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { analyzeText } from '../../../src/analyze/index.js';
import { FORMATS_NEEDING_FRAMES } from '../../../src/cli/commands/analyze.js';
import { createChalk, FORMATS, reporters } from '../../../src/report/index.js';
import { loadRules } from '../../../src/rules/index.js';
import { FIXTURES, FOUNDING } from '../../helpers/paths.js';
import { renderDump } from '../../helpers/generate-dump.js';

function dumpFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...dumpFiles(path));
    else if (name.endsWith('.txt')) out.push(path);
  }
  return out;
}

const inputs: Array<{ name: string; text: string }> = [
  { name: 'founding report', text: readFileSync(FOUNDING, 'utf8') },
  { name: 'generated dump, 300 threads', text: renderDump({ threads: 300, seed: 11 }).text },
  ...dumpFiles(FIXTURES)
    .filter((f) => f !== FOUNDING)
    .map((f) => ({ name: relative(FIXTURES, f), text: readFileSync(f, 'utf8') })),
];

test('every format outside FORMATS_NEEDING_FRAMES reports the same without frames', async () => {
  const rules = loadRules();
  const chalk = createChalk({ isTTY: false, env: { NO_COLOR: '1' } });
  const formats = FORMATS.filter((f) => !FORMATS_NEEDING_FRAMES.has(f));
  assert.ok(formats.includes('json') && formats.includes('text'), 'json and text are streamed without frames');
  let compared = 0;
  for (const input of inputs) {
    const full = analyzeText(input.text, { rules, keepFrames: true });
    if (full.stats.backtraces === 0) continue;
    const lean = analyzeText(input.text, { rules, keepFrames: false });
    assert.ok(
      lean.dump.backtraces.every((bt) => bt.frames.length === 0),
      `${input.name}: frames are dropped`,
    );
    for (const format of formats) {
      const options = { chalk, input: 'dump.txt' };
      const expected = await reporters[format](full, options);
      const actual = await reporters[format](lean, options);
      assert.equal(actual, expected, `${input.name}, --format ${format}: the report changed when frames were dropped`);
      compared++;
    }
  }
  assert.ok(compared > 100, `compared ${compared} reports`);
});
