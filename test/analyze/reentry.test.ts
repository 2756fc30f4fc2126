/**
 * Re-entry (issue 12 §2, analyze/reentry.ts): a thread waiting at an acquire site that also stands
 * further out in its own stack, past the lock, holds that lock — a self-deadlock, inferred (basis
 * `stack`). Near misses: the outer call not yet past the lock line, no lines and no signal handler
 * between them (a nested event loop looks like that), another thread that can go on, a read lock,
 * a different file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyze } from '../../src/analyze/index.js';
import { parseDump } from '../../src/parse/index.js';

const header = 'Thread 2 (Thread 0x7f2411f276c0 (LWP 20594) "worker"):';
// Main joins the worker: blocked with no time limit, so only the worker could release anything.
const joining = 'Thread 1 (Thread 0x7f2411f28740 (LWP 20593) "app"):\n#0  0x00007f2411fb0f16 in ?? () from /lib/x86_64-linux-gnu/libc.so.6\n#1  0x00007f2411fb5ce3 in pthread_join () from /lib/x86_64-linux-gnu/libc.so.6\n#2  0x0000556cc9052300 in main () at app.c:40\n';
// Main sleeps: it can go on, and could hold the lock for a moment.
const sleeping = 'Thread 1 (Thread 0x7f2411f28740 (LWP 20593) "app"):\n#0  0x00007f2411fb4c7f in clock_nanosleep () from /lib/x86_64-linux-gnu/libc.so.6\n#1  0x00007f2411fb9a27 in nanosleep () from /lib/x86_64-linux-gnu/libc.so.6\n#2  0x0000556cc9052300 in main () at app.c:40\n';

function dump(frames: string[], main = joining): string {
  return `${main}\n${header}\n${frames.map((f, i) => `#${i}  ${f}`).join('\n')}\n`;
}

const stackHolds = (text: string) => analyze(parseDump(text)).edges.filter((e) => e.basis === 'stack');

test('an allocator hook that holds its lock and allocates again waits for itself', () => {
  const frames = [
    'futex_wait (private=0, expected=2, futex_word=0x556cc90550e0 <trace_lock>) at ../sysdeps/nptl/futex-internal.h:146',
    '__GI___lll_lock_wait (futex=futex@entry=0x556cc90550e0 <trace_lock>, private=0) at ./nptl/lowlevellock.c:49',
    '0x00007f2411fb7482 in ___pthread_mutex_lock (mutex=0x556cc90550e0 <trace_lock>) at ./nptl/pthread_mutex_lock.c:93',
    '0x0000556cc9051210 in trace_alloc_hook (size=32) at trace.c:41',
    '0x00007f2411ff1a3c in malloc () from /lib/x86_64-linux-gnu/libc.so.6',
    '0x00007f2411fe0b1d in strdup () from /lib/x86_64-linux-gnu/libc.so.6',
    '0x0000556cc9051188 in trace_record (what=0x556cc9053010 "alloc") at trace.c:20',
    '0x0000556cc9051230 in trace_alloc_hook (size=16) at trace.c:44',
    '0x00007f2411ff1a3c in malloc () from /lib/x86_64-linux-gnu/libc.so.6',
    '0x0000556cc9052290 in worker () at app.c:22',
  ];
  const a = analyze(parseDump(dump(frames)));
  assert.equal(a.verdict, 'deadlock');
  assert.deepEqual(a.deadlocks.map((d) => [d.threads, d.evidence]), [[['2'], 'inferred']]);
  const hold = a.edges.find((e) => e.basis === 'stack');
  assert.equal(hold?.ruleId, 'reentry');
  assert.equal(hold?.site?.level, 7, 'the outer trace_alloc_hook is where the lock was taken');
  assert.match(hold!.description, /trace_alloc_hook stands further out \(#7 at trace\.c:44\), past line 41 where it waits now, and called back into trace_alloc_hook/);
  assert.match(a.verdictReasons[0]!.text, /waits for something it holds itself.*evidence inferred/);
  // Another thread that can go on (main sleeps) could hold trace_lock for a moment: contention.
  assert.deepEqual(stackHolds(dump(frames, sleeping)), []);
});

test('without lines (no debug info): only a signal handler between the two calls makes it a re-entry', () => {
  const top = [
    '0x00007f2411fb112b in ?? () from /lib/x86_64-linux-gnu/libc.so.6',
    '0x00007f2411fb7482 in pthread_mutex_lock () from /lib/x86_64-linux-gnu/libc.so.6',
    '0x0000556cc9051210 in log_write () from /usr/lib/liblog.so',
    '0x0000556cc9051300 in on_sigterm () from /usr/lib/liblog.so',
  ];
  const interrupted = dump([...top, '<signal handler called>', '0x0000556cc9051260 in log_write () from /usr/lib/liblog.so', '0x0000556cc9052290 in worker () at app.c:22']);
  assert.deepEqual(stackHolds(interrupted).map((e) => [e.to, e.evidence]), [['thread:2', 'inferred']]);
  // The same without the signal frame: a nested loop passing through log_write looks like this too.
  assert.deepEqual(stackHolds(dump([...top, '0x0000556cc9051260 in log_write () from /usr/lib/liblog.so', '0x0000556cc9052290 in worker () at app.c:22'])), []);
});

test('with lines: re-entry only when the outer call has gone past the line where the inner one waits', () => {
  const frames = (outerLine: number): string[] => [
    'futex_wait (private=0, expected=2, futex_word=0x556cc90550e0 <registry_lock>) at ../sysdeps/nptl/futex-internal.h:146',
    '__GI___lll_lock_wait (futex=futex@entry=0x556cc90550e0 <registry_lock>, private=0) at ./nptl/lowlevellock.c:49',
    '0x00007f2411fb7482 in ___pthread_mutex_lock (mutex=0x556cc90550e0 <registry_lock>) at ./nptl/pthread_mutex_lock.c:93',
    '0x0000556cc9051210 in registry_add (name=0x556cc9053004 "b") at registry.c:14',
    '0x0000556cc9051300 in on_added (name=0x556cc9053002 "a") at plugin.c:30',
    `0x0000556cc9051260 in registry_add (name=0x556cc9053002 "a") at registry.c:${outerLine}`,
    '0x0000556cc9052290 in worker () at app.c:22',
  ];
  const past = stackHolds(dump(frames(17)));
  assert.deepEqual(past.map((e) => [e.from, e.to, e.evidence]), [['res:mutex:0x556cc90550e0', 'thread:2', 'inferred']]);
  assert.match(past[0]!.description, /past line 14 where it waits now/);
  // Outer call at line 11, before the lock at line 14: it has not taken the lock yet.
  assert.deepEqual(stackHolds(dump(frames(11))), []);
  assert.deepEqual(stackHolds(dump(frames(14))), [], 'the same line: the outer call is still at the lock statement');
});

test('a read lock re-entered is no self-deadlock; neither is the same name in another file', () => {
  const rdlock = dump([
    '__futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=3, futex_word=0x556cc9055108 <table_lock+8>) at ./nptl/futex-internal.c:57',
    '__pthread_rwlock_rdlock_full64 (abstime=0x0, clockid=0, rwlock=0x556cc9055100 <table_lock>) at ./nptl/pthread_rwlock_common.c:460',
    '___pthread_rwlock_rdlock (rwlock=0x556cc9055100 <table_lock>) at ./nptl/pthread_rwlock_rdlock.c:26',
    '0x0000556cc9051210 in lookup (key=1) at table.c:14',
    '0x0000556cc9051300 in on_miss (key=1) at table.c:40',
    '0x0000556cc9051260 in lookup (key=2) at table.c:17',
    '0x0000556cc9052290 in worker () at app.c:22',
  ]);
  assert.deepEqual(stackHolds(rdlock), []);
  const otherFile = dump([
    'futex_wait (private=0, expected=2, futex_word=0x556cc90550e0 <lock>) at ../sysdeps/nptl/futex-internal.h:146',
    '__GI___lll_lock_wait (futex=futex@entry=0x556cc90550e0 <lock>, private=0) at ./nptl/lowlevellock.c:49',
    '0x00007f2411fb7482 in ___pthread_mutex_lock (mutex=0x556cc90550e0 <lock>) at ./nptl/pthread_mutex_lock.c:93',
    '0x0000556cc9051210 in init () at a.c:14',
    '0x0000556cc9051300 in load () at loader.c:30',
    '0x0000556cc9051260 in init () at b.c:40',
  ]);
  assert.deepEqual(stackHolds(otherFile), []);
});
