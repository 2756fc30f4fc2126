/**
 * Every failure `npm run fuzz` ever saved (fixtures/robustness/fuzz-*.txt, with the problem it
 * showed in the `.problem` file beside it; `.bin` for byte inputs) must now pass every invariant.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../helpers/paths.js';
import { checkBytes, checkText } from './check.js';

const DIR = join(FIXTURES, 'robustness');
const saved = existsSync(DIR) ? readdirSync(DIR).filter((f) => /^fuzz-[0-9a-f]+\.(txt|bin)$/.test(f)).sort() : [];

test('saved fuzz failures exist (the fuzz has found bugs before)', () => {
  assert.ok(saved.length > 0);
});

for (const file of saved) {
  const problem = readFileSync(join(DIR, file.replace(/\.(txt|bin)$/, '.problem')), 'utf8').split('\n')[0];
  test(`regression ${file} (was: ${problem})`, async () => {
    const path = join(DIR, file);
    const result = file.endsWith('.bin') ? await checkBytes(readFileSync(path), 1) : await checkText(readFileSync(path, 'utf8'), { chunkSeed: 1, svg: true });
    assert.equal(result, null);
  });
}
