/**
 * Synthetic `thread apply all bt` dumps for the benchmark (and for any test that needs a big,
 * realistic dump whose deadlocks are known in advance).
 *
 * A dump of N threads × 24 frames is about 3 KB a thread (1,000 → 3 MB, 10,000 → 30 MB,
 * 100,000 → 300 MB). Its frames have the shapes real dumps have: glibc futex/pthread frames with
 * and without a pc, libc without debug info (`?? () from libc.so.6`), long C++ names (std::function,
 * lambdas, nested templates) with argument lists, `at FILE:LINE`, `from LIB`, inlined callers
 * (no pc), JIT `?? ()` frames. The roles are planned first, so the text is known to hold:
 *   - join cycles: threads that `pthread_join` each other in a ring (`__pthread_clockjoin_ex
 *     (threadid=DECIMAL)` whose target's header shows that pthread_t, plus `expected=LWP` in the
 *     futex frames), a deadlock provable from the text alone;
 *   - threads blocked behind a cycle (they join a cycle member);
 *   - threads waiting in `___pthread_mutex_lock (mutex=0x…)` whose holder the text does not show;
 *   - the main thread joining an idle worker, and the rest idle (cond waits, sleeps, epoll).
 * Everything comes from a seeded PRNG, so the same spec always gives the same bytes.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, statSync, writeFileSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { prng } from './prng.js';

/** Bump when the generated text changes, so cached dumps are regenerated. */
export const GENERATOR_VERSION = 3;

export interface DumpSpec {
  threads: number;
  /** Frames per backtrace (default 24). */
  frames?: number;
  /** PRNG seed (default 1). */
  seed?: number;
}

export type ThreadRole =
  | { kind: 'join-cycle'; target: number }
  | { kind: 'join-behind'; target: number }
  | { kind: 'join-idle'; target: number }
  | { kind: 'mutex'; mutex: string }
  | { kind: 'cond' | 'cond-nodebug' | 'sleep' | 'epoll' };

/** What the generator put in the dump: the truth a benchmark checks the analysis against. */
export interface DumpPlan {
  generatorVersion: number;
  threads: number;
  frames: number;
  seed: number;
  /** Each join cycle as sorted thread keys (gdb thread numbers as strings), sorted by first key. */
  cycles: string[][];
  /** Threads that join a cycle member (blocked behind a deadlock), sorted by number. */
  blockedBehind: string[];
  /** Threads waiting for a mutex whose holder the text does not show. */
  mutexWaiters: number;
  /** Distinct mutex addresses those threads wait on. */
  mutexes: number;
}

export interface GeneratedDump {
  path: string;
  bytes: number;
  lines: number;
  plan: DumpPlan;
  /** True when an existing file with the same spec was reused. */
  reused: boolean;
}


type Rng = () => number;
const pick = <T>(rng: Rng, items: readonly T[]): T => items[Math.floor(rng() * items.length)] as T;
const int = (rng: Rng, lo: number, hi: number): number => lo + Math.floor(rng() * (hi - lo + 1));

const LIBC = '/lib/x86_64-linux-gnu/libc.so.6';
const LIBSTDCXX = '/lib/x86_64-linux-gnu/libstdc++.so.6';
const LIBC_BASE = 0x7f3c2e800000;
const APP_BASE = 0x55d0c6a00000;
const HEAP_BASE = 0x55d0c8e00000;
const MAIN_PTID = 0x7f3c2ea3e740;
const FIRST_LWP = 4000;
/** offsetof(struct pthread, tid) on x86-64 glibc 2.35: the join futex word is `threadid + 0x2d0`. */
const TID_OFFSET = 0x2d0;

/** The pthread_t gdb shows in thread N's header (thread 1 is the main thread). */
export function ptidOf(thread: number): number {
  return thread === 1 ? MAIN_PTID : 0x7f3c2e23d640 - (thread - 2) * 0x801000;
}
export const lwpOf = (thread: number): number => FIRST_LWP + thread - 1;

const hex = (n: number): string => `0x${n.toString(16)}`;
const pc16 = (n: number): string => `0x${n.toString(16).padStart(16, '0')}`;
/** gdb's level field: `#0  `, `#10 `, `#100 `. */
const levelPrefix = (level: number): string => (level < 10 ? `#${level}  ` : `#${level} `);

// ---------------------------------------------------------------- the application's vocabulary

