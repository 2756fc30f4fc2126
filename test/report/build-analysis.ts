/**
 * Hand-built Analysis objects for reporter tests, from plain data, so reporters are tested without
 * the parser or the rules. `foundingAnalysis()` mirrors the founding Julia report
 * (fixtures/enzyme-autodiff-deferred.txt): cycle {7, 8, 9} through `julia:gc-stop` and
 * `orc:lazy-compile`, five threads parked at a GC safepoint behind it.
 */
import type { Analysis, Deadlock, Edge, FrameRef, ThreadAnalysis } from '../../src/model/analysis.js';
import type { Backtrace, Dump, Frame, ThreadInfo } from '../../src/model/dump.js';

interface FrameSpec {
  fn: string;
  pc?: string;
  file?: string;
  line?: number;
  library?: string;
  args?: Array<[string, string]>;
  incomplete?: boolean;
}

interface ThreadSpec {
  id: number | null;
  lwp?: number;
  name?: string;
  frames: FrameSpec[];
  truncated?: boolean;
}

const JL = '/cache/build/builder-amdci4-2/julialang/julia-release-1-dot-10/src';
const LIBC = '/usr/lib/libc.so.6';
const LLVM = '/home/vchuravy/.julia/juliaup/julia-1.10.3+0.x64.linux.gnu/bin/../lib/julia/libLLVM-15jl.so';

/** Builds a Dump from thread specs, numbering input lines as a gdb dump would lay them out. */
export function buildDump(threads: ThreadSpec[]): Dump {
  let line = 1;
  const backtraces: Backtrace[] = threads.map((spec) => {
    const startLine = line;
    const thread: ThreadInfo | null =
      spec.id === null
        ? null
        : {
            id: spec.id,
            gdbId: String(spec.id),
            ptid: `0x7840${(spec.id * 4096).toString(16)}6c0`,
            lwp: spec.lwp ?? null,
            name: spec.name ?? null,
            targetId: `Thread 0x7840${(spec.id * 4096).toString(16)}6c0 (LWP ${spec.lwp ?? 0}) "${spec.name ?? ''}"`,
            extra: null,
          };
    if (thread) line++;
    const frames: Frame[] = spec.frames.map((f, level) => ({
      level,
      pc: f.pc ?? null,
      function: f.fn,
      args: (f.args ?? []).map(([name, value]) => ({ name, value })),
      file: f.file ?? null,
      line: f.line ?? null,
      library: f.library ?? null,
      inlined: false,
      kind: 'normal',
      incomplete: f.incomplete ?? false,
      sourceLine: line++,
    }));
    const endLine = line - 1;
    line++; // blank line between threads
    return { thread, startLine, endLine, truncated: spec.truncated ?? false, stopReason: null, frames, gaps: [] };
  });
  const frames = backtraces.reduce((n, bt) => n + bt.frames.length, 0);
  return {
    schemaVersion: 1,
    backtraces,
    ownerHints: [],
    ignored: [{ line: line, text: 'The thread triggering GC is holding the trampoline lock' }],
    stats: { lines: line, backtraces: backtraces.length, frames, ignoredLines: 1 },
  };
}

export function ref(dump: Dump, backtrace: number, level: number): FrameRef {
  const frame = dump.backtraces[backtrace]!.frames[level]!;
  return { backtrace, level, function: frame.function, file: frame.file, line: frame.line, sourceLine: frame.sourceLine };
}

