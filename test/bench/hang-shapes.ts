/**
 * The big hang shapes of issue 15, generated on the fly: dumps whose threads all wait, in the ways
 * that made reports grow faster than the dump (every waiter listing every possible holder, every
 * waiter of an all-of wait naming every thread, thousands of joins), plus the real 11-thread
 * capture fixtures/live/wait-zoo.txt repeated with renumbered threads.
 *
 * Each thread carries the same ~20 caller frames a server's worker has (long C++ names with
 * argument lists, `at FILE:LINE`), about 3 KB a thread as in generate-dump.ts, so 100,000 threads
 * are ~300 MB and the per-thread cost is a realistic stack, not a three-frame toy.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { captureCopies } from '../helpers/repeat-capture.js';

const WAIT_ZOO = fileURLToPath(new URL('../../../fixtures/live/wait-zoo.txt', import.meta.url));

export type HangShapeName = 'one-lock' | 'all-of' | 'joins' | 'zoo';

export interface HangShape {
  name: HangShapeName;
  /** What the figure line says the shape is. */
  label: string;
  /** The text of `threads` threads, in pieces of whole threads. */
  pieces(threads: number): Generator<string>;
}

const PTID_BASE = 0x7f0000000000n;
const ptid = (n: number): bigint => PTID_BASE + BigInt(n) * 0x1000n;
const header = (n: number, name: string): string => `Thread ${n} (Thread 0x${ptid(n).toString(16)} (LWP ${10_000 + n}) "${name}"):\n`;

/** The outer frames of a worker thread: a request loop over a thread pool, as a server has. */
function callers(first: number, n: number): string {
  const self = `0x55d0c8e${(n % 0x100000).toString(16).padStart(5, '0')}0`;
  const frames = [
    `app::Request::handle<app::Codec<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > > > (this=${self}, codec=...) at /src/app/request.h:${88 + (n % 7)}`,
    `app::Handler::operator()(app::Request&) const (this=0x55d0c6a41f20, req=...) at /src/app/handler.cc:141`,
    `std::__invoke_impl<void, app::Handler&, app::Request&>(std::__invoke_other, app::Handler&, app::Request&) (__f=..., __args#0=...) at /usr/include/c++/12/bits/invoke.h:61`,
    `std::__invoke_r<void, app::Handler&, app::Request&> (__fn=...) at /usr/include/c++/12/bits/invoke.h:111`,
    `std::_Function_handler<void (app::Request&), app::Handler>::_M_invoke(std::_Any_data const&, app::Request&) (__functor=..., __args#0=...) at /usr/include/c++/12/bits/std_function.h:290`,
    `std::function<void (app::Request&)>::operator()(app::Request&) const (this=0x55d0c6a41f00, __args#0=...) at /usr/include/c++/12/bits/std_function.h:591`,
    `app::Router::dispatch (this=0x55d0c6a41e00, req=..., route=0x55d0c6a42000 "/v1/items") at /src/app/router.cc:77`,
    `app::Connection::on_readable (this=${self}, bytes=4096) at /src/app/connection.cc:203`,
    `app::EventLoop::run_once (this=0x55d0c6a40000, timeout_ms=250) at /src/app/event_loop.cc:118`,
    `app::Worker::loop (this=0x55d0c6a3f000, id=${n % 64}) at /src/app/worker.cc:59`,
    `operator() (__closure=0x55d0c6a3f010) at /src/app/pool.cc:40`,
    `std::__invoke_impl<void, app::Pool::start()::<lambda()> >(std::__invoke_other, struct {...} &&) (__f=...) at /usr/include/c++/12/bits/invoke.h:61`,
    `std::__invoke<app::Pool::start()::<lambda()> >(struct {...} &&) (__fn=...) at /usr/include/c++/12/bits/invoke.h:96`,
    `std::thread::_Invoker<std::tuple<app::Pool::start()::<lambda()> > >::_M_invoke<0>(std::_Index_tuple<0>) (this=0x55d0c6a3f010) at /usr/include/c++/12/bits/std_thread.h:252`,
    `std::thread::_Invoker<std::tuple<app::Pool::start()::<lambda()> > >::operator()(void) (this=0x55d0c6a3f010) at /usr/include/c++/12/bits/std_thread.h:259`,
    `std::thread::_State_impl<std::thread::_Invoker<std::tuple<app::Pool::start()::<lambda()> > > >::_M_run(void) (this=0x55d0c6a3f000) at /usr/include/c++/12/bits/std_thread.h:210`,
  ];
  let out = '';
  for (let i = 0; i < frames.length; i++) out += `#${first + i}  0x000055d0c6a${(0x1000 + i * 0x40).toString(16)} in ${frames[i]}\n`;
  const k = first + frames.length;
  out += `#${k}  0x00007f3c2eb544a3 in ?? () from /lib/x86_64-linux-gnu/libstdc++.so.6\n`;
  out += `#${k + 1} 0x00007f3c2e8a71f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442\n`;
  out += `#${k + 2} 0x00007f3c2e9278ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81\n`;
  return out;
}

