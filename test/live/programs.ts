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
  /** `deadlock`: really hangs in a cycle; `healthy`: must be reported `ok`. */
  expect: 'deadlock' | 'healthy';
  /** Names (as pthread_setname_np sets them) of exactly the threads in the cycle. */
  cycle: string[];
  /** Extra command-line arguments (the build dir is substituted for `{build}`). */
  args?: string[];
  /** True when gdb can ask the owner of every wait on the cycle, so attach proves it. */
  provable: boolean;
}

export const PROGRAMS: readonly ProgramSpec[] = [
  { name: 'abba', source: 'abba.c', language: 'c', expect: 'deadlock', cycle: ['abba-ab', 'abba-ba'], provable: true },
  { name: 'abc-cycle', source: 'abc-cycle.c', language: 'c', expect: 'deadlock', cycle: ['cycle-a', 'cycle-b', 'cycle-c'], provable: true },
  { name: 'join-holds-mutex', source: 'join-holds-mutex.c', language: 'c', expect: 'deadlock', cycle: ['joiner', 'updater'], provable: true },
  { name: 'rwlock-writer', source: 'rwlock-writer.c', language: 'c', expect: 'deadlock', cycle: ['logger', 'writer'], provable: true },
  { name: 'self-deadlock', source: 'self-deadlock.c', language: 'c', expect: 'deadlock', cycle: ['cache'], provable: true },
  { name: 'cxx-lock-guard-abba', source: 'cxx-lock-guard-abba.cpp', language: 'c++', expect: 'deadlock', cycle: ['audit', 'transfer'], provable: true },
  { name: 'cxx-future-under-lock', source: 'cxx-future-under-lock.cpp', language: 'c++', expect: 'deadlock', cycle: ['consumer', 'producer'], provable: false },
  { name: 'py-gil-vs-mutex', source: 'py-gil-vs-mutex.py', language: 'python', expect: 'deadlock', cycle: ['py-cb-holder', 'py-gil-holder'], args: ['{build}/libgilmix.so'], provable: true },
  { name: 'healthy-producer-consumer', source: 'healthy-producer-consumer.c', language: 'c', expect: 'healthy', cycle: [], provable: true },
  { name: 'healthy-sleepers', source: 'healthy-sleepers.c', language: 'c', expect: 'healthy', cycle: [], provable: true },
  { name: 'py-healthy-workers', source: 'py-healthy-workers.py', language: 'python', expect: 'healthy', cycle: [], provable: true },
];

/** Built but not in PROGRAMS: the injection test uses it. */
export const HOSTILE_NAMES = 'hostile-names';

/** Built and captured (fixtures/live/wait-zoo*.txt) as the source of rule fixtures; not a deadlock test. */
export const WAIT_ZOO = 'wait-zoo';

export function programByName(name: string): ProgramSpec | null {
  return PROGRAMS.find((p) => p.name === name) ?? null;
}
