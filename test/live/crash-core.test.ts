/**
 * The crash verdict on a real core: fixtures/programs/abort-while-waiting.c aborts (SIGABRT) in
 * one thread while holding a mutex another thread is blocked on. The kernel writes its core (the
 * program raises its own RLIMIT_CORE, `ulimit -c unlimited` without a shell); where the kernel
 * pipes cores elsewhere (core_pattern `|…`), gdb runs the program to the SIGABRT and `gcore`s it.
 * `waitgraph core` must say crash (exit 0), name the aborting thread and where it went wrong, and
 * read the blocked thread as the crash froze it: a mutex wait whose owner, read from the core's
 * memory, is the crashed thread — not a deadlock, not a hang, and no thread "running".
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { JsonReport } from '../../src/report/json.js';
import { LIVE_TEST_TIMEOUT_MS, PROGRAMS_DIR, liveSkipReason } from './harness.js';
import { runWaitgraphAsync } from './cli.js';

const run = promisify(execFile);
const skip = (await liveSkipReason()) ?? false;
const scratch = mkdtempSync(join(tmpdir(), 'waitgraph-crash-core-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

const NAME = 'abort-while-waiting';

/** Builds the program, runs it to its abort, and returns the core and how it was written. */
async function crashCore(): Promise<{ core: string; exe: string; writer: 'kernel' | 'gcore' }> {
  const exe = join(scratch, NAME);
  await run('gcc', ['-g', '-O0', '-pthread', '-o', exe, `${NAME}.c`], { cwd: PROGRAMS_DIR, timeout: 120_000 });
  const died = await run(exe, [], { cwd: scratch, timeout: 30_000 }).then(
    () => null,
    (error: { signal?: string | null; code?: number | null }) => error.signal ?? (error.code === 134 ? 'SIGABRT' : String(error.code)),
  );
  assert.equal(died, 'SIGABRT', 'the program dies of SIGABRT');
  const kernelCore = readdirSync(scratch).find((f) => f === 'core' || f.startsWith('core.'));
  if (kernelCore !== undefined) return { core: join(scratch, kernelCore), exe, writer: 'kernel' };
  // The kernel's core went to a handler (systemd-coredump, apport): gdb stops the program at its
  // SIGABRT and writes the core there.
  const core = join(scratch, 'gcore.core');
  await run('gdb', ['-nx', '-batch', '-ex', 'run', '-ex', `gcore ${core}`, exe], { cwd: scratch, timeout: 60_000 });
  assert.ok(existsSync(core), 'gdb wrote the core at the SIGABRT');
  return { core, exe, writer: 'gcore' };
}

test('core of a program that aborts while another thread waits on its mutex: crash, the aborting thread, exit 0', { skip, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
  const { core, exe, writer } = await crashCore();
  const r = await runWaitgraphAsync(['core', core, '--exe', exe, '--format', 'json']);
  assert.equal(r.stderr, '', `${writer} core: ${r.stderr}`);
  assert.equal(r.code, 0, 'a crash alone is exit 0');
  const report = JSON.parse(r.stdout) as JsonReport;
  assert.equal(report.verdict, 'crash', JSON.stringify(report.verdictReasons));
  assert.deepEqual(report.deadlocks, []);
  assert.deepEqual(report.hung, []);
  assert.deepEqual(report.verdictReasons.map((v) => v.kind), ['crashed']);
  const crash = report.crash!;
  assert.equal(crash.signal, 'SIGABRT');
  // Where it went wrong: the program's own frame that called abort(), not libc's.
  assert.equal(crash.site?.function, 'check_ledger');
  assert.match(crash.site?.file ?? '', /abort-while-waiting\.c$/);
  // The waiter: blocked on the ledger lock, which the core's memory says the crashed thread holds.
  const waiter = report.threads.find((t) => t.acquireSite?.function === 'wait_for_ledger');
  assert.ok(waiter, 'the waiting thread is in the report');
  assert.notEqual(waiter.id, crash.thread, 'the crashing thread is the checker, not the waiter');
  assert.equal(waiter.state, 'blocked');
  assert.equal(waiter.waitsFor.length, 1);
  const lock = waiter.waitsFor[0]!;
  assert.match(lock, /^mutex:0x[0-9a-f]+$/);
  const holder = report.edges.find((e) => e.kind === 'holds' && e.from === `res:${lock}`);
  assert.equal(holder?.to, `thread:${crash.thread}`, 'the lock is held by the thread that crashed');
  const crashed = report.threads.find((t) => t.id === crash.thread)!;
  assert.equal(crashed.state, 'crashed');
  assert.ok(report.threads.every((t) => t.state !== 'running'), report.threads.map((t) => `${t.id}:${t.state}`).join(' '));
  // The text report says it in one line.
  const text = await runWaitgraphAsync(['core', core, '--exe', exe]);
  assert.equal(text.code, 0);
  assert.match(text.stdout, new RegExp(`^Crash: thread ${crash.thread} \\(LWP \\d+\\) crashed with SIGABRT \\(abort\\) in check_ledger at `, 'm'));
});
