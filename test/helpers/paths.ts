/** Paths the tests share. Compiled tests live in dist/test/…, so the repo root is found from package.json. */
import { existsSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

function findRoot(start: string): string {
  let dir = start;
  while (!existsSync(join(dir, 'package.json')) || dir.endsWith(`${'dist'}`)) {
    const parent = dirname(dir);
    if (parent === dir) throw new Error('repo root not found');
    dir = parent;
  }
  return dir;
}

export const ROOT = findRoot(dirname(fileURLToPath(import.meta.url)));
export const FIXTURES = join(ROOT, 'fixtures');
export const FOUNDING = join(FIXTURES, 'enzyme-autodiff-deferred.txt');
export const BIN = join(ROOT, 'bin', 'waitgraph.js');
/** The shared corpus beside the checkout; tests that read it skip cleanly when it is absent. */
export const SHARED_CORPUS = resolve(ROOT, '..', 'shared', 'corpus');
export const HAS_SHARED_CORPUS = existsSync(SHARED_CORPUS);
