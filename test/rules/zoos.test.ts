/**
 * The wait zoos (test/rules/zoos.ts): built and captured with real gdb here, and read from their
 * saved captures in fixtures/live/ everywhere. Each named thread must get exactly the rules and the
 * state the catalogue says — the proof that the packs' fixtures hold frames the toolchains print.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { analyzeText } from '../../src/analyze/index.js';
import type { Analysis } from '../../src/model/analysis.js';
import { LIVE_FIXTURES, LIVE_TEST_TIMEOUT_MS, liveSkipReason, livePids } from '../live/harness.js';
import { captureZoo, ZOOS, type Zoo } from './zoos.js';

const run = promisify(execFile);

async function toolMissing(tool: string): Promise<string | false> {
  try {
    await run(tool, ['--version'], { timeout: 20_000 });
    return false;
  } catch {
    return `${tool} not found`;
  }
}

/** Every named thread of the zoo is read as the catalogue says; returns what went wrong. */
function mismatches(zoo: Zoo, analysis: Analysis): string[] {
  const out: string[] = [];
  for (const [name, want] of Object.entries(zoo.threads)) {
    const thread = analysis.threads.find((t) => t.name === name);
    if (!thread) {
      out.push(`${name}: not in the dump`);
      continue;
    }
    for (const rule of want.rules) if (!thread.rules.includes(rule)) out.push(`${name}: ${rule} did not fire (fired: ${thread.rules.join(', ') || 'none'})`);
    if (thread.state !== want.state) out.push(`${name}: state ${thread.state}, expected ${want.state}`);
  }
  return out;
}

const skip = await liveSkipReason();

describe('wait zoos: live capture', { concurrency: 1 }, () => {
  for (const zoo of ZOOS) {
    test(`${zoo.name}: every thread is read by its rule`, { timeout: LIVE_TEST_TIMEOUT_MS * 4 }, async (t) => {
      const reason = skip ?? (await toolMissing(zoo.tool));
      if (reason) return t.skip(reason);
      const { full, bare } = await captureZoo(zoo);
      assert.deepEqual(mismatches(zoo, analyzeText(full)), [], 'with libc debug info');
      // Without libc's debug info the program's own frames still name every wait (only glibc.join
      // falls back to its frame-only cousins), so the states are the same.
      const bareAnalysis = analyzeText(bare);
      for (const [name, want] of Object.entries(zoo.threads)) {
        const thread = bareAnalysis.threads.find((x) => x.name === name);
        assert.equal(thread?.state, want.state, `${name} without libc debug info`);
      }
    });
  }
});

describe('wait zoos: saved captures (fixtures/live)', () => {
  for (const zoo of ZOOS) {
    const path = join(LIVE_FIXTURES, `${zoo.name}.txt`);
    test(`fixtures/live/${zoo.name}.txt`, () => {
      assert.ok(existsSync(path), `${path} missing: run npm run fixtures:capture`);
      assert.deepEqual(mismatches(zoo, analyzeText(readFileSync(path, 'utf8'))), []);
    });
  }
});

after(() => {
  assert.deepEqual(livePids(), [], 'every started zoo was killed');
});