const NAMESPACES = ['net', 'storage', 'rpc', 'sched', 'cache', 'index', 'query', 'replication', 'metrics', 'auth'];
const CLASSES = ['Connection', 'Session', 'Worker', 'Dispatcher', 'Segment', 'Compactor', 'Planner', 'Reactor', 'Shard', 'Registry', 'Batcher', 'LeaseManager'];
const METHODS = ['run', 'poll_once', 'handle_request', 'flush', 'drain', 'process_batch', 'wait_ready', 'on_timer', 'step', 'commit', 'resolve', 'schedule'];
const C_FUNCS = ['ev_loop_step', 'buf_flush', 'conn_read_cb', 'tls_handshake_step', 'queue_pop_wait', 'io_submit_batch'];
const LIBS: ReadonlyArray<[string, string[]]> = [
  ['/usr/lib/x86_64-linux-gnu/libevent-2.1.so.7', ['event_base_loop', 'event_process_active']],
  ['/usr/lib/x86_64-linux-gnu/libuv.so.1', ['uv_run', 'uv__io_poll']],
  ['/usr/lib/x86_64-linux-gnu/libglib-2.0.so.0', ['g_main_context_iteration', 'g_main_loop_run']],
];

interface Site {
  ns: string;
  cls: string;
  method: string;
  line: number;
}

/** One application frame as a function of the thread's random stream (addresses vary per thread). */
type FrameShape = (rng: Rng) => string;

function appPc(rng: Rng): string {
  return pc16(APP_BASE + int(rng, 0x10000, 0xfffff));
}
function heap(rng: Rng): string {
  return hex(HEAP_BASE + int(rng, 0x100, 0xfffff) * 8);
}

/**
 * How often each frame shape below appears (case number → weight): mostly short frames, with
 * enough long C++ names that the average frame is ~115 bytes and a thread ~3 KB, as in real dumps.
 */
const SHAPE_WEIGHTS = [3, 4, 0.75, 1.5, 0.5, 4, 0.5, 4, 2, 1];
const SHAPE_TOTAL = SHAPE_WEIGHTS.reduce((a, b) => a + b, 0);
function weightedShape(rng: Rng): number {
  let x = rng() * SHAPE_TOTAL;
  for (let i = 0; i < SHAPE_WEIGHTS.length; i++) {
    x -= SHAPE_WEIGHTS[i] as number;
    if (x < 0) return i;
  }
  return SHAPE_WEIGHTS.length - 1;
}

/** The middle-of-stack frame shapes; a stack shape is a fixed sequence of these. */
function makeFrameShape(rng: Rng): FrameShape {
  const s: Site = { ns: pick(rng, NAMESPACES), cls: pick(rng, CLASSES), method: pick(rng, METHODS), line: int(rng, 20, 2400) };
  const file = `/src/app/${s.ns}/${s.cls.toLowerCase()}.cpp`;
  const cls = `app::${s.ns}::${s.cls}`;
  switch (weightedShape(rng)) {
    case 0: // a plain member function
      return (r) => `${appPc(r)} in ${cls}::${s.method} (this=${heap(r)}, budget=${int(r, 1, 512)}) at ${file}:${s.line}`;
    case 1: // an inlined caller: no pc
      return (r) => `${cls}::${s.method} (this=${heap(r)}) at ${file}:${s.line}`;
    case 2: // std::function's call operator: a long name with its own parameter list
      return (r) =>
        `${appPc(r)} in std::function<void (std::shared_ptr<${cls}> const&, std::error_code)>::operator()(std::shared_ptr<${cls}> const&, std::error_code) const (this=${heap(r)}, __args#0=..., __args#1=...) at /usr/include/c++/12/bits/std_function.h:591`;
    case 3: // a lambda body
      return (r) => `${appPc(r)} in ${cls}::${s.method}(unsigned long)::{lambda()#1}::operator()() const (__closure=${heap(r)}) at ${file}:${s.line}`;
    case 4: // std::__invoke_impl of that lambda, inlined
      return () =>
        `std::__invoke_impl<void, ${cls}::${s.method}(unsigned long)::{lambda()#1}>(std::__invoke_other, ${cls}::${s.method}(unsigned long)::{lambda()#1}&&) (__f=...) at /usr/include/c++/12/bits/invoke.h:61`;
    case 5: // JIT or stripped code
      return (r) => `${appPc(r)} in ?? ()`;
    case 6: // nested templates with a reference argument
      return (r) =>
        `${appPc(r)} in app::detail::Visitor<${cls}, std::map<std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> >, std::vector<int, std::allocator<int> > > >::visit<app::${s.ns}::Node const*>(app::${s.ns}::Node const* const&) (this=${heap(r)}, node=@0x7ffd2c1e4a88: ${heap(r)}) at /src/app/detail/visitor.hpp:${s.line}`;
    case 7: {
      // a shared library without debug info
      const [lib, fns] = pick(rng, LIBS);
      const fn = pick(rng, fns);
      return (r) => `${pc16(0x7f3c2d000000 + int(r, 0x1000, 0xfffff))} in ${fn} () from ${lib}`;
    }
    case 8: {
      // C code with entry values
      const fn = pick(rng, C_FUNCS);
      return (r) => `${appPc(r)} in ${fn} (ctx=ctx@entry=${heap(r)}, flags=0) at /src/app/c/${fn.split('_')[0]}.c:${s.line}`;
    }
    default: // a member function taking a string, const-qualified
      return (r) =>
        `${appPc(r)} in ${cls}::${s.method}(std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&) const (this=${heap(r)}, key="k${int(r, 0, 99999)}") at ${file}:${s.line}`;
  }
}

