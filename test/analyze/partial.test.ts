/**
 * Partial pastes said to be partial (src/analyze/partial.ts): each kind of partial paste gets a
 * verdict from what is there and one line with what is missing and the gdb command to capture
 * it; `info threads` alone gives a hang only when every row waits for a lock; the published partial pastes of ../shared/corpus
 * (026, 038: `info threads` only) say so (skipped when the corpus is absent).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Chalk } from 'chalk';
import { analyzeText } from '../../src/analyze/index.js';
import { renderText } from '../../src/report/text.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderJson } from '../../src/report/json.js';
import { HAS_SHARED_CORPUS, SHARED_CORPUS } from '../helpers/paths.js';

const INFO_THREADS = `(gdb) info threads
  Id   Target Id                                   Frame
* 1    Thread 0x7f6a1c4b8740 (LWP 6110) "server"   0x00007f6a1c2e8d7f in __GI___poll (fds=0x55d0c0a1e2a0, nfds=2, timeout=120000) at ../sysdeps/unix/sysv/linux/poll.c:29
  2    Thread 0x7f6a1bfff6c0 (LWP 6111) "worker"   __lll_lock_wait (futex=futex@entry=0x55d0c0a1f0a0 <queue_lock>, private=0) at ./nptl/lowlevellock.c:52
  3    Thread 0x7f6a1b7fe6c0 (LWP 6112) "worker"   __lll_lock_wait (futex=futex@entry=0x55d0c0a1f0a0 <queue_lock>, private=0) at ./nptl/lowlevellock.c:52
`;

const ONE_BT = `(gdb) bt
#0  futex_wait (private=0, expected=2, futex_word=0x55d0c0a1f0a0 <queue_lock>) at ../sysdeps/nptl/futex-internal.h:146
#1  __GI___lll_lock_wait (futex=futex@entry=0x55d0c0a1f0a0 <queue_lock>, private=0) at ./nptl/lowlevellock.c:49
#2  0x00007f6a1c2a40f1 in lll_mutex_lock_optimized (mutex=0x55d0c0a1f0a0 <queue_lock>) at ./nptl/pthread_mutex_lock.c:48
#3  ___pthread_mutex_lock (mutex=0x55d0c0a1f0a0 <queue_lock>) at ./nptl/pthread_mutex_lock.c:93
#4  0x000055d0bf8a12c4 in enqueue (q=0x55d0c0a1f080 <queue>) at queue.c:40
#5  0x000055d0bf8a13f0 in main () at queue.c:77
`;

const LIMITED = `Thread 2 (Thread 0x7f6a1bfff6c0 (LWP 6111) "worker"):
#0  0x00007f6a1c2e8d7f in ?? () from /lib/libexotic.so.1
#1  0x00007f6a1c2e8e01 in ?? () from /lib/libexotic.so.1
(More stack frames follow...)

Thread 1 (Thread 0x7f6a1c4b8740 (LWP 6110) "server"):
#0  0x00007f6a1c2e9a10 in exotic_spin () from /lib/libexotic.so.1
(More stack frames follow...)
`;

const CUT = `Thread 2 (Thread 0x7f6a1bfff6c0 (LWP 6111) "worker"):
#0  __futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=0, futex_word=0x55d0c0a1f0e8 <queue_cond+40>) at ./nptl/futex-internal.c:57
#1  0x00007f6a1c2a1e9b in __pthread_cond_wait_common (abstime=0x0, clockid=0, mutex=0x55d0c0a1f0a0 <queue_lock>, cond=0x55d0c0a1f0c0 <queue_cond>) at ./nptl/pthread_cond_wait.c:503
#2  0x000055d0bf8a11b0 in worker (arg=0x0) at queue.c:22

Thread 1 (Thread 0x7f6a1c4b8740 (LWP 6110) "server"):
#0  0x00007f6a1c2e8d7f in __GI___poll (fds=0x55d0c0a1e2a0, nfds=2, timeout=-1) at ../sysdeps/unix/sysv/linux/poll.c:29
#1  0x000055d0bf8a1410 in serve (listener=3, clients=0x55d0c0a1e2a0, n=`;

test('partial: `info threads` alone says backtraces are missing, gives `thread apply all bt`, and is no hang', () => {
  const a = analyzeText(INFO_THREADS);
  assert.equal(a.partial?.kind, 'info-threads');
  assert.equal(a.partial?.command, 'thread apply all bt');
  assert.notEqual(a.verdict, 'hang');
  assert.deepEqual(a.hung, []);
  // A row's timed poll is a timed wait, not "running".
  assert.equal(a.threads.find((t) => t.key === '1')?.state, 'polling-timed');
  const text = renderText(a, { chalk: new Chalk({ level: 0 }) });
  assert.match(text, /Partial paste: The paste holds only `info threads` rows/);
  assert.match(text, /Capture it with: thread apply all bt$/m);
  assert.match(renderMarkdown(a), /\*\*Partial paste:\*\*.*`thread apply all bt`/);
  assert.equal((JSON.parse(renderJson(a)) as { partial: { kind: string } }).partial.kind, 'info-threads');
});

test('partial: `info threads` rows that all wait for a lock are a hang; a row in a condition wait still is not known to be stuck', () => {
  // Every row's one frame is a mutex wait with no time limit: no thread is left to unlock.
  const locked = INFO_THREADS.replace(/^\* 1 .*$/m, '* 1    Thread 0x7f6a1c4b8740 (LWP 6110) "server"   __lll_lock_wait (futex=futex@entry=0x55d0c0a1f0c8 <stats_lock>, private=0) at ./nptl/lowlevellock.c:52');
  const a = analyzeText(locked);
  assert.equal(a.partial?.kind, 'info-threads');
  assert.equal(a.verdict, 'hang');
  assert.deepEqual([...a.hung].sort(), ['1', '2', '3']);
  // A row in a condition wait may be an idle pool's worker (its outer frames would say): no hang.
  const condWait = INFO_THREADS.replace(
    /^\* 1 .*$/m,
    '* 1    Thread 0x7f6a1c4b8740 (LWP 6110) "server"   __futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=0, futex_word=0x55d0c0a1f0e8 <queue_cond+40>) at ./nptl/futex-internal.c:57',
  );
  const b = analyzeText(condWait);
  assert.notEqual(b.verdict, 'hang');
  assert.deepEqual(b.hung, []);
});

test('partial: a backtrace that starts below frame #0 is not said to run: its innermost frames are cut', () => {
  // The tail of a stack (frames #54–#58 of a Rust thread, as a paste that began mid-dump shows it) next to a thread parked for good.
  const text = `#54 0x00005555556d6203 in alloc::boxed::{impl#44}::call_once<(), dyn core::ops::function::FnOnce<(), Output=()>, alloc::alloc::Global> () at /rustc/734368a200904ef9c21db86c595dc04263c87be0/library/alloc/src/boxed.rs:1854
#55 std::sys::unix::thread::{impl#2}::new::thread_start () at library/std/src/sys/unix/thread.rs:108
#56 0x00007ffff7f97e9e in start_thread () from /lib/libpthread.so.0
#57 0x00007ffff7ec44af in clone () from /lib/libc.so.6

${ONE_BT.replace('(gdb) bt\n', 'Thread 1 (Thread 0x7f6a1c4b8740 (LWP 6110) "server"):\n')}`;
  const a = analyzeText(text);
  const cut = a.threads.find((t) => t.key.startsWith('bt@'));
  assert.equal(cut?.state, 'cut-top');
  assert.match(cut?.stateText ?? '', /starts at frame #54/);
  // It may be running, so the mutex wait beside it is no hang (the same verdict as before), and the reason says why.
  assert.equal(a.verdict, 'ok');
  assert.match(a.verdictReasons.map((r) => r.text).join(' '), /the backtrace at line 1 starts below its innermost frames \(the paste cut them off\) and may be running/);
  assert.doesNotMatch(renderText(a, { chalk: new Chalk({ level: 0 }) }), /backtrace at line 1: running/);
});

test('partial: a single `bt` of the current thread says the other threads are missing; its verdict stands', () => {
  const a = analyzeText(ONE_BT);
  assert.equal(a.partial?.kind, 'one-thread');
  assert.equal(a.partial?.command, 'thread apply all bt');
  // The verdict comes from what is there: one thread waiting on a mutex nobody shown holds.
  assert.equal(a.verdict, 'hang');
});

test('partial: every backtrace cut at (More stack frames follow...) before any known frame gives `set backtrace limit unlimited`', () => {
  const a = analyzeText(LIMITED);
  assert.equal(a.partial?.kind, 'backtrace-limit');
  assert.equal(a.partial?.command, 'set backtrace limit unlimited');
  assert.ok(a.dump.backtraces.every((bt) => bt.truncatedBy === 'limit'));
});

test('partial: an excerpt that stops mid-thread says where, and gives `thread apply all bt full`', () => {
  const a = analyzeText(CUT);
  assert.equal(a.partial?.kind, 'cut-mid-thread');
  assert.equal(a.partial?.command, 'thread apply all bt full');
  assert.match(a.partial?.text ?? '', /thread 1 \(line 8\)/);
});

test('partial: a complete dump is not partial', () => {
  const complete = CUT.replace(/, n=$/, ', n=2) at server.c:71\n#2  0x000055d0bf8a15f2 in main () at server.c:98\n');
  assert.equal(analyzeText(complete).partial, undefined);
});

const skip = HAS_SHARED_CORPUS ? false : 'the shared corpus is not beside this checkout';

test('corpus: 026 and 038 (`info threads` only) say backtraces are missing and give the command; neither is a hang', { skip }, () => {
  for (const prefix of ['026-', '038-']) {
    const file = readdirSync(SHARED_CORPUS).find((f) => f.startsWith(prefix) && f.endsWith('.txt'))!;
    const a = analyzeText(readFileSync(join(SHARED_CORPUS, file), 'utf8'));
    assert.equal(a.partial?.kind, 'info-threads', prefix);
    assert.equal(a.partial?.command, 'thread apply all bt', prefix);
    assert.notEqual(a.verdict, 'hang', prefix);
    assert.ok(a.threads.every((t) => t.state !== 'running'), `${prefix}: ${a.threads.filter((t) => t.state === 'running').map((t) => t.key).join(', ')} running`);
  }
});
