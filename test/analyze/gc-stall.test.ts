import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeText } from '../../src/analyze/index.js';

// A collection that cannot start because a Julia thread blocks in a plain ccall (GC-unsafe):
// no cycle (nothing waits for the collector's thread), but nothing in the dump can end it.
const STALL = `Thread 3 (Thread 0x7f0d135fe6c0 (LWP 4403) "julia"):
#0  0x00007f0d200524e9 in ?? () from /usr/lib/libc.so.6
#1  0x00007f0d20054ed9 in pthread_cond_wait () from /usr/lib/libc.so.6
#2  0x00007f0d1f132fca in uv_cond_wait (cond=0x7f0d1f5ca8c0 <safepoint_cond>, mutex=0x7f0d1f5ca900 <safepoint_lock>) at src/unix/thread.c:883
#3  0x00007f0d1f0b4735 in jl_safepoint_wait_gc () at /build/julia-1.10/src/safepoint.c:173
#4  0x00007f0d1f0b455b in jl_set_gc_and_wait () at /build/julia-1.10/src/julia_internal.h:956

Thread 2 (Thread 0x7f0d13ffe6c0 (LWP 4402) "julia"):
#0  0x00007f0d200d5a10 in read () from /usr/lib/libc.so.6
#1  0x00007f0d0c13b0d2 in jlplt_read_2345 () at /home/u/work/ffi.jl:40
#2  0x00007f0d0c13b1e3 in julia_read_frame_2346 () at /home/u/work/ffi.jl:41

Thread 1 (Thread 0x7f0d1ff9cd00 (LWP 4401) "julia"):
#0  jl_gc_wait_for_the_world (gc_n_threads=<optimized out>, gc_all_tls_states=<optimized out>) at /build/julia-1.10/src/gc.c:241
#1  ijl_gc_collect (collection=collection@entry=JL_GC_AUTO) at /build/julia-1.10/src/gc.c:3508
`;

test('a GC waiting for a GC-unsafe thread in read() is no hang: the outside world can end the read', () => {
  const a = analyzeText(STALL);
  assert.equal(a.deadlocks.length, 0);
  assert.equal(a.verdict, 'ok');
  assert.equal(a.verdictReasons[0]?.kind, 'can-progress');
  assert.match(a.verdictReasons[0]?.text ?? '', /thread 2 waits on the outside world/);
});

test('the same stall with the foreign call blocked on a mutex nobody shown can release is a hang', () => {
  const blocked = STALL.replace(
    '#0  0x00007f0d200d5a10 in read () from /usr/lib/libc.so.6\n#1  0x00007f0d0c13b0d2 in jlplt_read_2345 () at /home/u/work/ffi.jl:40\n#2',
    '#0  0x00007f0d200d5a10 in ?? () from /usr/lib/libc.so.6\n#1  0x00007f0d200d6a10 in pthread_mutex_lock () from /usr/lib/libc.so.6\n#2  0x00007f0d0c13b0d2 in jlplt_lock_2345 () at /home/u/work/ffi.jl:40\n#3',
  );
  const a = analyzeText(blocked);
  assert.equal(a.verdict, 'hang');
  assert.equal(a.verdictReasons[0]?.kind, 'all-blocked');
  assert.deepEqual(a.hung, ['2']);
  assert.deepEqual(a.hangBlockedBehind, ['1', '3']);
  // Thread 2 may hold the mutex itself, or the collector (thread 1) may, or the parked thread 3,
  // which waits for the collector: three possible cycles, smallest first.
  assert.deepEqual(a.candidateCycles.map((c) => c.threads), [['2'], ['1', '2'], ['1', '2', '3']]);
});

test('the same stall with the foreign call returned (thread 2 running Julia code) is not a hang', () => {
  const running = STALL.replace('#0  0x00007f0d200d5a10 in read () from /usr/lib/libc.so.6\n#1  0x00007f0d0c13b0d2 in jlplt_read_2345 () at /home/u/work/ffi.jl:40\n#2', '#0');
  const a = analyzeText(running);
  assert.equal(a.verdict, 'ok');
  assert.deepEqual(a.hung, []);
});
