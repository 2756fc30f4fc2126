/**
 * Holds from `bt full` locals on a real program (issue 12 §2, must-show "a `bt full` capture of a
 * `std::lock_guard` ABBA gets a deadlock proven from locals"): fixtures/programs/cxx-lock-guard-abba.cpp
 * captured with `thread apply all bt full` (with libc's debug info and without). Its plain `bt`
 * capture is only a hang (nothing in it says who holds either mutex); the guards in the locals
 * (`hold_journal = {_M_device = @0x…}`) prove both holds, so the cycle is proven. The captured
 * fixtures are held by `waitgraph check` and their sidecars; where gdb can attach, a fresh capture
 * of the running program says the same.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { JsonReport } from '../../src/report/json.js';
import { runWaitgraph } from '../helpers/run-cli.js';
import { LIVE_TEST_TIMEOUT_MS, liveSkipReason, normaliseCapture, buildPrograms, withProgram } from './harness.js';

const run = promisify(execFile);
const FIXTURES = ['fixtures/live/cxx-lock-guard-abba.btfull.txt', 'fixtures/live/cxx-lock-guard-abba.btfull.nodebug.txt'];

/** The deadlocks of a JSON report as (sorted thread names, evidence), and the hold edges on them. */
function provenFromLocals(report: JsonReport): { cycles: Array<[string[], string]>; holds: Array<{ rule: string; basis: string | undefined; evidence: string }> } {
  const name = (id: number | string) => report.threads.find((t) => t.id === id)?.name ?? `?${id}`;
  const onCycle = new Set(report.deadlocks.flatMap((d) => d.resources.map((r) => `res:${r}`)));
  return {
    cycles: report.deadlocks.map((d) => [d.threads.map(name).sort(), d.evidence]),
    holds: report.edges.filter((e) => e.kind === 'holds' && onCycle.has(e.from)).map((e) => ({ rule: e.rule, basis: e.basis, evidence: e.evidence })),
  };
}

function assertProvenFromLocals(report: JsonReport, label: string): void {
  assert.equal(report.verdict, 'deadlock', label);
  const { cycles, holds } = provenFromLocals(report);
  assert.deepEqual(cycles, [[['audit', 'transfer'], 'proven']], `${label}: exactly the two std::threads, proven`);
  assert.deepEqual(holds, [
    { rule: 'libstdcxx.lock-guard.held', basis: 'locals', evidence: 'proven' },
    { rule: 'libstdcxx.lock-guard.held', basis: 'locals', evidence: 'proven' },
  ], `${label}: both holds come from the lock_guards in the locals, and nothing else holds the two mutexes`);
}

describe('bt full locals: the std::lock_guard ABBA', () => {
  test('the captured bt full dumps pass `waitgraph check` against their sidecars (deadlock, cycle {2, 3})', () => {
    const r = runWaitgraph(['check', ...FIXTURES]);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /2 match/);
  });

  for (const file of FIXTURES) {
    test(`${file}: a deadlock proven from the lock_guards in the locals`, () => {
      const r = runWaitgraph(['--format', 'json', file]);
      assert.equal(r.code, 1, r.stderr);
      assertProvenFromLocals(JSON.parse(r.stdout) as JsonReport, file);
      const text = runWaitgraph([file]).stdout;
      assert.match(text, /held by Thread 3 \(LWP \d+\), as its\s+std::lock_guard hold_journal in audit shows \(bt full locals\) \[proven\]/);
    });
  }

  test('the same program captured with plain `bt` shows no holder: a hang, not a deadlock', () => {
    const r = runWaitgraph(['--format', 'json', 'fixtures/live/cxx-lock-guard-abba.txt']);
    const report = JSON.parse(r.stdout) as JsonReport;
    assert.equal(report.verdict, 'hang');
    assert.equal(report.edges.filter((e) => e.basis === 'locals').length, 0);
  });
});

const skipReason = await liveSkipReason();
const dir = mkdtempSync(join(tmpdir(), 'waitgraph-locals-'));
after(() => rmSync(dir, { recursive: true, force: true }));

describe('live: bt full of the running std::lock_guard ABBA', { concurrency: 1 }, () => {
  for (const hideLibcDebug of [false, true]) {
    test(`gdb -batch -ex 'thread apply all bt full' | waitgraph${hideLibcDebug ? ' (libc without debug info)' : ''}: proven from locals`, { skip: skipReason ?? false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
      const build = await buildPrograms();
      await withProgram('cxx-lock-guard-abba', async (p) => {
        const hide = hideLibcDebug ? ['-iex', 'set debug-file-directory /nonexistent'] : [];
        const { stdout } = await run('gdb', ['-p', String(p.pid), '-batch', '-nx', ...hide, '-ex', 'set pagination off', '-ex', 'set style enabled off', '-ex', 'thread apply all bt full'], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
        const dump = join(dir, `abba-bt-full${hideLibcDebug ? '-nodebug' : ''}.txt`);
        writeFileSync(dump, normaliseCapture(stdout, build));
        const r = runWaitgraph(['--format', 'json', dump]);
        assert.equal(r.code, 1, r.stderr);
        assertProvenFromLocals(JSON.parse(r.stdout) as JsonReport, dump);
      });
    });
  }
});
