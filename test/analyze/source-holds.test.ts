/**
 * How a hold read from the code (`--source`) is linked to the lock a wait names (analyze/source-holds.ts):
 * a member `mu_` by the frame's `this` plus the field, when another thread's waiting frame asks
 * for that field of the same object; a lock no identity links is a note that closes no cycle; a
 * frame in a condition wait does not hold the mutex the wait lets go. Dumps written here in gdb's
 * own shapes (copied from fixtures/live/cxx-lock-guard-abba.txt), source in a temp folder.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { analyzeText, openSource } from '../../src/analyze/index.js';

const dir = mkdtempSync(join(tmpdir(), 'waitgraph-links-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A thread blocked in std::mutex::lock under a lock_guard, called from `caller` (its frame line given). */
function guardWait(id: number, mutex: string, caller: string): string {
  return [
    `Thread ${id} (Thread 0x7f00000000${id}0 (LWP ${100 + id}) "t${id}"):`,
    `#0  futex_wait (private=0, expected=2, futex_word=${mutex}) at ../sysdeps/nptl/futex-internal.h:146`,
    `#1  __GI___lll_lock_wait (futex=futex@entry=${mutex}, private=0) at ./nptl/lowlevellock.c:49`,
    `#2  0x00007f0de9c8a482 in lll_mutex_lock_optimized (mutex=${mutex}) at ./nptl/pthread_mutex_lock.c:48`,
    `#3  ___pthread_mutex_lock (mutex=${mutex}) at ./nptl/pthread_mutex_lock.c:93`,
    `#4  0x0000561c8643b51c in __gthread_mutex_lock (__mutex=${mutex}) at /usr/include/x86_64-linux-gnu/c++/12/bits/gthr-default.h:749`,
    `#5  0x0000561c8643b56c in std::mutex::lock (this=${mutex}) at /usr/include/c++/12/bits/std_mutex.h:100`,
    `#6  0x0000561c8643b652 in std::lock_guard<std::mutex>::lock_guard (this=0x7f0de931bdf0, __m=...) at /usr/include/c++/12/bits/std_mutex.h:229`,
    `#7  0x0000561c8643b3eb in ${caller}`,
    `#8  0x00007f0de9c871f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442`,
    '',
  ].join('\n');
}

const main = [
  'Thread 1 (Thread 0x7f0000000010 (LWP 101) "main"):',
  '#0  __futex_abstimed_wait_common64 (private=128, cancel=true, abstime=0x0, op=265, expected=102, futex_word=0x7f0000000020) at ./nptl/futex-internal.c:57',
  '#1  0x00007f2411fb5ce3 in __pthread_clockjoin_ex (threadid=139792896652992, thread_return=0x0, clockid=0, abstime=0x0, block=<optimized out>) at ./nptl/pthread_join_common.c:102',
  '#2  0x0000556cc90523ff in main () at bank.cpp:20',
  '',
].join('\n');

test('a member mu_ links by `this` plus the field to the wait another thread makes on that field of the same object', async () => {
  writeFileSync(
    join(dir, 'bank.cpp'),
    [
      '#include <mutex>',
      'struct Account { std::mutex mu_; void transfer(Account *other); };',
      'void Account::transfer(Account *other) {',
      '  std::lock_guard<std::mutex> mine(mu_);',
      '  step();',
      '  std::lock_guard<std::mutex> theirs(other->mu_);',
      '}',
      '',
    ].join('\n'),
  );
  const dump = guardWait(2, '0x555000002008', 'Account::transfer (this=0x555000001000, other=0x555000002000) at bank.cpp:6') + guardWait(3, '0x555000001008', 'Account::transfer (this=0x555000002000, other=0x555000001000) at bank.cpp:6');
  const plain = analyzeText(dump);
  assert.notEqual(plain.verdict, 'deadlock', 'the text alone does not show the holders');
  const source = await openSource({ dirs: [dir], cwd: dir, allGrammars: true });
  const a = analyzeText(dump, { source });
  assert.equal(a.verdict, 'deadlock', a.notes.join('\n'));
  assert.deepEqual(a.deadlocks[0]?.threads, ['2', '3']);
  const holds = a.edges.filter((e) => e.basis === 'source').map((e) => `${e.from} → ${e.to}: ${e.description}`);
  assert.deepEqual(holds.sort(), [
    'res:mutex:0x555000001008 → thread:2: holds `this->mu_` since bank.cpp:4: `std::lock_guard<std::mutex> mine(mu_);`',
    'res:mutex:0x555000002008 → thread:3: holds `this->mu_` since bank.cpp:4: `std::lock_guard<std::mutex> mine(mu_);`',
  ]);
  // A different object: no link, so no cycle; the holds are notes.
  const other = guardWait(2, '0x555000002008', 'Account::transfer (this=0x555000001000, other=0x555000002000) at bank.cpp:6') + guardWait(3, '0x555000009008', 'Account::transfer (this=0x555000003000, other=0x555000009000) at bank.cpp:6');
  const b = analyzeText(other, { source });
  assert.notEqual(b.verdict, 'deadlock');
  assert.equal(b.edges.filter((e) => e.basis === 'source').length, 0);
  assert.ok(b.notes.some((n) => n.startsWith('Thread 2 holds some mutex (`mu_` at bank.cpp:4: `std::lock_guard<std::mutex> mine(mu_);`), read from --source; no frame')), b.notes.join('\n'));
});

test('a frame in a condition wait does not hold the mutex the wait lets go', async () => {
  writeFileSync(
    join(dir, 'queue.c'),
    ['#include <pthread.h>', 'static pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;', 'static pthread_cond_t cv;', 'void *consume(void *x) {', '  pthread_mutex_lock(&m);', '  while (!ready) pthread_cond_wait(&cv, &m);', '  return 0;', '}', ''].join('\n'),
  );
  const dump = [
    'Thread 2 (Thread 0x7f0000000020 (LWP 102) "consumer"):',
    '#0  __futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=0, futex_word=0x555000000060 <cv+32>) at ./nptl/futex-internal.c:57',
    '#1  __futex_abstimed_wait_common (futex_word=futex_word@entry=0x555000000060 <cv+32>, expected=expected@entry=0, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=0, cancel=cancel@entry=true) at ./nptl/futex-internal.c:87',
    '#2  0x00007f0000001234 in __GI___futex_abstimed_wait_cancelable64 (futex_word=futex_word@entry=0x555000000060 <cv+32>, expected=expected@entry=0, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=0) at ./nptl/futex-internal.c:139',
    '#3  0x00007f0000001235 in __pthread_cond_wait_common (abstime=0x0, clockid=0, mutex=0x555000000080 <m>, cond=0x555000000040 <cv>) at ./nptl/pthread_cond_wait.c:503',
    '#4  ___pthread_cond_wait (cond=0x555000000040 <cv>, mutex=0x555000000080 <m>) at ./nptl/pthread_cond_wait.c:618',
    '#5  0x0000555000000100 in consume (x=0x0) at queue.c:6',
    '#6  0x00007f0de9c871f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442',
    '',
  ].join('\n');
  const a = analyzeText(main.replace('bank.cpp:20', 'main.c:20') + dump, { source: await openSource({ dirs: [dir], cwd: dir, allGrammars: true }) });
  assert.equal(a.threads.find((t) => t.key === '2')?.acquireSite?.code, 'while (!ready) pthread_cond_wait(&cv, &m);', 'the line was read');
  assert.deepEqual(a.edges.filter((e) => e.basis === 'source'), []);
  assert.ok(!a.notes.some((n) => n.includes('holds some')), a.notes.join('\n'));
});