const parked = (): FrameSpec[] => [
  { fn: '??', pc: '0x000078411e0524e9', library: LIBC },
  { fn: 'pthread_cond_wait', pc: '0x000078411e054ed9', library: LIBC },
  { fn: 'uv_cond_wait', pc: '0x000078411d132fca', file: 'src/unix/thread.c', line: 883, args: [['cond', '0x78411d5ca8c0 <safepoint_cond>'], ['mutex', '0x78411d5ca900 <safepoint_lock>']] },
  { fn: 'jl_safepoint_wait_gc', pc: '0x000078411d0b4735', file: `${JL}/safepoint.c`, line: 173 },
  { fn: 'jl_set_gc_and_wait', pc: '0x000078411d0b455b', file: `${JL}/julia_internal.h`, line: 956 },
];
const markThread = (): FrameSpec[] => [
  { fn: '??', pc: '0x000078411e0524e9', library: LIBC },
  { fn: 'pthread_cond_wait', pc: '0x000078411e054ed9', library: LIBC },
  { fn: 'uv_cond_wait', pc: '0x000078411d132fca', file: 'src/unix/thread.c', line: 883, args: [['cond', '0x78411d52dfa0 <gc_threads_cond>']] },
  { fn: 'jl_gc_mark_threadfun', pc: '0x000078411d0979e5', file: `${JL}/partr.c`, line: 135, args: [['arg', '<optimized out>']] },
  { fn: '??', pc: '0x000078411e055ded', library: LIBC },
];
const trampolineWaiter = (addr: string): FrameSpec[] => [
  { fn: 'syscall', pc: '0x000078411e0d6e9d', library: LIBC },
  { fn: 'std::__atomic_futex_unsigned_base::_M_futex_wait_until', pc: '0x000078411d6da9e4', file: '/usr/src/debug/gcc/gcc/libstdc++-v3/src/c++11/futex.cc', line: 217, args: [['__addr', addr]] },
  { fn: 'std::future<unsigned long>::get()', pc: '0x0000784119a7fb42', library: LLVM },
  { fn: 'llvm::orc::LocalTrampolinePool<llvm::orc::OrcX86_64_SysV>::reenter(void*, void*)', pc: '0x0000784119a8040a', library: LLVM },
  { fn: '??', pc: '0x000078411e1bb044' },
];

function thread(partial: Partial<ThreadAnalysis> & Pick<ThreadAnalysis, 'key' | 'state' | 'stateText' | 'backtrace'>): ThreadAnalysis {
  return {
    id: /^\d+$/.test(partial.key) ? Number(partial.key) : null,
    lwp: null,
    ptid: null,
    name: 'julia',
    waitsFor: [],
    holds: [],
    rules: [],
    acquireSite: null,
    merged: [],
    ...partial,
  };
}