/** Many waiters on one lock: every thread blocks on `big_lock`, whose holder the text does not show. */
function oneLockThread(n: number): string {
  return (
    header(n, 'worker') +
    '#0  futex_wait (private=0, expected=2, futex_word=0x55d0c6b4a0a0 <big_lock>) at ../sysdeps/nptl/futex-internal.h:146\n' +
    '#1  __GI___lll_lock_wait (futex=futex@entry=0x55d0c6b4a0a0 <big_lock>, private=0) at ./nptl/lowlevellock.c:49\n' +
    '#2  0x00007f3c2e8aa082 in lll_mutex_lock_optimized (mutex=0x55d0c6b4a0a0 <big_lock>) at ./nptl/pthread_mutex_lock.c:48\n' +
    '#3  ___pthread_mutex_lock (mutex=0x55d0c6b4a0a0 <big_lock>) at ./nptl/pthread_mutex_lock.c:93\n' +
    '#4  0x000055d0c6a0f10c in std::mutex::lock (this=0x55d0c6b4a0a0 <big_lock>) at /usr/include/c++/12/bits/std_mutex.h:100\n' +
    '#5  std::lock_guard<std::mutex>::lock_guard (this=0x7f3c2d1fd9b0, __m=...) at /usr/include/c++/12/bits/std_mutex.h:229\n' +
    callers(6, n) +
    '\n'
  );
}

/**
 * Every thread waiting for all: a Julia collection stops the world. Thread 1 started it and waits
 * for every GC-unsafe thread (julia.gc.initiator.txt); half of the others are GC-unsafe, blocked
 * in a foreign call (julia.thread.unsafe-blocked), the other half lost the race to collect and
 * park at a safepoint until the collection is over (julia.gc.parked's "hit-lost-race").
 */
function allOfThread(n: number): string {
  if (n === 1) {
    return (
      header(n, 'julia-gc') +
      '#0  jl_gc_wait_for_the_world (gc_n_threads=<optimized out>, gc_all_tls_states=<optimized out>) at /build/julia-1.10/src/gc.c:241\n' +
      '#1  ijl_gc_collect (collection=collection@entry=JL_GC_AUTO) at /build/julia-1.10/src/gc.c:3508\n' +
      '#2  0x00007f2a5b0a97ed in maybe_collect (ptls=0x7f2a40000b70) at /build/julia-1.10/src/gc.c:937\n' +
      '#3  jl_gc_pool_alloc_inner (ptls=<optimized out>, pool_offset=pool_offset@entry=752, osize=osize@entry=16) at /build/julia-1.10/src/gc.c:1293\n' +
      '#4  0x00007f2a5b0a9925 in jl_gc_pool_alloc_noinline (ptls=<optimized out>, pool_offset=pool_offset@entry=752, osize=osize@entry=16) at /build/julia-1.10/src/gc.c:1350\n' +
      '#5  0x00007f2a3c12a0b1 in julia_collect_1234 () at /home/u/work/run.jl:12\n' +
      callers(6, n) +
      '\n'
    );
  }
  if (n % 2 === 1) {
    return (
      header(n, 'julia-lost-race') +
      '#0  __futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=0, futex_word=0x7fb1af5ca8e8 <safepoint_cond+40>) at ./nptl/futex-internal.c:57\n' +
      '#1  __futex_abstimed_wait_common (futex_word=futex_word@entry=0x7fb1af5ca8e8 <safepoint_cond+40>, expected=expected@entry=0, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=0, cancel=cancel@entry=true) at ./nptl/futex-internal.c:87\n' +
      '#2  0x00007fb1b0054ed9 in ___pthread_cond_wait (cond=0x7fb1af5ca8c0 <safepoint_cond>, mutex=0x7fb1af5ca900 <safepoint_lock>) at ./nptl/pthread_cond_wait.c:618\n' +
      '#3  0x00007fb1af132fca in uv_cond_wait (cond=<optimized out>, mutex=<optimized out>) at src/unix/thread.c:883\n' +
      '#4  0x00007fb1af0b4735 in ijl_safepoint_wait_gc () at /build/julia-1.10/src/safepoint.c:173\n' +
      '#5  0x00007fb1af0b4801 in jl_safepoint_start_gc () at /build/julia-1.10/src/safepoint.c:130\n' +
      '#6  0x00007fb1af0aa222 in ijl_gc_collect (collection=JL_GC_AUTO) at /build/julia-1.10/src/gc.c:3470\n' +
      callers(7, n) +
      '\n'
    );
  }
  return (
    header(n, 'julia-ffi') +
    '#0  0x00007f2a5c0d6e9d in syscall () from /usr/lib/libc.so.6\n' +
    '#1  0x00007f2a3c13b0d2 in jlplt_uv_sem_wait_2345 () at /home/u/work/ffi.jl:40\n' +
    '#2  0x00007f2a3c13b1e3 in julia_wait_for_peer_2346 () at /home/u/work/ffi.jl:41\n' +
    callers(3, n) +
    '\n'
  );
}