/** The outermost frames of every non-main thread: std::thread's trampoline, start_thread, clone3. */
function threadBase(rng: Rng): string[] {
  return [
    `${appPc(rng)} in std::thread::_State_impl<std::thread::_Invoker<std::tuple<app::Pool::Pool(unsigned long)::{lambda()#1}> > >::_M_run() (this=${heap(rng)}) at /usr/include/c++/12/bits/std_thread.h:211`,
    `${pc16(0x7f3c2eadc000 + 0x253)} in ?? () from ${LIBSTDCXX}`,
    `${pc16(LIBC_BASE + 0x94ac3)} in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442`,
    `${pc16(LIBC_BASE + 0x126850)} in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81`,
  ];
}
function mainBase(rng: Rng): string[] {
  return [
    `${appPc(rng)} in main (argc=3, argv=0x7ffd2c1e5b18) at /src/app/main.cpp:88`,
    `${pc16(LIBC_BASE + 0x29d90)} in __libc_start_call_main (main=main@entry=${hex(APP_BASE + 0x4a10)} <main>, argc=argc@entry=3, argv=argv@entry=0x7ffd2c1e5b18) at ../sysdeps/nptl/libc_start_call_main.h:58`,
    `${pc16(LIBC_BASE + 0x29e40)} in __libc_start_main_impl (main=${hex(APP_BASE + 0x4a10)} <main>, argc=3, argv=0x7ffd2c1e5b18, init=<optimized out>, fini=<optimized out>, rtld_fini=<optimized out>, stack_end=0x7ffd2c1e5b08) at ../csu/libc-start.c:392`,
    `${pc16(APP_BASE + 0x4b25)} in _start ()`,
  ];
}

// ---------------------------------------------------------------- the waits at the top of a stack

function futexFrames(word: string, expected: number, priv: number, abstime: string): string[] {
  return [
    `__futex_abstimed_wait_common64 (private=${priv}, cancel=true, abstime=${abstime}, op=${priv ? 265 : 393}, expected=${expected}, futex_word=${word}) at ./nptl/futex-internal.c:57`,
    `__futex_abstimed_wait_common (futex_word=futex_word@entry=${word}, expected=expected@entry=${expected}, clockid=clockid@entry=0, abstime=abstime@entry=${abstime}, private=private@entry=${priv}, cancel=cancel@entry=true) at ./nptl/futex-internal.c:87`,
    `${pc16(LIBC_BASE + 0x91e9b)} in __GI___futex_abstimed_wait_cancelable64 (futex_word=futex_word@entry=${word}, expected=expected@entry=${expected}, clockid=clockid@entry=0, abstime=abstime@entry=${abstime}, private=private@entry=${priv}) at ./nptl/futex-internal.c:139`,
  ];
}

