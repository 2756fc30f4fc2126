/** Paths the tests share. Compiled tests live in dist/test/…, so the repo root is found from package.json. */
import { existsSync, readdirSync, statSync } from 'node:fs';
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
/** The built-in rule packs: each rule's `<id>.yaml` beside its fixture `<id>.txt` and golden `<id>.edges`. */
export const PACKS = join(ROOT, 'src', 'rules', 'packs');

/** Every built-in rule fixture (`src/rules/packs/<pack>/<id>.txt`), sorted by pack, then name. */
export function ruleFixtureFiles(): string[] {
  const out: string[] = [];
  for (const pack of readdirSync(PACKS).sort()) {
    const dir = join(PACKS, pack);
    if (!statSync(dir).isDirectory()) continue;
    for (const name of readdirSync(dir).sort()) if (name.endsWith('.txt')) out.push(join(dir, name));
  }
  return out;
}
