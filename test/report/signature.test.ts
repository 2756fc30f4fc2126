/**
 * The deadlock signature identifies the same bug across reports: it must not change with
 * addresses, LWPs or gdb thread numbers, and it must differ for a different deadlock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FOUNDING } from '../helpers/paths.js';
import { analyzeText } from './pipeline.js';

/**
 * The same dump as another run of the same program would print it: every hex address moved
 * (consistently, so one lock is still one lock), LWPs shifted, gdb thread numbers renumbered.
 */
export function asAnotherRun(text: string): string {
  return text
    .replace(/0x([0-9a-f]{6,16})\b/g, (_, hex: string) => `0x${shiftHex(hex)}`)
    .replace(/\(LWP (\d+)\)/g, (_, lwp: string) => `(LWP ${Number(lwp) + 7919})`)
    // Owners printed by gdb are LWPs too.
    .replace(/__owner = (\d+)/g, (_, lwp: string) => `__owner = ${Number(lwp) + 7919}`)
    .replace(/^Thread (\d+) \(/gm, (_, n: string) => `Thread ${Number(n) + 20} (`);
}

/** Adds a constant in the middle digits, keeping the width, so `0x0000…` padding stays padding. */
function shiftHex(hex: string): string {
  const value = BigInt(`0x${hex}`);
  if (value === 0n) return hex;
  const shifted = value + 0x13a5000n;
  return shifted.toString(16).padStart(hex.length, '0').slice(-Math.max(hex.length, shifted.toString(16).length));
}

/** A two-mutex ABBA deadlock as gdb prints it, with the owners printed after the backtraces. */
export const ABBA_WITH_OWNERS = `(gdb) thread apply all bt

Thread 3 (Thread 0x7f611f0a16c0 (LWP 6171) "abba-ba"):
#0  futex_wait (private=0, expected=2, futex_word=0x561c67ba50a0 <lock_a>) at ../sysdeps/nptl/futex-internal.h:146
#1  __GI___lll_lock_wait (futex=futex@entry=0x561c67ba50a0 <lock_a>, private=0) at ./nptl/lowlevellock.c:49
#2  0x00007f611f932482 in lll_mutex_lock_optimized (mutex=0x561c67ba50a0 <lock_a>) at ./nptl/pthread_mutex_lock.c:48
#3  ___pthread_mutex_lock (mutex=0x561c67ba50a0 <lock_a>) at ./nptl/pthread_mutex_lock.c:93
#4  0x0000561c67ba232a in take_b_then_a (unused=0x0) at abba.c:28
#5  0x00007f611f92f1f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
#6  0x00007f611f9af8ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81

Thread 2 (Thread 0x7f611f8a26c0 (LWP 6170) "abba-ab"):
#0  futex_wait (private=0, expected=2, futex_word=0x561c67ba50e0 <lock_b>) at ../sysdeps/nptl/futex-internal.h:146
#1  __GI___lll_lock_wait (futex=futex@entry=0x561c67ba50e0 <lock_b>, private=0) at ./nptl/lowlevellock.c:49
#2  0x00007f611f932482 in lll_mutex_lock_optimized (mutex=0x561c67ba50e0 <lock_b>) at ./nptl/pthread_mutex_lock.c:48
#3  ___pthread_mutex_lock (mutex=0x561c67ba50e0 <lock_b>) at ./nptl/pthread_mutex_lock.c:93
#4  0x0000561c67ba22bd in take_a_then_b (unused=0x0) at abba.c:17
#5  0x00007f611f92f1f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
#6  0x00007f611f9af8ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81

Thread 1 (Thread 0x7f611f8a3740 (LWP 6169) "abba"):
#0  __futex_abstimed_wait_common64 (private=128, cancel=true, abstime=0x0, op=265, expected=6170, futex_word=0x7f611f8a2990) at ./nptl/futex-internal.c:57
#1  __futex_abstimed_wait_common (futex_word=futex_word@entry=0x7f611f8a2990, expected=6170, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=128, cancel=cancel@entry=true) at ./nptl/futex-internal.c:87
#2  0x00007f611f92bf7b in __GI___futex_abstimed_wait_cancelable64 (futex_word=futex_word@entry=0x7f611f8a2990, expected=<optimized out>, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=128) at ./nptl/futex-internal.c:139
#3  0x00007f611f930ce3 in __pthread_clockjoin_ex (threadid=140055117702848, thread_return=0x0, clockid=0, abstime=0x0, block=<optimized out>) at ./nptl/pthread_join_common.c:102
#4  0x0000561c67ba23d4 in main () at abba.c:42
(gdb) p *(pthread_mutex_t *) 0x561c67ba50a0
$1 = {__data = {__lock = 2, __count = 0, __owner = 6170, __nusers = 1, __kind = 0, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\\002\\000\\000\\000\\000\\000\\000\\000\\032\\030", '\\000' <repeats 29 times>, __align = 2}
(gdb) p *(pthread_mutex_t *) 0x561c67ba50e0
$2 = {__data = {__lock = 2, __count = 0, __owner = 6171, __nusers = 1, __kind = 0, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\\002\\000\\000\\000\\000\\000\\000\\000\\033\\030", '\\000' <repeats 29 times>, __align = 2}
`;

test('the copy really differs: other thread numbers in the cycle', () => {
  const copy = analyzeText(asAnotherRun(readFileSync(FOUNDING, 'utf8')));
  assert.deepEqual(copy.deadlocks.map((d) => d.threads), [['27', '28', '29']]);
  assert.ok(copy.threads.every((t) => t.lwp === null || t.lwp > 50000), 'LWPs shifted');
});

test('founding report: same signature with other addresses, LWPs and thread numbers', () => {
  const text = readFileSync(FOUNDING, 'utf8');
  const original = analyzeText(text);
  const copy = analyzeText(asAnotherRun(text));
  assert.equal(original.deadlocks.length, 1);
  assert.equal(copy.deadlocks.length, 1);
  assert.match(original.deadlocks[0]!.signature, /^[0-9a-z-]{8,}$/);
  assert.equal(copy.deadlocks[0]!.signature, original.deadlocks[0]!.signature);
  assert.equal(copy.deadlocks[0]!.title, original.deadlocks[0]!.title);
});

test('a two-mutex ABBA deadlock gets another signature, itself stable across runs', () => {
  const abba = analyzeText(ABBA_WITH_OWNERS);
  assert.equal(abba.verdict, 'deadlock');
  assert.deepEqual(abba.deadlocks.map((d) => d.threads), [['2', '3']]);
  const founding = analyzeText(readFileSync(FOUNDING, 'utf8'));
  assert.notEqual(abba.deadlocks[0]!.signature, founding.deadlocks[0]!.signature);
  const again = analyzeText(asAnotherRun(ABBA_WITH_OWNERS));
  assert.equal(again.verdict, 'deadlock');
  assert.deepEqual(again.deadlocks.map((d) => d.threads), [['22', '23']]);
  assert.equal(again.deadlocks[0]!.signature, abba.deadlocks[0]!.signature);
});