function joinTop(target: number, rng: Rng): string[] {
  const ptid = ptidOf(target);
  return [
    ...futexFrames(hex(ptid + TID_OFFSET), lwpOf(target), 128, '0x0'),
    `${pc16(LIBC_BASE + 0x966a4)} in __pthread_clockjoin_ex (threadid=${ptid}, thread_return=thread_return@entry=0x0, clockid=clockid@entry=0, abstime=abstime@entry=0x0, block=block@entry=true) at ./nptl/pthread_join_common.c:105`,
    `${pc16(0x7f3c2eadc000 + 0x2c7)} in __gthread_join (__value_ptr=0x0, __threadid=<optimized out>) at /build/gcc-12-sWSbeI/gcc-12-12.2.0/build/x86_64-linux-gnu/libstdc++-v3/include/x86_64-linux-gnu/bits/gthr-default.h:669`,
    `std::thread::join (this=${heap(rng)}) at ../../../../../src/libstdc++-v3/src/c++11/thread.cc:136`,
  ];
}

function mutexTop(mutex: string, rng: Rng): string[] {
  return [
    `futex_wait (private=0, expected=2, futex_word=${mutex}) at ../sysdeps/nptl/futex-internal.h:146`,
    `__GI___lll_lock_wait (futex=futex@entry=${mutex}, private=0) at ./nptl/lowlevellock.c:49`,
    `${pc16(LIBC_BASE + 0x98002)} in lll_mutex_lock_optimized (mutex=${mutex}) at ./nptl/pthread_mutex_lock.c:48`,
    `___pthread_mutex_lock (mutex=${mutex}) at ./nptl/pthread_mutex_lock.c:93`,
    `${appPc(rng)} in __gthread_mutex_lock (__mutex=${mutex}) at /usr/include/x86_64-linux-gnu/c++/12/bits/gthr-default.h:749`,
    `std::mutex::lock (this=${mutex}) at /usr/include/c++/12/bits/std_mutex.h:100`,
    `std::lock_guard<std::mutex>::lock_guard (__m=..., this=<synthetic pointer>) at /usr/include/c++/12/bits/std_mutex.h:229`,
  ];
}

function condTop(rng: Rng): string[] {
  const cond = heap(rng);
  const mutex = heap(rng);
  const word = hex(parseInt(cond.slice(2), 16) + 8);
  return [
    ...futexFrames(word, 0, 0, '0x0'),
    `${pc16(LIBC_BASE + 0x94600)} in __pthread_cond_wait_common (abstime=0x0, clockid=0, mutex=${mutex}, cond=${cond}) at ./nptl/pthread_cond_wait.c:503`,
    `___pthread_cond_wait (cond=${cond}, mutex=${mutex}) at ./nptl/pthread_cond_wait.c:618`,
    `${pc16(0x7f3c2eadc000 + 0x5e0)} in std::condition_variable::wait(std::unique_lock<std::mutex>&) () from ${LIBSTDCXX}`,
  ];
}

function condNoDebugTop(): string[] {
  return [
    `${pc16(LIBC_BASE + 0x91117)} in ?? () from ${LIBC}`,
    `${pc16(LIBC_BASE + 0x93a41)} in pthread_cond_wait () from ${LIBC}`,
    `${pc16(0x7f3c2eadc000 + 0x5e0)} in std::condition_variable::wait(std::unique_lock<std::mutex>&) () from ${LIBSTDCXX}`,
  ];
}

function sleepTop(rng: Rng): string[] {
  const req = hex(0x7f3c20000d60 + int(rng, 0, 0xffff) * 16);
  return [
    `${pc16(LIBC_BASE + 0xe57fa)} in __GI___clock_nanosleep (clock_id=clock_id@entry=0, flags=flags@entry=0, req=req@entry=${req}, rem=rem@entry=${req}) at ../sysdeps/unix/sysv/linux/clock_nanosleep.c:78`,
    `${pc16(LIBC_BASE + 0xea677)} in __GI___nanosleep (req=req@entry=${req}, rem=rem@entry=${req}) at ../sysdeps/unix/sysv/linux/nanosleep.c:25`,
    `${appPc(rng)} in std::this_thread::sleep_for<long, std::ratio<1l, 1000l> > (__rtime=...) at /usr/include/c++/12/bits/this_thread_sleep.h:80`,
  ];
}

function epollTop(rng: Rng): string[] {
  return [
    `${pc16(LIBC_BASE + 0x12fe2e)} in epoll_wait (epfd=${int(rng, 3, 900)}, events=${heap(rng)}, maxevents=64, timeout=-1) at ../sysdeps/unix/sysv/linux/epoll_wait.c:30`,
  ];
}

// ---------------------------------------------------------------- planning

interface Plan {
  roles: ThreadRole[]; // index = thread number (0 unused)
  public: DumpPlan;
}

