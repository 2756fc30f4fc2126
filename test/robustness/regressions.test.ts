/**
 * Every failure `npm run fuzz` ever saved (fixtures/robustness/fuzz-*.txt, with the problem it
 * showed in the `.problem` file beside it; `.bin` for byte inputs) must now pass every invariant.
 * A regression test is only worth as much as the check behind it, so the checks these inputs
 * once failed are shown to fail still, on inputs broken on purpose.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDump } from '../../src/parse/index.js';
import { FIXTURES } from '../helpers/paths.js';
import { exactAccountingProblems } from '../parse/fixtures.js';
import { accountingProblem, checkBytes, checkText } from './check.js';
import { firstControl } from './hostile.js';

const DIR = join(FIXTURES, 'robustness');
const files = existsSync(DIR) ? readdirSync(DIR).sort() : [];
const saved = files.filter((f) => /^fuzz-[0-9a-f]+\.(txt|bin)$/.test(f));

test('each saved fuzz failure is an input with its .problem beside it, and each .problem has its input', () => {
  const stem = (f: string): string => f.replace(/\.(txt|bin|problem)$/, '');
  const inputs = new Set(saved.map(stem));
  const problems = files.filter((f) => f.endsWith('.problem')).map(stem);
  assert.ok(saved.length > 0, 'fixtures/robustness/ holds the failures the fuzz found (a deleted folder would drop every regression below)');
  assert.deepEqual(
    saved.filter((f) => !problems.includes(stem(f))),
    [],
    'inputs without a .problem file (say what the input showed)',
  );
  assert.deepEqual(
    problems.filter((p) => !inputs.has(p)),
    [],
    '.problem files without their input',
  );
  for (const p of problems) assert.notEqual(readFileSync(join(DIR, `${p}.problem`), 'utf8').trim(), '', `${p}.problem is empty`);
});

for (const file of saved) {
  const problemFile = join(DIR, file.replace(/\.(txt|bin)$/, '.problem'));
  const problem = existsSync(problemFile) ? readFileSync(problemFile, 'utf8').split('\n')[0] : '(no .problem file)';
  test(`regression ${file} (was: ${problem})`, async () => {
    const path = join(DIR, file);
    const result = file.endsWith('.bin') ? await checkBytes(readFileSync(path), 1) : await checkText(readFileSync(path, 'utf8'), { chunkSeed: 1, svg: true });
    assert.equal(result, null);
  });
}

test('the checks the saved failures were caught by still catch them: a line lost, a line named twice, a raw control character', () => {
  const text = 'Thread 2 (Thread 0x7f00 (LWP 11)):\n#0  0x00007f01 in lock_it (m=0x1) at a.c:3\nsome prose\n';
  const dump = parseDump(text);
  assert.equal(accountingProblem(dump, 3), null, 'the intact dump passes');
  assert.deepEqual(exactAccountingProblems(dump, text), [], 'the intact dump passes exactly');

  const lost = { ...dump, ignored: [], stats: { ...dump.stats, ignoredLines: 0 } };
  assert.match(accountingProblem(lost, 3) ?? '', /line 3 is neither parsed nor listed as ignored/);

  const twice = { ...dump, ignored: [...dump.ignored, { line: 2, text: '#0  0x00007f01 in lock_it (m=0x1) at a.c:3' }] };
  assert.match(exactAccountingProblems(twice, text)[0] ?? '', /line 2 is named 2 times/);

  assert.notEqual(firstControl('a thread named \u001b]8;;http://x\u001b\\ here'), null);
  assert.equal(firstControl('a thread named \\x1b]8;;http://x here'), null);
});
