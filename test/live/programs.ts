/**
 * The catalogue of test programs in fixtures/programs: what each is, how it is built and run,
 * and what a correct diagnosis says about it (by thread name, since gdb's numbers and LWPs
 * change from run to run).
 */
export type ProgramLanguage = 'c' | 'c++' | 'python';

export interface ProgramSpec {
  /** File stem in fixtures/programs and name of the captured fixtures in fixtures/live. */
  name: string;
  source: string;
  language: ProgramLanguage;
  /**
   * `deadlock`: really hangs in a cycle; `hang`: really hangs with no cycle the text can show (see
   * `hang`); `healthy`: nothing is stuck, must be reported `ok`.
   */
  expect: 'deadlock' | 'hang' | 'healthy';
  /** Names (as pthread_setname_np sets them) of exactly the threads in the cycle. */
  cycle: string[];
  /** For `hang`: the reason the verdict must rest on, and threads (by name) it must name as hung. */
  hang?: { reason: 'all-blocked' | 'owner-gone'; hung: string[] };
  /** What the captured text (fixtures/live/NAME.txt and .nodebug.txt) gets: its `check` sidecar. */
  textVerdict: 'ok' | 'hang';
  /**
   * The text alone cannot show the hang: the capture runs the owner loop a user runs (the
   * backtraces, waitgraph's `--gdb-commands` questions asked with `gdb -batch -x`, gdb's answers
   * appended), and the fixture is that transcript.
   */
  ownerLoop?: boolean;
  /** `child`: the process to capture is the one the program forks, which prints `CHILD PID`. */
  attachTo?: 'child';
  /**
   * Shapes only some instants show (a thread caught in a mutex's unlock path): a fixture capture
   * is retried until it matches, up to `attempts` times. Live tests take whatever instant comes.
   */
  catches?: { debug?: (text: string) => boolean; nodebug?: (text: string) => boolean; what: string; attempts: number };
  /** Extra command-line arguments (the build dir is substituted for `{build}`). */
  args?: string[];
  /** True when gdb can ask the owner of every wait on the cycle, so attach proves it. */
  provable: boolean;
}

/** The `Thread N (...) "NAME"):` blocks of a capture, by thread name. */
function threadBlocks(text: string): Map<string, string[]> {
  const blocks = new Map<string, string[]>();
  let current: string[] | null = null;
  for (const line of text.split('\n')) {
    const header = /^Thread \d+ \(.*"([^"]*)"\):$/.exec(line);
    if (header) blocks.set(header[1] as string, (current = []));
    else if (current && /^#\d+ /.test(line)) current.push(line);
    else current = null;
  }
  return blocks;
}

/**
 * Without libc's debug info, a trader waits in `pthread_mutex_lock ()` while the other is in frames
 * gdb cannot name right above `trade`: the unlock path (`?? ()` frames, as a pthread_join shows).
 */
