/**
 * The `--source` figure's tree (issue 16): 5,000 C files under BENCH_DIR, among them a file for
 * each path the founding dump's frames name (`src/gc.c`, `src/safepoint.c`, …, as long as their
 * lines need, so each is really parsed), the rest small files in nested folders that only the
 * suffix index walks. Written once and reused.
 */
import { existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { BENCH_DIR } from '../helpers/generate-dump.js';

export const SOURCE_TREE_FILES = 5_000;

/** The tree for `dump`, written if missing; returns its folder. */
export function ensureSourceTree(dumpPath: string): string {
  const root = join(BENCH_DIR, `source-tree-${SOURCE_TREE_FILES}`);
  const done = join(root, '.complete');
  if (existsSync(done)) return root;
  // The files the dump names, by their last two path parts, and the highest line each needs.
  const named = new Map<string, number>();
  for (const m of readFileSync(dumpPath, 'utf8').matchAll(/ at ((?:[^\s:]+\/)?[^\s/:]+\.(?:c|h|cc|cpp)):(\d+)$/gm)) {
    const parts = (m[1] as string).split('/');
    const rel = parts.slice(-2).join('/');
    named.set(rel, Math.max(named.get(rel) ?? 0, Number(m[2])));
  }
  let written = 0;
  for (const [rel, maxLine] of named) {
    writeFile(join(root, rel), functions(maxLine + 200));
    written++;
  }
  for (let i = 0; written < SOURCE_TREE_FILES; i++, written++) {
    writeFile(join(root, 'lib', `d${i % 50}`, `e${Math.floor(i / 50) % 10}`, `file${i}.c`), functions(40));
  }
  writeFileSync(done, '');
  return root;
}

function writeFile(path: string, text: string): void {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}

/** About `lines` lines of C: small functions that take and let go of locks. */
function functions(lines: number): string {
  const out = ['#include <pthread.h>', 'static pthread_mutex_t m0, m1;'];
  for (let k = 0; out.length < lines; k++) {
    out.push(`static int f${k}(int x) {`, '  pthread_mutex_lock(&m0);', `  int y = x + ${k};`, '  if (y > 3) y--;', '  pthread_mutex_unlock(&m0);', '  return y;', '}');
  }
  return `${out.join('\n')}\n`;
}
