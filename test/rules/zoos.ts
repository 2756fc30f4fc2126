/**
 * Wait zoos: real programs (fixtures/programs/*-wait-zoo.*) that park one named thread in each kind
 * of wait a rule pack recognises. They are the source of the packs' rule fixtures: each is built
 * here, run, captured with gdb (`npm run fixtures:capture` keeps a copy in fixtures/live/), and
 * every named thread must be read by the rules this catalogue names — so a rule's frames are the
 * ones today's toolchain really prints, not ones written by hand.
 */
import { execFile } from 'node:child_process';
import { chmodSync, copyFileSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { buildPrograms, captureBacktraces, LIVE_FIXTURES, normaliseCapture, PROGRAMS_DIR, withProgram } from '../live/harness.js';

const run = promisify(execFile);

export interface ZooThread {
  /** Rules that must fire on the thread. */
  rules: string[];
  /** The state the thread must end up in. */
  state: string;
}

export interface Zoo {
  /** File stem in fixtures/programs, binary name, and fixtures/live/<name>.txt. */
  name: string;
  /** The tool that must be on PATH to build or run it. */
  tool: string;
  /** Builds it into `dir` (binary or executable script named `name`). */
  build: (dir: string) => Promise<void>;
  /** Thread name (as the program sets it) → what the rules must say. */
  threads: Record<string, ZooThread>;
}

export const ZOOS: readonly Zoo[] = [
  {
    name: 'rust-wait-zoo',
    tool: 'rustc',
    // Debug info for the program's own frames (as `cargo build` gives); std comes precompiled, optimised.
    build: async (dir) => {
      await run('rustc', ['-g', '--edition', '2021', '-o', join(dir, 'rust-wait-zoo'), 'rust-wait-zoo.rs'], { cwd: PROGRAMS_DIR, timeout: 300_000 });
    },
    threads: {
      'mutex-waiter': { rules: ['rust.std.mutex'], state: 'blocked' },
      'rw-reader': { rules: ['rust.std.rwlock.read'], state: 'blocked' },
      'rw-writer': { rules: ['rust.std.rwlock.write'], state: 'blocked' },
      'cv-waiter': { rules: ['rust.std.condvar'], state: 'idle' },
      'once-runner': { rules: ['rust.std.once.running', 'rust.std.park'], state: 'parked' },
      'once-waiter': { rules: ['rust.std.once.wait'], state: 'blocked' },
      'mpsc-recv': { rules: ['rust.channel.recv'], state: 'idle' },
      'rendezvous-recv': { rules: ['rust.channel.recv'], state: 'idle' },
      'full-send': { rules: ['rust.channel.send'], state: 'channel-send' },
      parked: { rules: ['rust.std.park'], state: 'parked' },
      joiner: { rules: ['glibc.join'], state: 'joining' },
      sleeper: { rules: ['glibc.sleep'], state: 'sleeping' },
    },
  },
  {
    name: 'omp-wait-zoo',
    tool: 'gcc',
    // libgomp linked statically: Debian's libgomp.so.1 keeps no symbols for the functions that
    // wait (they show as `??`); libgomp.a does, as a libgomp with debug info would.
    build: async (dir) => {
      await run('gcc', ['-g', '-O0', '-fopenmp', '-pthread', '-o', join(dir, 'omp-wait-zoo'), 'omp-wait-zoo.c', '-Wl,-Bstatic', '-lgomp', '-Wl,-Bdynamic'], { cwd: PROGRAMS_DIR, timeout: 120_000 });
    },
    threads: {
      'bar-master': { rules: ['omp.lock.wait'], state: 'blocked' },
      'bar-worker-1': { rules: ['omp.barrier'], state: 'omp-barrier' },
      'bar-worker-2': { rules: ['omp.barrier'], state: 'omp-barrier' },
      'crit-waiter': { rules: ['omp.lock.wait'], state: 'blocked' },
      'pool-idle': { rules: ['omp.pool-idle'], state: 'idle' },
    },
  },
  {
    name: 'qt-wait-zoo',
    tool: 'pkg-config',
    // Qt 5 from Debian (qtbase5-dev): libQt5Core keeps its exported names (QBasicMutex::lockInternal,
    // QWaitCondition::wait, …); its internal functions show as `??`.
    build: async (dir) => {
      const flags = (await run('pkg-config', ['--cflags', '--libs', 'Qt5Core', 'Qt5Concurrent'], { timeout: 20_000 })).stdout.trim().split(/\s+/);
      await run('g++', ['-g', '-O0', '-fPIC', '-pthread', '-o', join(dir, 'qt-wait-zoo'), 'qt-wait-zoo.cpp', ...flags], { cwd: PROGRAMS_DIR, timeout: 300_000 });
    },
    threads: {
      'qmutex-waiter': { rules: ['qt.mutex.lock'], state: 'blocked' },
      'qrecmutex-wait': { rules: ['qt.mutex.lock'], state: 'blocked' },
      'qrw-reader': { rules: ['qt.rwlock.read'], state: 'blocked' },
      'qrw-writer': { rules: ['qt.rwlock.write'], state: 'blocked' },
      'qsem-waiter': { rules: ['qt.semaphore.acquire'], state: 'blocked' },
      'qcond-waiter': { rules: ['qt.condition.wait'], state: 'idle' },
      'qthread-joiner': { rules: ['qt.thread.wait'], state: 'joining' },
      'qfuture-waiter': { rules: ['qt.future.wait'], state: 'blocked' },
    },
  },
  {
    name: 'glib-wait-zoo',
    tool: 'pkg-config',
    // GLib linked statically (libglib2.0-dev's libglib-2.0.a): Debian's libglib-2.0.so keeps no
    // symbols for g_mutex_lock_slowpath or g_main_context_wait_internal; the archive does.
    build: async (dir) => {
      const cflags = (await run('pkg-config', ['--cflags', 'glib-2.0'], { timeout: 20_000 })).stdout.trim().split(/\s+/);
      await run('gcc', ['-g', '-O0', '-pthread', ...cflags, '-o', join(dir, 'glib-wait-zoo'), 'glib-wait-zoo.c', '-Wl,-Bstatic', '-lglib-2.0', '-lpcre2-8', '-Wl,-Bdynamic', '-lm'], { cwd: PROGRAMS_DIR, timeout: 120_000 });
    },
    threads: {
      'gmutex-waiter': { rules: ['glib.mutex.lock'], state: 'blocked' },
      'grecmutex-wait': { rules: ['glibc.mutex.wait'], state: 'blocked' },
      'grw-reader': { rules: ['glibc.rwlock.read'], state: 'blocked' },
      'grw-writer': { rules: ['glibc.rwlock.write'], state: 'blocked' },
      'gcond-waiter': { rules: ['glib.cond.wait'], state: 'idle' },
      'gthread-joiner': { rules: ['glibc.join'], state: 'joining' },
      'gcontext-waiter': { rules: ['glib.main-context.wait'], state: 'blocked' },
      'gqueue-popper': { rules: ['glib.async-queue.pop'], state: 'idle' },
      'gloop-idle': { rules: ['glib.main-loop.poll'], state: 'main-loop' },
    },
  },
  {
    name: 'gstreamer-wait-zoo',
    tool: 'pkg-config',
    // GStreamer 1.x from Debian (libgstreamer1.0-dev), shared and without debug info, as most
    // programs run it: libgstreamer keeps its exported names (gst_object_get_name, …); GLib's
    // GMutex slow path, a static function, shows as a nameless libglib frame.
    build: async (dir) => {
      const flags = (await run('pkg-config', ['--cflags', '--libs', 'gstreamer-1.0'], { timeout: 20_000 })).stdout.trim().split(/\s+/);
      await run('gcc', ['-g', '-O0', '-pthread', '-o', join(dir, 'gstreamer-wait-zoo'), 'gstreamer-wait-zoo.c', ...flags], { cwd: PROGRAMS_DIR, timeout: 120_000 });
    },
    threads: {
      'obj-name-wait': { rules: ['gstreamer.object-lock.wait'], state: 'blocked' },
      'pad-peer-wait': { rules: ['gstreamer.object-lock.wait'], state: 'blocked' },
      'bin-iter-wait': { rules: ['gstreamer.object-lock.wait'], state: 'blocked' },
      'task-state-wait': { rules: ['gstreamer.object-lock.wait'], state: 'blocked' },
      'static-pad-self': { rules: ['gstreamer.object-lock.wait'], state: 'blocked' },
      'add-pad-self': { rules: ['gstreamer.object-lock.wait'], state: 'blocked' },
      // Near misses of the GStreamer rule: the program's own GMutex under its own function is a
      // bare GMutex wait (the nameless libglib frame), not an object's lock.
      'app-gmutex-wait': { rules: ['glib.mutex.lock-nodebug'], state: 'blocked' },
      // gst_element_set_state waits for the element's STATE_LOCK, a GRecMutex: pthread_mutex_lock.
      'state-lock-wait': { rules: ['glibc.mutex.wait'], state: 'blocked' },
      // gst_task_join waits in g_cond_wait for the task function to return; the task's pool thread
      // waits in that function for a GMutex the joiner holds.
      'task-joiner': { rules: ['glib.cond.wait'], state: 'idle' },
      'task-func-wait': { rules: ['glib.mutex.lock-nodebug'], state: 'blocked' },
    },
  },
  {
    name: 'glib-abba',
    tool: 'pkg-config',
    // A GMutex ABBA in a GLib program linked as most are, against Debian's shared libglib, which has
    // no debug info: g_mutex_lock's slow path is a nameless libglib frame and no mutex address shows,
    // so only the program's source says who holds which (test/live/source.test.ts).
    build: async (dir) => {
      const flags = (await run('pkg-config', ['--cflags', '--libs', 'glib-2.0'], { timeout: 20_000 })).stdout.trim().split(/\s+/);
      await run('gcc', ['-g', '-O0', '-pthread', '-o', join(dir, 'glib-abba'), 'glib-abba.c', ...flags], { cwd: PROGRAMS_DIR, timeout: 120_000 });
    },
    threads: {
      'glib-ab': { rules: ['glib.mutex.lock-nodebug'], state: 'blocked' },
      'glib-ba': { rules: ['glib.mutex.lock-nodebug'], state: 'blocked' },
      'glib-idle-loop': { rules: ['glib.main-loop.poll'], state: 'main-loop' },
    },
  },
  {
    name: 'rust-abba',
    tool: 'rustc',
    // A std::sync::Mutex ABBA (statics, guards bound by `let`) and a thread that drops its guard
    // before it waits behind the cycle: the dump names each Mutex but no holder, the source does
    // (test/live/source.test.ts).
    build: async (dir) => {
      await run('rustc', ['-g', '--edition', '2021', '-o', join(dir, 'rust-abba'), 'rust-abba.rs'], { cwd: PROGRAMS_DIR, timeout: 300_000 });
    },
    threads: {
      'rs-transfer': { rules: ['rust.std.mutex'], state: 'blocked' },
      'rs-journal': { rules: ['rust.std.mutex'], state: 'blocked' },
      'rs-audit': { rules: ['rust.std.mutex'], state: 'blocked' },
    },
  },
  {
    name: 'rust-match-guard',
    tool: 'rustc',
    // A self-deadlock through a match scrutinee's temporary MutexGuard, which lives through the
    // arms: the dump shows the wait, only the source the hold (test/live/source.test.ts).
    build: async (dir) => {
      await run('rustc', ['-g', '--edition', '2021', '-o', join(dir, 'rust-match-guard'), 'rust-match-guard.rs'], { cwd: PROGRAMS_DIR, timeout: 300_000 });
    },
    threads: {
      'rs-cache': { rules: ['rust.std.mutex'], state: 'blocked' },
    },
  },
  {
    name: 'alloc-wait-zoo',
    tool: 'gcc',
    // glibc's own malloc: the signal handler's malloc waits for the arena lock the loop it
    // interrupted holds.
    build: async (dir) => {
      await run('gcc', ['-g', '-O0', '-pthread', '-o', join(dir, 'alloc-wait-zoo'), 'alloc-wait-zoo.c'], { cwd: PROGRAMS_DIR, timeout: 120_000 });
    },
    threads: {
      'alloc-churn': { rules: ['alloc.signal-handler-reentry', 'glibc.malloc.arena-lock'], state: 'blocked' },
    },
  },
  {
    name: 'jemalloc-wait-zoo',
    tool: 'gcc',
    // jemalloc's static archive (libjemalloc-dev) keeps the names of its lock functions
    // (je_malloc_mutex_lock_slow); Debian's libjemalloc.so.2 does not.
    build: async (dir) => {
      await run('gcc', ['-g', '-O0', '-pthread', '-o', join(dir, 'jemalloc-wait-zoo'), 'jemalloc-wait-zoo.c', '-Wl,-Bstatic', '-ljemalloc', '-Wl,-Bdynamic', '-lm', '-ldl'], { cwd: PROGRAMS_DIR, timeout: 120_000 });
    },
    threads: {
      'alloc-churn': { rules: ['alloc.signal-handler-reentry', 'alloc.jemalloc.mutex'], state: 'blocked' },
    },
  },
  {
    name: 'tcmalloc-wait-zoo',
    tool: 'g++',
    // gperftools' tcmalloc_minimal static archive (libgoogle-perftools-dev), a C++ library: linked with g++.
    build: async (dir) => {
      await run('g++', ['-g', '-O0', '-pthread', '-x', 'c', 'tcmalloc-wait-zoo.c', '-x', 'none', '-o', join(dir, 'tcmalloc-wait-zoo'), '-Wl,-Bstatic', '-ltcmalloc_minimal', '-Wl,-Bdynamic'], { cwd: PROGRAMS_DIR, timeout: 120_000 });
    },
    threads: {
      'alloc-churn': { rules: ['alloc.tcmalloc.pageheap-lock'], state: 'blocked' },
    },
  },
  {
    name: 'loader-wait-zoo',
    tool: 'gcc',
    // glibc's own waits no program lock names: the dynamic loader's three locks (a dl_iterate_phdr
    // callback that blocks, two dlopens and a pthread_create behind it), a barrier, an atfork handler.
    build: async (dir) => {
      await run('gcc', ['-g', '-O0', '-pthread', '-o', join(dir, 'loader-wait-zoo'), 'loader-wait-zoo.c', '-ldl'], { cwd: PROGRAMS_DIR, timeout: 120_000 });
    },
    threads: {
      'dl-holder': { rules: ['glibc.loader.iterate-holder'], state: 'blocked' },
      'dl-opener': { rules: ['glibc.loader.write-lock', 'glibc.loader.open-holder', 'glibc.loader.open-tls-holder'], state: 'blocked' },
      'dl-opener-2': { rules: ['glibc.loader.load-lock'], state: 'blocked' },
      'tls-creator': { rules: ['glibc.loader.tls-lock'], state: 'blocked' },
      'barrier-wait': { rules: ['glibc.barrier.wait'], state: 'barrier-wait' },
      'fork-prepare': { rules: ['glibc.fork.prepare-handler', 'glibc.mutex.wait'], state: 'blocked' },
    },
  },
  {
    name: 'py-import-lock-zoo',
    tool: 'python3',
    // CPython's import lock: a holder (imp.acquire_lock), a waiter, and os.fork, which takes it first.
    build: async (dir) => {
      installScript(dir, 'py-import-lock-zoo.py', 'py-import-lock-zoo');
    },
    threads: {
      'imp-waiter': { rules: ['cpython.import-lock.wait'], state: 'py-import-lock-wait' },
      'fork-waiter': { rules: ['cpython.import-lock.wait'], state: 'py-import-lock-wait' },
    },
  },
];

/** Builds a zoo into the live harness's build dir (so the harness starts and kills it like its own programs). */
export async function buildZoo(zoo: Zoo): Promise<string> {
  const dir = await buildPrograms();
  await zoo.build(dir);
  return dir;
}

/** Captures a running zoo twice, as the live fixtures are: with libc's debug info and without. */
/**
 * The allocator zoos re-enter the allocator from a signal handler, which is undefined behaviour:
 * most runs deadlock as meant, some crash first (jemalloc: SIGSEGV in about 3 runs of 8). A run that
 * ends before READY is tried again; a zoo that never gets there still fails.
 */
const ZOO_ATTEMPTS = 10;

export async function captureZoo(zoo: Zoo): Promise<{ full: string; bare: string }> {
  const dir = await buildZoo(zoo);
  for (let attempt = 1; ; attempt++) {
    try {
      return await withProgram(zoo.name, async (p) => {
        const full = normaliseCapture(await captureBacktraces(p.pid), dir);
        const bare = normaliseCapture(await captureBacktraces(p.pid, { hideLibcDebug: true }), dir);
        return { full, bare };
      });
    } catch (error) {
      if (attempt >= ZOO_ATTEMPTS || !/exited early/.test(String(error))) throw error;
    }
  }
}

/**
 * `npm run fixtures:capture`: refreshes fixtures/live/<zoo>.txt and .nodebug.txt; with names
 * (`npm run fixtures:capture -- gstreamer-wait-zoo`) only those zoos, so adding one leaves the
 * other captures as they are.
 */
export async function writeZooCaptures(log: (line: string) => void, only: readonly string[] = []): Promise<void> {
  for (const zoo of ZOOS) {
    if (only.length > 0 && !only.includes(zoo.name)) continue;
    const { full, bare } = await captureZoo(zoo);
    writeFileSync(join(LIVE_FIXTURES, `${zoo.name}.txt`), full);
    writeFileSync(join(LIVE_FIXTURES, `${zoo.name}.nodebug.txt`), bare);
    log(`captured ${zoo.name}`);
  }
}

/** Copies a script into the build dir as an executable named like the zoo (its shebang runs it). */
export function installScript(dir: string, source: string, name: string): void {
  const target = join(dir, name);
  copyFileSync(join(PROGRAMS_DIR, source), target);
  chmodSync(target, 0o755);
  if (!readFileSync(target, 'utf8').startsWith('#!')) throw new Error(`${source} needs a #! line`);
}
