/**
 * Adversarial input shapes for the linear-time test: each builds a dump of about `n` units
 * (characters, arguments, nesting levels, threads, lines) whose parse or analysis would blow up
 * if some step were quadratic or backtracked. Several of them did, before the fixes they name.
 */
export interface Shape {
  name: string;
  /** The size the small run uses; the large run uses ten times this. */
  base: number;
  /**
   * false: never grow the small size. For one giant line (many arguments, many pager prompts) the
   * memory, not the algorithm, bends the curve once the line outgrows the CPU caches (a 2 MB line
   * parses ~1.6x faster per byte than a 20 MB one) and V8 collects huge strings.
   */
  grow?: false;
  build(n: number): string;
}

import { fileURLToPath } from 'node:url';
import { repeatCapture } from '../helpers/repeat-capture.js';

const WAIT_ZOO = fileURLToPath(new URL('../../../fixtures/live/wait-zoo.txt', import.meta.url));

const frame = (level: number, body: string): string => `#${level}  0x00007ffff7e2a117 in ${body}`;

export const SHAPES: Shape[] = [
  { name: 'one huge line (a frame with a megabyte argument)', base: 400_000, build: (n) => `${frame(0, `f (s=0x1 "${'a'.repeat(n)}") at x.c:1`)}\n` },
  { name: 'thousands of arguments in one frame', base: 20_000, grow: false, build: (n) => `${frame(0, `f (${Array.from({ length: n }, (_, i) => `a${i}=0x${i.toString(16)} <sym${i}>`).join(', ')}) at x.c:1`)}\n` },
  { name: 'deep nesting of parentheses and braces', base: 200_000, build: (n) => `${frame(0, `f (x=${'({['.repeat(n / 3)}1${']})'.repeat(n / 3)}) at x.c:1`)}\n` },
  { name: 'unbalanced nesting (never closes)', base: 400_000, build: (n) => `${frame(0, `f (x=${'('.repeat(n)}`)}\n${frame(1, 'g () at y.c:2')}\n` },
  { name: 'long template names', base: 100_000, build: (n) => `${frame(0, `${'ns::A<'.repeat(n / 6)}int${'>'.repeat(n / 6)}::run (this=0x1) at t.h:9`)}\n` },
  { name: 'many " (" argument-list candidates', base: 200_000, build: (n) => `${frame(0, `${'f ('.repeat(n / 3)}`)}\n` },
  { name: 'many quotes and char literals', base: 200_000, build: (n) => `${frame(0, `f (s=${'"\'\\'.repeat(n / 3)}) at x.c:1`)}\n` },
  { name: '100,000 one-frame threads (10,000 in the small run)', base: 10_000, build: (n) => Array.from({ length: n }, (_, i) => `Thread ${i + 1} (Thread 0x7f${i.toString(16)} (LWP ${i + 100}) "w${i}"):\n${frame(0, `worker_${i % 97} (arg=0x${i.toString(16)}) at w.c:${i % 500}`)}\n`).join('') },
  { name: '30,000 threads hung on one lock with one stack (3,000 small)', base: 3_000, build: (n) => Array.from({ length: n }, (_, i) => `Thread ${i + 1} (LWP ${i + 100}):\n${frame(0, '__lll_lock_wait (futex=0x5555555580a0 <big_lock>, private=0) at lowlevellock.c:49')}\n${frame(1, '___pthread_mutex_lock (mutex=0x5555555580a0 <big_lock>) at pthread_mutex_lock.c:93')}\n${frame(2, 'worker (arg=0x0) at w.c:12')}\n`).join('') },
  { name: 'one thread with a very deep stack', base: 20_000, build: (n) => `Thread 1 (LWP 1):\n${Array.from({ length: n }, (_, i) => frame(i, `rec_${i % 7} (depth=${i}) at r.c:${i % 90}`)).join('\n')}\n` },
  { name: 'a frame wrapped over thousands of lines', base: 10_000, build: (n) => `${frame(0, 'f (')}\n${'    a=1,\n'.repeat(n)}    b=2) at x.c:1\n` },
  { name: 'mid-line frames in one line', base: 20_000, build: (n) => `${frame(0, 'f (x=')}${'#1 g (x='.repeat(n)}\n` },
  { name: 'unclosed HTML tags', base: 100_000, build: (n) => `${'<p '.repeat(n)}\n` },
  { name: 'stacked clone suffixes in a function name', base: 40_000, build: (n) => `${frame(0, `f${'.part'.repeat(n)} (a=1) at x.c:1`)}\n` },
  { name: 'switch lines with U+2028', base: 40_000, build: (n) => `[Switching to thread 1 (x)]${']#1 '.repeat(n)}\u2028\nThread 1 "${'" hit '.repeat(n)}\u2028\n` },
  { name: 'pager prompts everywhere', base: 6_000, grow: false, build: (n) => `${'--Type <RET> for more, q to quit, c to continue without paging--'.repeat(n)}\n${frame(0, 'f ()')}\n` },
  { name: 'a bt full local value over many lines', base: 2_000, build: (n) => `${frame(0, 'f () at x.c:1')}\n        v = {${'\n          a = {b = 1},'.repeat(n)}\n}\n` },
  {
    // Thread i joins thread i+1, the last joins the first: one deadlock as long as the dump. The
    // recursive SCC overflowed the stack on it and the join-holder lookup was quadratic.
    name: 'a join ring through every thread (2,000 threads small, 20,000 large)',
    base: 2_000,
    build: (n) =>
      Array.from({ length: n }, (_, i) => {
        const ptid = (k: number): bigint => 0x7f0000000000n + BigInt(k + 1) * 0x1000n;
        return `Thread ${i + 1} (Thread 0x${ptid(i).toString(16)} (LWP ${i + 100}) "w"):\n${frame(0, `__pthread_clockjoin_ex (threadid=${ptid((i + 1) % n)}, thread_return=0x0, clockid=0, abstime=0x0, block=true) at pthread_join_common.c:105`)}\n${frame(1, 'worker (arg=0x0) at ring.c:9')}\n`;
      }).join(''),
  },
  {
    // A real 11-thread capture (a pause() thread, std::future, call_once and rwlock waiters, a join)
    // repeated with renumbered threads: every copy's future waiters may be fulfilled by any copy's
    // thread bodies, and the possible holders were read once per waiter — quadratic (issue 15:
    // 40,000 threads took 16 s and 2.3 GB).
    name: 'the wait-zoo capture repeated (1,100 threads small, 11,000 large)',
    base: 1_100,
    build: (n) => repeatCapture(WAIT_ZOO, n),
  },
  // The dialects (src/parse/lldb.ts, julia.ts). LLDB's location and flags were lazy or repeated
  // regexes retried from every ` at ` / ` [opt]`: quadratic on these lines before they were scans.
  // The one-line shapes start large: a small run of a few ms is noise (12.5x at 2 ms under load).
  { name: 'LLDB: a frame line full of " at FILE:LINE"', base: 200_000, build: (n) => `* thread #1, name = 'x', stop reason = signal SIGSTOP\n  * frame #0: 0x1 lib\`f${' at a:1 b'.repeat(n / 9)}\n` },
  { name: 'LLDB: a frame line of trailing flags that do not end it', base: 200_000, build: (n) => `* thread #1, name = 'x', stop reason = signal SIGSTOP\n  * frame #0: 0x1 lib\`f${' [opt]'.repeat(n / 6)}x\n` },
  { name: "LLDB: a thread line of many \", name = '\" never closed", base: 800_000, build: (n) => `* thread #1${", name = 'x".repeat(n / 11)}\n  * frame #0: 0x1 lib\`f + 1\n` },
  {
    name: 'LLDB: bt all of 3,000 threads (300 small)',
    base: 300,
    build: (n) => Array.from({ length: n }, (_, i) => `  thread #${i + 1}, name = 'w${i}', stop reason = signal SIGSTOP\n    frame #0: 0x00007ff80a1b2c3d libsystem_kernel.dylib\`__psynch_mutexwait + 8\n    frame #1: 0x00000001000012f0 app\`worker(arg=0x0) at w.c:${i % 90}:3 [opt]\n`).join(''),
  },
  { name: 'Julia: one signal block with a very deep stack', base: 4_000, build: (n) => `signal (10): User defined signal 1\n${Array.from({ length: n }, (_, i) => `f${i % 7} at ./x.jl:${i}${i % 3 === 0 ? ' [inlined]' : ''}`).join('\n')}\n` },
  { name: 'Julia: a frame line full of " at " and " [inlined]"', base: 400_000, build: (n) => `signal (10): User defined signal 1\nf${' at x [inlined]'.repeat(n / 16)}\nunknown function (ip: 0x1) at ${'a at '.repeat(n / 5)}\n` },
  {
    name: 'Julia: jl_print_task_backtraces of 3,000 threads (300 small)',
    base: 300,
    build: (n) =>
      `${Array.from({ length: n }, (_, i) => `==== Thread ${i + 1} created 1 live tasks\n     ---- Root task (0x${(0x7840e8010010 + i * 0x1000).toString(16)})\n          (sticky: 1, started: 1, state: 0, tid: ${i + 1})\npthread_cond_wait at /lib/libpthread.so.0 (unknown line)\njl_safepoint_wait_gc at /src/safepoint.c:172\n     ---- End root task\n==== End thread ${i + 1}\n`).join('')}==== Done\n`,
  },
  { name: 'Julia: 3,000 signal blocks (300 small)', base: 300, build: (n) => Array.from({ length: n }, (_, i) => `signal (10): User defined signal 1\nunknown function (ip: 0x${(i + 1).toString(16)})\njl_safepoint_wait_gc at /src/safepoint.c:172\n\n`).join('') },
  { name: 'print command with spaces and U+2028', base: 200_000, build: (n) => `(gdb) p${' '.repeat(n)}x\u2028y\n` },
];
