/**
 * test/ mirrors src/ folder by folder (test/README.md): a folder of test code is a folder of src/
 * or one of the few that cut across the code; the benchmark holds no correctness test.
 */
import assert from 'node:assert/strict';
import { existsSync, readdirSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../helpers/paths.js';

const TEST = join(ROOT, 'test');
/** The folders test/README.md names as cutting across src/. */
const ACROSS = new Set(['helpers', 'layout', 'robustness', 'fuzz', 'bench']);

function folders(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(path, ...folders(path));
  }
  return out;
}

const holdsCode = (dir: string): boolean => readdirSync(dir).some((f) => f.endsWith('.ts'));
const rel = (dir: string): string => relative(TEST, dir).split(sep).join('/');

test('every folder of test code is a folder of src/ or one test/README.md names', () => {
  const strays = folders(TEST)
    .filter(holdsCode)
    .map(rel)
    .filter((r) => !ACROSS.has(r.split('/')[0] as string) && !existsSync(join(ROOT, 'src', r)));
  assert.deepEqual(strays, [], 'test folders with no src/ folder of the same path (move the tests to the folder of the code they test, or name the folder in test/README.md)');
});

test('every folder of src/ with code has its tests in test/', () => {
  const untested = folders(join(ROOT, 'src'))
    .filter(holdsCode)
    .map((d) => relative(join(ROOT, 'src'), d).split(sep).join('/'))
    // Folders of data (rule packs) and tests that live a level up are not expected here.
    .filter((r) => !r.startsWith('rules/packs') && !existsSync(join(TEST, r)));
  assert.deepEqual(untested, [], 'src/ folders without a test/ folder');
});

test('the benchmark holds no correctness tests: test/bench has no *.test.ts', () => {
  const tests = readdirSync(join(TEST, 'bench')).filter((f) => f.endsWith('.test.ts'));
  assert.deepEqual(tests, [], 'move them beside the code they test');
});