function planDump(threads: number, frames: number, seed: number): Plan {
  if (!Number.isInteger(threads) || threads < 4) throw new Error(`generator: need at least 4 threads, got ${threads}`);
  if (!Number.isInteger(frames) || frames < 14) throw new Error(`generator: need at least 14 frames a thread, got ${frames}`);
  const rng = prng(seed ^ 0x5eed);
  const roles: (ThreadRole | undefined)[] = new Array(threads + 1);
  roles[1] = { kind: 'join-idle', target: 2 };
  roles[2] = { kind: 'cond' };
  // Free thread numbers 3..N, shuffled, handed out in order.
  const free = Array.from({ length: threads - 2 }, (_, i) => i + 3);
  for (let i = free.length - 1; i > 0; i--) {
    const j = Math.floor(rng() * (i + 1));
    [free[i], free[j]] = [free[j] as number, free[i] as number];
  }
  let next = 0;
  const take = (): number => free[next++] as number;

  const cycleCount = Math.max(1, Math.round(threads / 400));
  const cycles: string[][] = [];
  const blockedBehind: string[] = [];
  for (let c = 0; c < cycleCount && free.length - next >= 4; c++) {
    const size = c % 4 === 3 ? 3 : 2;
    const ring = Array.from({ length: size }, take);
    ring.forEach((t, i) => (roles[t] = { kind: 'join-cycle', target: ring[(i + 1) % size] as number }));
    cycles.push(ring.map(String).sort((a, b) => Number(a) - Number(b)));
    if (rng() < 0.5) {
      const behind = take();
      roles[behind] = { kind: 'join-behind', target: pick(rng, ring) };
      blockedBehind.push(String(behind));
    }
  }
  const mutexCount = 8 + Math.floor(threads / 1000);
  const mutexes = Array.from({ length: mutexCount }, (_, m) => hex(HEAP_BASE + 0xb040 + m * 0x40));
  const mutexWaiters = Math.round(threads * 0.05);
  for (let i = 0; i < mutexWaiters && next < free.length; i++) roles[take()] = { kind: 'mutex', mutex: pick(rng, mutexes) };
  while (next < free.length) {
    const x = rng();
    roles[take()] = { kind: x < 0.5 ? 'cond' : x < 0.65 ? 'cond-nodebug' : x < 0.82 ? 'sleep' : 'epoll' };
  }
  cycles.sort((a, b) => Number(a[0]) - Number(b[0]));
  blockedBehind.sort((a, b) => Number(a) - Number(b));
  return {
    roles: roles as ThreadRole[],
    public: { generatorVersion: GENERATOR_VERSION, threads, frames, seed, cycles, blockedBehind, mutexWaiters, mutexes: mutexCount },
  };
}

// ---------------------------------------------------------------- rendering

const THREAD_NAMES = ['worker', 'io', 'pool', 'rpc-srv', 'compactor', 'timer'];

function threadName(thread: number, rng: Rng): string {
  if (thread === 1) return 'server';
  const x = rng();
  if (x < 0.05) return '';
  if (x < 0.1) return `pool (${thread % 97})`;
  return `${pick(rng, THREAD_NAMES)}-${thread}`.slice(0, 15); // Linux thread names are at most 15 bytes
}

function topFrames(role: ThreadRole, rng: Rng): string[] {
  switch (role.kind) {
    case 'join-cycle':
    case 'join-behind':
    case 'join-idle':
      return joinTop(role.target, rng);
    case 'mutex':
      return mutexTop(role.mutex, rng);
    case 'cond':
      return condTop(rng);
    case 'cond-nodebug':
      return condNoDebugTop();
    case 'sleep':
      return sleepTop(rng);
    case 'epoll':
      return epollTop(rng);
  }
}

const PREAMBLE =
  '[Thread debugging using libthread_db enabled]\n' +
  'Using host libthread_db library "/lib/x86_64-linux-gnu/libthread_db.so.1".\n' +
  `${pc16(LIBC_BASE + 0x91117)} in __futex_abstimed_wait_common64 (private=128, cancel=true, abstime=0x0, op=265, expected=4001, futex_word=0x7f3c2e23d910) at ./nptl/futex-internal.c:57\n` +
  '57\t./nptl/futex-internal.c: No such file or directory.\n';

/**
 * The dump as a sequence of text pieces (preamble, then one piece per thread from the highest
 * number down, as gdb prints them, then gdb's detach line). Concatenated, they are the file.
 */