/** The founding case as the analysis is expected to describe it. */
export function foundingAnalysis(): Analysis {
  // Backtrace order follows the dump: threads 12 … 1, then the headerless `(gdb) bt` of thread 9.
  const specs: ThreadSpec[] = [
    { id: 12, lwp: 45441, name: 'julia', frames: markThread(), truncated: true },
    { id: 11, lwp: 45440, name: 'julia', frames: markThread(), truncated: true },
    { id: 10, lwp: 45439, name: 'julia', frames: markThread(), truncated: true },
    {
      id: 9,
      lwp: 45438,
      name: 'julia',
      truncated: true,
      frames: [
        { fn: 'jl_gc_wait_for_the_world', file: `${JL}/gc.c`, line: 241, args: [['gc_n_threads', '<optimized out>']] },
        { fn: 'ijl_gc_collect', file: `${JL}/gc.c`, line: 3508 },
        { fn: 'maybe_collect', pc: '0x000078411d0a97ed', file: `${JL}/gc.c`, line: 937 },
      ],
    },
    { id: 8, lwp: 45437, name: 'julia', frames: trampolineWaiter('0x7840e0018160'), truncated: true },
    { id: 7, lwp: 45436, name: 'julia', frames: trampolineWaiter('0x7840e4003ff0'), truncated: true },
    { id: 6, lwp: 45435, name: 'julia', frames: parked(), truncated: true },
    { id: 5, lwp: 45434, name: 'julia', frames: parked(), truncated: true },
    { id: 4, lwp: 45433, name: 'julia', frames: parked(), truncated: true },
    { id: 3, lwp: 45432, name: 'julia', frames: parked(), truncated: true },
    {
      id: 2,
      lwp: 45431,
      name: 'julia',
      frames: [
        { fn: 'sigtimedwait', pc: '0x000078411e000768', library: LIBC },
        { fn: 'signal_listener', pc: '0x000078411d0b2c3c', file: `${JL}/signals-unix.c`, line: 765 },
      ],
    },
    { id: 1, lwp: 45429, name: 'julia', frames: [...parked().slice(0, 3), { fn: 'jl_safepoin', pc: '0x000078411d0b4735', incomplete: true }], truncated: true },
    {
      id: null,
      frames: [
        { fn: 'jl_gc_wait_for_the_world', file: `${JL}/gc.c`, line: 241 },
        { fn: 'ijl_gc_collect', file: `${JL}/gc.c`, line: 3508 },
        { fn: 'llvm::orc::LocalTrampolinePool<llvm::orc::OrcX86_64_SysV>::reenter(void*, void*)', pc: '0x0000786a020803fa', library: LLVM },
        { fn: '??', pc: '0x0000786a06809044' },
      ],
    },
  ];
  const dump = buildDump(specs);
  const bt = (id: number | null): number => specs.findIndex((s) => s.id === id);
  const headerless = specs.length - 1;
  const lwpOf = (id: number): number | null => specs.find((s) => s.id === id)?.lwp ?? null;
  const headerlessKey = `bt@${dump.backtraces[headerless]!.startLine}`;
  void headerlessKey;

  const edge = (e: Omit<Edge, 'evidence'> & Partial<Pick<Edge, 'evidence'>>): Edge => ({ evidence: 'inferred', ...e });
  const site7 = ref(dump, bt(7), 3);
  const site8 = ref(dump, bt(8), 3);
  const site9 = ref(dump, bt(9), 0);
  const compileSite = ref(dump, headerless, 2);

  const e = {
    w7: edge({ kind: 'waits', from: 'thread:7', to: 'res:orc:lazy-compile', ruleId: 'orc-trampoline-reenter', site: site7, description: 'waits for the lazy compile of a JIT trampoline' }),
    w8: edge({ kind: 'waits', from: 'thread:8', to: 'res:orc:lazy-compile', ruleId: 'orc-trampoline-reenter', site: site8, description: 'waits for the lazy compile of a JIT trampoline' }),
    h9: edge({ kind: 'holds', from: 'res:orc:lazy-compile', to: 'thread:9', ruleId: 'orc-trampoline-compiling', site: compileSite, description: 'compiles the function behind the trampoline' }),
    w9: edge({ kind: 'waits', from: 'thread:9', to: 'res:julia:gc-stop', ruleId: 'julia-gc-wait-for-the-world', site: site9, description: 'waits for every GC-unsafe thread to reach a safepoint' }),
    h7: edge({ kind: 'holds', from: 'res:julia:gc-stop', to: 'thread:7', ruleId: 'julia-gc-unsafe-native-wait', site: site7, description: 'is GC-unsafe, so the world cannot stop', viaState: 'gc-unsafe' }),
    h8: edge({ kind: 'holds', from: 'res:julia:gc-stop', to: 'thread:8', ruleId: 'julia-gc-unsafe-native-wait', site: site8, description: 'is GC-unsafe, so the world cannot stop', viaState: 'gc-unsafe' }),
  };
  const parkedEdges = [1, 3, 4, 5, 6].map((id) =>
    edge({ kind: 'waits-thread', from: `thread:${id}`, to: 'thread:9', ruleId: 'julia-safepoint-wait-gc', site: ref(dump, bt(id), 3 - (id === 1 ? 1 : 0)), description: 'waits at a GC safepoint for the collection to finish', viaState: 'gc-initiator' }),
  );

  const deadlock: Deadlock = {
    threads: ['7', '8', '9'],
    cycle: [
      { from: '7', to: '9', resource: 'orc:lazy-compile', wait: e.w7, hold: e.h9, text: 'thread 7 waits for the lazy compile of a JIT trampoline, which thread 9 is compiling' },
      { from: '9', to: '7', resource: 'julia:gc-stop', wait: e.w9, hold: e.h7, text: 'thread 9 waits for every GC-unsafe thread to reach a safepoint; thread 7 is GC-unsafe' },
    ],
    resources: ['julia:gc-stop', 'orc:lazy-compile'],
    evidence: 'inferred',
    title: 'deadlock: Julia GC stop-the-world ↔ LLVM ORC lazy compile',
    signature: 'wg1-3f9a1c2b7d4e',
    explanation:
      'Thread 9 started a garbage collection and waits for every GC-unsafe thread to reach a safepoint. Threads 7 and 8 wait in `LocalTrampolinePool::reenter` for a lazy compile that thread 9 is running, while still GC-unsafe, so they never reach a safepoint.',
    fix: 'Make the call into the lazily compiled code GC-safe (like `ccall` with `gc_safe=true`), and re-enter GC-unsafe inside the wrapper, as `@cfunction` does.',
    rules: ['julia-gc-unsafe-native-wait', 'julia-gc-wait-for-the-world', 'orc-trampoline-compiling', 'orc-trampoline-reenter'],
    blockedBehind: ['1', '3', '4', '5', '6'],
  };

  const threads: ThreadAnalysis[] = [
    ...[12, 11, 10].map((id) => thread({ key: String(id), lwp: lwpOf(id), state: 'gc-mark-idle', stateText: 'idle GC mark threads', backtrace: bt(id) })),
    thread({ key: '9', lwp: 45438, state: 'gc-initiator', stateText: 'runs a GC and waits for the world to stop', backtrace: bt(9), merged: [headerless], waitsFor: ['julia:gc-stop'], holds: ['orc:lazy-compile'], rules: ['julia-gc-wait-for-the-world', 'orc-trampoline-compiling'], acquireSite: site9 }),
    ...[8, 7].map((id) => thread({ key: String(id), lwp: lwpOf(id), state: 'gc-unsafe-blocked', stateText: 'waits for a JIT lazy compile while GC-unsafe', backtrace: bt(id), waitsFor: ['orc:lazy-compile'], holds: ['julia:gc-stop'], rules: ['orc-trampoline-reenter', 'julia-gc-unsafe-native-wait'], acquireSite: id === 7 ? site7 : site8 })),
    ...[6, 5, 4, 3, 1].map((id) => thread({ key: String(id), lwp: lwpOf(id), state: 'gc-parked', stateText: 'parked at a GC safepoint', backtrace: bt(id), waitsFor: ['thread:9'], rules: ['julia-safepoint-wait-gc'], acquireSite: ref(dump, bt(id), id === 1 ? 2 : 3) })),
    thread({ key: '2', lwp: 45431, state: 'idle', stateText: 'waits for signals', backtrace: bt(2) }),
  ];

  return {
    schemaVersion: 1,
    verdict: 'deadlock',
    deadlocks: [deadlock],
    hung: [],
    threads,
    edges: [e.w7, e.w8, e.h9, e.w9, e.h7, e.h8, ...parkedEdges],
    unresolved: [],
    facts: [],
    notes: [`the headerless \`bt\` at line ${dump.backtraces[headerless]!.startLine} was merged into thread 9 (same top frames)`],
    verdictReasons: [{ kind: 'cycle', text: 'Threads 7, 8, 9 wait for each other in a cycle, so none of them can ever go on (evidence inferred).', threads: ['7', '8', '9'] }],
    candidateCycles: [],
    stats: { lines: dump.stats.lines, backtraces: dump.stats.backtraces, threads: threads.length, frames: dump.stats.frames, ignoredLines: 1 },
    dump,
  };
}

/** A healthy dump: two idle threads, nothing waits. */
export function okAnalysis(): Analysis {
  const dump = buildDump([
    { id: 2, lwp: 101, frames: [{ fn: 'epoll_wait', library: LIBC }] },
    { id: 1, lwp: 100, frames: [{ fn: 'main', file: 'main.c', line: 10 }] },
  ]);
  return {
    schemaVersion: 1,
    verdict: 'ok',
    deadlocks: [],
    hung: [],
    threads: [
      thread({ key: '2', lwp: 101, state: 'idle', stateText: 'waits for events', backtrace: 0 }),
      thread({ key: '1', lwp: 100, state: 'running', stateText: 'running', backtrace: 1 }),
    ],
    edges: [],
    unresolved: [],
    facts: [],
    notes: [],
    verdictReasons: [{ kind: 'can-progress', text: 'Thread 2 waits on the outside world, so every wait can still end.', threads: ['2'] }],
    candidateCycles: [],
    stats: { lines: dump.stats.lines, backtraces: 2, threads: 2, frames: 2, ignoredLines: 0 },
    dump,
  };
}