/**
 * Thousands of joins: thread n joins thread n+1 (`std::thread::join`, the pthread_t in decimal as
 * gdb prints it), and the last thread waits on a lock nobody is shown holding, so the chain is
 * one long hang, not a cycle.
 */
function joinThread(n: number, threads: number): string {
  if (n === threads) return oneLockThread(n);
  const target = ptid(n + 1);
  const lwp = 10_000 + n + 1;
  return (
    header(n, 'joiner') +
    `#0  __futex_abstimed_wait_common64 (private=128, cancel=true, abstime=0x0, op=265, expected=${lwp}, futex_word=0x${(target + 0x2d0n).toString(16)}) at ./nptl/futex-internal.c:57\n` +
    `#1  __futex_abstimed_wait_common (futex_word=futex_word@entry=0x${(target + 0x2d0n).toString(16)}, expected=${lwp}, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=128, cancel=cancel@entry=true) at ./nptl/futex-internal.c:87\n` +
    `#2  0x00007f3c2e8a3f7b in __GI___futex_abstimed_wait_cancelable64 (futex_word=futex_word@entry=0x${(target + 0x2d0n).toString(16)}, expected=<optimized out>, clockid=clockid@entry=0, abstime=abstime@entry=0x0, private=private@entry=128) at ./nptl/futex-internal.c:139\n` +
    `#3  0x00007f3c2e8a8ce3 in __pthread_clockjoin_ex (threadid=${target}, thread_return=0x0, clockid=0, abstime=0x0, block=<optimized out>) at ./nptl/pthread_join_common.c:102\n` +
    '#4  0x00007f3c2eb54517 in std::thread::join() () from /lib/x86_64-linux-gnu/libstdc++.so.6\n' +
    callers(5, n) +
    '\n'
  );
}

export const HANG_SHAPES: HangShape[] = [
  {
    name: 'one-lock',
    label: 'one lock, many waiters',
    *pieces(threads) {
      for (let n = 1; n <= threads; n += 100) {
        let piece = '';
        for (let k = n; k < n + 100 && k <= threads; k++) piece += oneLockThread(k);
        yield piece;
      }
    },
  },
  {
    name: 'all-of',
    label: 'all-of, every thread',
    *pieces(threads) {
      for (let n = 1; n <= threads; n += 100) {
        let piece = '';
        for (let k = n; k < n + 100 && k <= threads; k++) piece += allOfThread(k);
        yield piece;
      }
    },
  },
  {
    name: 'joins',
    label: 'thousands of joins',
    *pieces(threads) {
      for (let n = 1; n <= threads; n += 100) {
        let piece = '';
        for (let k = n; k < n + 100 && k <= threads; k++) piece += joinThread(k, threads);
        yield piece;
      }
    },
  },
  {
    name: 'zoo',
    label: 'wait-zoo repeated',
    *pieces(threads) {
      const { threads: per, copy } = captureCopies(WAIT_ZOO);
      for (let c = 0; c * per < threads; c++) yield copy(c).slice(0, threads - c * per).join('');
    },
  },
];

/** Writes `threads` threads of `shape` to DIR/NAME-THREADS.txt; returns its path and size. */
export async function writeHangShape(shape: HangShape, threads: number, dir: string): Promise<{ path: string; bytes: number }> {
  const path = join(dir, `${shape.name}-${threads}.txt`);
  const file = await open(path, 'w');
  let bytes = 0;
  try {
    let buffer = '';
    for (const piece of shape.pieces(threads)) {
      buffer += piece;
      if (buffer.length > 1 << 20) {
        bytes += Buffer.byteLength(buffer);
        await file.write(buffer);
        buffer = '';
      }
    }
    bytes += Buffer.byteLength(buffer);
    await file.write(buffer);
  } finally {
    await file.close();
  }
  return { path, bytes };
}
