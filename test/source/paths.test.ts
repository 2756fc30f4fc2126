/**
 * The `--source` path mapper (source/paths.ts) on a real folder tree: exact relative paths, the
 * longest run of trailing components, ties as ambiguous, and folders walked to any depth (the walk
 * builds each folder's path from its parent's, as path.join would).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createPathMapper } from '../../src/source/paths.js';

test('frame paths map to files in nested folders by their longest common tail; a tie is ambiguous', () => {
  const dir = realpathSync(mkdtempSync(join(tmpdir(), 'waitgraph-paths-')));
  try {
    const files = ['a/b/c/gc.c', 'd/gc.c', 'e/f/g/h/deep.c', 'e/f/other/deep.c', 'top.c', 'node_modules/x/hidden.c', 'crates/store/src/shard.rs', 'README.md'];
    for (const f of files) {
      mkdirSync(join(dir, f, '..'), { recursive: true });
      writeFileSync(join(dir, f), '');
    }
    const mapper = createPathMapper([{ given: dir, real: dir }]);
    const shown = (path: string): string => {
      const m = mapper.map(path);
      return m.kind === 'file' ? m.shown : m.kind === 'ambiguous' ? `ambiguous: ${m.candidates.join(' ')}` : 'none';
    };
    assert.equal(shown('top.c'), 'top.c', 'exact, at the root');
    assert.equal(shown('/cache/build/x86_64/b/c/gc.c'), 'a/b/c/gc.c', 'three trailing components');
    assert.equal(shown('/elsewhere/gc.c'), 'ambiguous: a/b/c/gc.c d/gc.c', 'one component each: a tie');
    assert.equal(shown('/build/g/h/deep.c'), 'e/f/g/h/deep.c', 'four folders down');
    assert.equal(shown('/build/other/deep.c'), 'e/f/other/deep.c');
    assert.equal(shown('/build/x/hidden.c'), 'none', 'node_modules is not walked');
    // Rust: cargo prints paths relative to the crate (`src/shard.rs`) or absolute.
    assert.equal(shown('src/shard.rs'), 'crates/store/src/shard.rs', 'a Rust source, by its tail');
    assert.equal(shown('/home/ci/work/store/src/shard.rs'), 'crates/store/src/shard.rs');
    assert.equal(shown('/build/README.md'), 'none', 'no code, not indexed');
    assert.equal(mapper.map('/build/g/h/deep.c').kind === 'file' && (mapper.map('/build/g/h/deep.c') as { real: string }).real, join(dir, 'e', 'f', 'g', 'h', 'deep.c'));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