export function* dumpPieces(spec: DumpSpec): Generator<string, DumpPlan> {
  const frames = spec.frames ?? 24;
  const seed = spec.seed ?? 1;
  const { roles, public: plan } = planDump(spec.threads, frames, seed);
  const shapeRng = prng(seed ^ 0xfa11);
  // A few hundred stack shapes: threads share them, as threads of one pool do in real servers.
  const shapes: FrameShape[][] = Array.from({ length: 200 }, () => Array.from({ length: frames }, () => makeFrameShape(shapeRng)));
  yield PREAMBLE;
  for (let t = spec.threads; t >= 1; t--) {
    const rng = prng(seed * 1000003 + t);
    const role = roles[t] as ThreadRole;
    const top = topFrames(role, rng);
    const base = t === 1 ? mainBase(rng) : threadBase(rng);
    const shape = pick(rng, shapes);
    const middle: string[] = [];
    for (let i = 0; i < frames - top.length - base.length; i++) middle.push((shape[i] as FrameShape)(rng));
    const all = [...top, ...middle, ...base];
    let text = `\nThread ${t} (Thread ${hex(ptidOf(t))} (LWP ${lwpOf(t)}) "${threadName(t, rng)}"):\n`;
    for (let level = 0; level < all.length; level++) text += `${levelPrefix(level)}${all[level]}\n`;
    yield text;
  }
  yield `[Inferior 1 (process ${FIRST_LWP}) detached]\n`;
  return plan;
}

/** The whole dump in memory, for tests that want a small one. */
export function renderDump(spec: DumpSpec): { text: string; plan: DumpPlan } {
  const pieces: string[] = [];
  const it = dumpPieces(spec);
  for (;;) {
    const step = it.next();
    if (step.done) return { text: pieces.join(''), plan: step.value };
    pieces.push(step.value);
  }
}

export const BENCH_DIR = join(tmpdir(), 'waitgraph-bench');

function specKey(spec: DumpSpec): string {
  const frames = spec.frames ?? 24;
  const seed = spec.seed ?? 1;
  return `dump-t${spec.threads}-f${frames}-s${seed}-v${GENERATOR_VERSION}`;
}

interface Meta {
  plan: DumpPlan;
  bytes: number;
  lines: number;
  sha1: string;
}

/**
 * Writes the dump to `dir` (streaming, ~4 MB at a time, through a temporary name renamed at the
 * end so a half-written file is never reused) unless a file with the same spec and generator
 * version is already there.
 */
export async function ensureDump(spec: DumpSpec, dir: string = BENCH_DIR): Promise<GeneratedDump> {
  mkdirSync(dir, { recursive: true });
  const key = specKey(spec);
  const path = join(dir, `${key}.txt`);
  const metaPath = join(dir, `${key}.json`);
  try {
    const meta = JSON.parse(readFileSync(metaPath, 'utf8')) as Meta;
    if (statSync(path).size === meta.bytes && meta.plan.generatorVersion === GENERATOR_VERSION) {
      return { path, bytes: meta.bytes, lines: meta.lines, plan: meta.plan, reused: true };
    }
  } catch {
    // not generated yet (or unreadable): generate below
  }
  const partial = `${path}.${process.pid}.partial`;
  const file = await open(partial, 'w');
  const hash = createHash('sha1');
  let bytes = 0;
  let lines = 0;
  let plan: DumpPlan;
  try {
    const it = dumpPieces(spec);
    let buffer: string[] = [];
    let buffered = 0;
    const flush = async (): Promise<void> => {
      const data = Buffer.from(buffer.join(''), 'utf8');
      buffer = [];
      buffered = 0;
      hash.update(data);
      bytes += data.length;
      for (let i = data.indexOf(10); i !== -1; i = data.indexOf(10, i + 1)) lines++;
      await file.write(data);
    };
    for (;;) {
      const step = it.next();
      if (step.done) {
        plan = step.value;
        break;
      }
      buffer.push(step.value);
      buffered += step.value.length;
      if (buffered >= 4 << 20) await flush();
    }
    await flush();
  } finally {
    await file.close();
  }
  renameSync(partial, path);
  const meta: Meta = { plan, bytes, lines, sha1: hash.digest('hex') };
  writeFileSync(metaPath, `${JSON.stringify(meta, null, 2)}\n`);
  return { path, bytes, lines, plan, reused: false };
}
