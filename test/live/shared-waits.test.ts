/**
 * Healthy programs whose waits only libc's debug info tells apart from a hang.
 *
 * A program whose threads wait on process-shared objects (a mutex a helper process holds,
 * a condition it will signal, in a shared mapping): with libc's debug info, gdb shows their kernel
 * futexes as shared (private=128), the glibc.shared.wait rule reads them as waits on the outside
 * world, and neither `attach` nor the captured text calls the process hung. Without libc's debug
 * info the frames do not tell a shared mutex from a private one, but the owner loop does: gdb's
 * answer prints the mutex whole, and its __kind has PTHREAD_MUTEX_PSHARED_BIT, so an owner that is no
 * thread of the dump is a thread of another process, not one that exited.
 *
 * A daemon at rest: main in sem_wait for a signal handler's sem_post, workers idle on a condition
 * variable. Every thread waits to be woken and none for a lock, and one waits on a semaphore a
 * signal handler may post: ok (reason signal-wake). Without debug info sem_wait is `?? ()` frames.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFileSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { JsonReport } from '../../src/report/json.js';
import { captureBacktraces, LIVE_TEST_TIMEOUT_MS, liveSkipReason, livePids, withProgram } from './harness.js';
import { runWaitgraphAsync } from './cli.js';
import { SHARED_WAITS, SIGNAL_DAEMON } from './programs.js';

const run = promisify(execFile);
const skipReason = await liveSkipReason();
const dir = mkdtempSync(join(tmpdir(), 'waitgraph-shared-waits-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function stateOf(report: JsonReport, name: string): string | undefined {
  return report.threads.find((t) => t.name === name)?.state;
}

describe('live: healthy waits that libc\'s debug info tells apart from a hang', { concurrency: 1 }, () => {
  test('attach and the captured text: ok, exit 0; the shared mutex and condition waits are read as such', { skip: skipReason ?? false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    await withProgram(SHARED_WAITS, async (p) => {
      const live = await runWaitgraphAsync(['attach', String(p.pid), '--format', 'json']);
      assert.equal(live.code, 0, live.stdout + live.stderr);
      const attached = JSON.parse(live.stdout) as JsonReport;
      assert.equal(attached.verdict, 'ok');
      const text = await captureBacktraces(p.pid);
      assert.match(text, /__lll_lock_wait \(futex=futex@entry=0x[0-9a-f]+, private=128\)/, 'gdb shows the shared futex');
      const dump = join(dir, 'shared-waits.txt');
      writeFileSync(dump, text);
      const fromText = await runWaitgraphAsync([dump, '--format', 'json']);
      assert.equal(fromText.code, 0, fromText.stdout + fromText.stderr);
      const report = JSON.parse(fromText.stdout) as JsonReport;
      assert.equal(report.verdict, 'ok');
      for (const report_ of [attached, report]) {
        assert.equal(stateOf(report_, 'table-user'), 'shared-wait');
        assert.equal(stateOf(report_, 'queue-waiter'), 'shared-wait');
      }
    });
  });

  test('a daemon at rest (sem_wait for a signal handler, idle workers): attach and its text say ok, exit 0, because a signal may post the semaphore', { skip: skipReason ?? false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    await withProgram(SIGNAL_DAEMON, async (p) => {
      const live = await runWaitgraphAsync(['attach', String(p.pid)]);
      assert.equal(live.code, 0, live.stdout + live.stderr);
      assert.match(live.stdout, /^No deadlock or hang found among 3 threads/);
      assert.match(live.stdout.replace(/\s+/g, ' '), /waits on a semaphore, which a signal handler may post \(sem_post is async-signal-safe\)/);
      const dump = join(dir, 'signal-daemon.txt');
      writeFileSync(dump, await captureBacktraces(p.pid));
      const fromText = await runWaitgraphAsync([dump, '--format', 'json']);
      assert.equal(fromText.code, 0, fromText.stdout + fromText.stderr);
      const report = JSON.parse(fromText.stdout) as JsonReport;
      assert.equal(report.verdict, 'ok');
      assert.equal(report.verdictReasons[0]?.kind, 'signal-wake');
      assert.deepEqual(report.verdictReasons[0]?.threads.map((t) => report.threads.find((x) => x.id === t)?.name), ['daemon-main']);
    });
  });

  test('without libc debug info, the owner loop: the answer shows the mutex is process-shared, so its owner is another process and the dump is ok', { skip: skipReason ?? false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    await withProgram(SHARED_WAITS, async (p) => {
      const dump = join(dir, 'shared-waits.nodebug.txt');
      const commands = `${dump}.gdb`;
      writeFileSync(dump, await captureBacktraces(p.pid, { hideLibcDebug: true }));
      const first = await runWaitgraphAsync([dump, '--gdb-commands', commands]);
      assert.match(first.stdout, /ask gdb: thread apply \d+ print \*\(pthread_mutex_t \*\) \$rdi/, 'it asks for the mutex whole');
      const { stdout } = await run('gdb', ['-p', String(p.pid), '-batch', '-nx', '-iex', 'set debug-file-directory /nonexistent', '-x', commands], { timeout: 60_000 });
      assert.match(stdout, /__kind = 128\b/, 'gdb printed the shared mutex whole');
      appendFileSync(dump, stdout);
      const second = await runWaitgraphAsync([dump, '--format', 'json']);
      assert.equal(second.code, 0, second.stdout + second.stderr);
      const report = JSON.parse(second.stdout) as JsonReport;
      assert.equal(report.verdict, 'ok');
      assert.match(report.threads.find((t) => t.name === 'table-user')?.stateText ?? '', /process-shared lock whose owner, LWP \d+, is a thread of another process/);
      assert.ok(report.facts.some((f) => f.shared === true), 'the fact says the lock is shared');
    });
  });

  test('no program is left running', () => {
    assert.deepEqual(livePids(), []);
  });
});