function tradersWaitingAndUnnamed(text: string): boolean {
  const blocks = threadBlocks(text);
  const shapes = ['trader-a', 'trader-b'].map((name) => {
    const frames = blocks.get(name) ?? [];
    const own = frames.findIndex((f) => / in trade \(/.test(f));
    if (own <= 0) return 'other';
    const above = frames.slice(0, own);
    // Asleep in the lock: `#0 ?? () from libc`, `#1 pthread_mutex_lock () from libc` (a bare
    // `#0 pthread_mutex_lock ()` is its fast path, running).
    if (above.length >= 2 && / in \?\? \(\) from /.test(above[0] as string) && above.slice(1).some((f) => / in pthread_mutex_lock \(\) from /.test(f))) return 'waits';
    return above.every((f) => / in \?\? \(\) from .*libc\.so/.test(f)) ? 'unnamed' : 'other';
  });
  return shapes.includes('waits') && shapes.includes('unnamed');
}

export const PROGRAMS: readonly ProgramSpec[] = [
  { name: 'abba', source: 'abba.c', language: 'c', expect: 'deadlock', cycle: ['abba-ab', 'abba-ba'], textVerdict: 'hang', provable: true },
  { name: 'abc-cycle', source: 'abc-cycle.c', language: 'c', expect: 'deadlock', cycle: ['cycle-a', 'cycle-b', 'cycle-c'], textVerdict: 'hang', provable: true },
  { name: 'join-holds-mutex', source: 'join-holds-mutex.c', language: 'c', expect: 'deadlock', cycle: ['joiner', 'updater'], textVerdict: 'hang', provable: true },
  { name: 'rwlock-writer', source: 'rwlock-writer.c', language: 'c', expect: 'deadlock', cycle: ['logger', 'writer'], textVerdict: 'hang', provable: true },
  { name: 'self-deadlock', source: 'self-deadlock.c', language: 'c', expect: 'deadlock', cycle: ['cache'], textVerdict: 'hang', provable: true },
  { name: 'cxx-lock-guard-abba', source: 'cxx-lock-guard-abba.cpp', language: 'c++', expect: 'deadlock', cycle: ['audit', 'transfer'], textVerdict: 'hang', provable: true },
  { name: 'cxx-future-under-lock', source: 'cxx-future-under-lock.cpp', language: 'c++', expect: 'deadlock', cycle: ['consumer', 'producer'], textVerdict: 'hang', provable: false },
  { name: 'py-gil-vs-mutex', source: 'py-gil-vs-mutex.py', language: 'python', expect: 'deadlock', cycle: ['py-cb-holder', 'py-gil-holder'], args: ['{build}/libgilmix.so'], textVerdict: 'hang', provable: true },
  { name: 'py-abba-locks', source: 'py-abba-locks.py', language: 'python', expect: 'hang', cycle: [], hang: { reason: 'all-blocked', hung: ['py-abba-ab', 'py-abba-ba'] }, textVerdict: 'hang', provable: false },
  { name: 'exited-owner', source: 'exited-owner.c', language: 'c', expect: 'hang', cycle: [], hang: { reason: 'owner-gone', hung: ['journal-waiter'] }, ownerLoop: true, textVerdict: 'hang', provable: true },
  { name: 'fork-held-lock', source: 'fork-held-lock.c', language: 'c', expect: 'hang', cycle: [], hang: { reason: 'owner-gone', hung: ['forked-child'] }, ownerLoop: true, attachTo: 'child', textVerdict: 'hang', provable: true },
  { name: 'healthy-producer-consumer', source: 'healthy-producer-consumer.c', language: 'c', expect: 'healthy', cycle: [], textVerdict: 'ok', provable: true },
  { name: 'healthy-sleepers', source: 'healthy-sleepers.c', language: 'c', expect: 'healthy', cycle: [], textVerdict: 'ok', provable: true },
  { name: 'healthy-accept-server', source: 'healthy-accept-server.c', language: 'c', expect: 'healthy', cycle: [], textVerdict: 'ok', provable: true },
  { name: 'healthy-pipe-reader', source: 'healthy-pipe-reader.c', language: 'c', expect: 'healthy', cycle: [], textVerdict: 'ok', provable: true },
  {
    name: 'healthy-mutex-trading',
    source: 'healthy-mutex-trading.c',
    language: 'c',
    expect: 'healthy',
    cycle: [],
    textVerdict: 'ok',
    catches: {
      debug: (text) => /^#0  \S*lll_lock_wake \(/m.test(text),
      nodebug: tradersWaitingAndUnnamed,
      what: 'a trader in the unlock path (with debug info: __lll_lock_wake; without: `?? ()` frames, while the other sleeps in pthread_mutex_lock)',
      attempts: 250,
    },
    provable: true,
  },
  { name: 'py-healthy-workers', source: 'py-healthy-workers.py', language: 'python', expect: 'healthy', cycle: [], textVerdict: 'ok', provable: true },
  // Main in Event.wait() for SIGTERM, workers in Queue.get(): every thread in a Python lock wait with
  // no time limit, idle until a signal (cpython.lock.main-thread, cpython.lock.with-enter).
  { name: 'py-healthy-daemon', source: 'py-healthy-daemon.py', language: 'python', expect: 'healthy', cycle: [], textVerdict: 'ok', provable: true },
];

/** Built but not in PROGRAMS: the injection test uses it. */
export const HOSTILE_NAMES = 'hostile-names';

/** Built but not in PROGRAMS: healthy, alternately stuck and moving (the snapshot determinism test). */
export const STOP_AND_GO = 'stop-and-go';

/**
 * Built but not in PROGRAMS: healthy, its threads wait on process-shared objects a helper process
 * holds and signals. Only libc's debug info shows that (the futex's private=128), so its text
 * without it is no `healthy` case (shared-waits.test.ts).
 */
export const SHARED_WAITS = 'healthy-shared-waits';

/**
 * Built but not in PROGRAMS: healthy, a daemon at rest (main in sem_wait for a signal handler's
 * sem_post, workers idle on a condition). Only libc's debug info names sem_wait, so its text
 * without it is no `healthy` case (shared-waits.test.ts).
 */
export const SIGNAL_DAEMON = 'healthy-signal-daemon';

/** Built and captured (fixtures/live/wait-zoo*.txt) as the source of rule fixtures; not a deadlock test. */
export const WAIT_ZOO = 'wait-zoo';

export function programByName(name: string): ProgramSpec | null {
  return PROGRAMS.find((p) => p.name === name) ?? null;
}
