/**
 * gdb's index cache in live mode: on by default (gdb saves the symbol index it builds, keyed by
 * build-id, under $XDG_CACHE_HOME/gdb), off with WAITGRAPH_GDB_INDEX_CACHE=off. The report is
 * the same either way.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readdirSync, rmSync, existsSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LIVE_TEST_TIMEOUT_MS, liveSkipReason, withProgram } from './harness.js';
import { runWaitgraphAsync } from './cli.js';

const skipReason = await liveSkipReason();

function indexFiles(cacheHome: string): string[] {
  const dir = join(cacheHome, 'gdb');
  return existsSync(dir) ? readdirSync(dir).filter((f) => f.endsWith('.gdb-index')) : [];
}

test('attach writes gdb index files to $XDG_CACHE_HOME/gdb, none with WAITGRAPH_GDB_INDEX_CACHE=off, same report', { skip: skipReason || false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
  const on = mkdtempSync(join(tmpdir(), 'wg-index-on-'));
  const off = mkdtempSync(join(tmpdir(), 'wg-index-off-'));
  try {
    await withProgram('abba', async (p) => {
      const withCache = await runWaitgraphAsync(['attach', String(p.pid), '--format', 'json'], { XDG_CACHE_HOME: on });
      const withoutCache = await runWaitgraphAsync(['attach', String(p.pid), '--format', 'json'], { XDG_CACHE_HOME: off, WAITGRAPH_GDB_INDEX_CACHE: 'off' });
      assert.equal(withCache.code, 1, withCache.stderr);
      assert.equal(withoutCache.code, 1, withoutCache.stderr);
      assert.ok(indexFiles(on).length > 0, `no *.gdb-index under ${on}/gdb`);
      assert.deepEqual(indexFiles(off), []);
      const verdict = (out: string): unknown => {
        const r = JSON.parse(out) as { verdict: string; deadlocks: Array<{ threads: unknown[]; evidence: string }> };
        return { verdict: r.verdict, deadlocks: r.deadlocks.map((d) => ({ size: d.threads.length, evidence: d.evidence })) };
      };
      assert.deepEqual(verdict(withCache.stdout), verdict(withoutCache.stdout));
    });
  } finally {
    rmSync(on, { recursive: true, force: true });
    rmSync(off, { recursive: true, force: true });
  }
});
