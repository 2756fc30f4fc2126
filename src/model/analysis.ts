/**
 * The result of analysing a dump: per-thread states, wait and hold edges, deadlock cycles, hangs
 * and unresolved waits. Plain data; every reporter (text, JSON, Markdown, DOT, SARIF) reads only
 * this, so all formats say the same thing.
 */
import type { Dump } from './dump.js';
import type { OwnerShape } from './owner-shapes.js';

/** `proven`: the text (or gdb, live) shows it. `inferred`: a rule concluded it from frame shapes. */
export type Evidence = 'proven' | 'inferred';

/**
 * What an edge's evidence rests on, beyond the rule that made it (absent: the frame rule alone).
 * - `owner-print`: a `print` answer in the text names the owner (`__owner = 20496`);
 * - `gdb`: live mode asked gdb for the owner;
 * - `locals`: a `bt full` local shows a held guard (`std::lock_guard`, `QMutexLocker`, …);
 * - `stack`: the stack's own structure (a thread waiting at an acquire site it already passed deeper down);
 * - `thread-identity`: two numbers in the text name the same thread (pthread_join's `threadid`);
 * - `source`: the source lines before a frame (`--source DIR`) take the lock;
 * - `candidates`: the only cycle the possible holders leave;
 * - `snapshots`: several dumps of the process show the threads never moved.
 */
export type EvidenceBasis = 'owner-print' | 'gdb' | 'locals' | 'stack' | 'thread-identity' | 'source' | 'candidates' | 'snapshots';

/**
 * `deadlock` and `hang` are findings (exit 1); `crash` says the process died (a signal, an abort,
 * a failed assertion) and is exit 0 unless a deadlock or hang is also found, which then outranks it
 * (the crash stays in `Analysis.crash`); `ok` is neither.
 */
export type Verdict = 'deadlock' | 'hang' | 'crash' | 'ok';

/**
 * A thread's key in the analysis: its gdb thread number as a string (`"9"`), or `bt@LINE` for a
 * backtrace with no thread header that could not be merged into a thread (`"bt@119"`).
 */
export type ThreadKey = string;

/**
 * A resource id, `kind:identity`: `mutex:0x5555555580a0`, `rwlock:0x…`, `julia:gc-stop`,
 * `orc:lazy-compile`, `py:gil`, `thread-exit:7` (for joins). Addresses are lower-case hex without
 * leading zeros so the same lock named by two frames is one node.
 */
export type ResourceId = string;

/** Where in a backtrace an edge or a site comes from. */
export interface FrameRef {
  /** Index into `Dump.backtraces`. */
  backtrace: number;
  /** The frame's `#N` level. */
  level: number;
  function: string;
  file: string | null;
  line: number | null;
  /** 1-based input line of the frame. */
  sourceLine: number;
  /**
   * The code at `file:line`, read with `--source DIR` (`pthread_mutex_lock(&lock_b);`); for a hold
   * from the source, `line` and `code` are the acquisition's. Absent without `--source`.
   */
  code?: string;
}

export type EdgeKind =
  /** thread → resource: the thread blocks until it gets the resource. */
  | 'waits'
  /** resource → thread: the thread holds (or will release / fulfil) the resource. */
  | 'holds'
  /** thread → thread: an all-of wait, e.g. the GC initiator waits for each GC-unsafe thread. */
  | 'waits-thread';

export interface Edge {
  kind: EdgeKind;
  /** Node ids: `thread:KEY` or `res:RESOURCEID`. */
  from: string;
  to: string;
  evidence: Evidence;
  /** The rule that produced the edge, or a built-in source: `owner-hint`, `gdb-owner`. */
  ruleId: string;
  /** The frame that made the rule fire, when there is one. */
  site: FrameRef | null;
  /** One human sentence fragment, e.g. `waits for the lazy compile of a JIT trampoline`. */
  description: string;
  /** For `waits-thread` edges from an all-of wait: the state the target is in, e.g. `gc-unsafe`. */
  viaState?: string;
  /** True when the wait has a time limit (timed waits never make a hang). */
  timed?: boolean;
  /** For `waits-thread` edges: the resource the all-of wait is about, e.g. `julia:gc-stop`. */
  allOf?: ResourceId;
  /** For `waits-thread` edges: the rule that put the target thread in `viaState`. */
  stateRuleId?: string;
  /** What the evidence rests on, when more than the frame rule (see EvidenceBasis). */
  basis?: EvidenceBasis;
  /** For `waits` edges: the owner shape the rule names, i.e. how memory says who holds the resource. */
  ownerShape?: OwnerShape;
}

export interface ThreadAnalysis {
  key: ThreadKey;
  /** gdb thread number, or null for an unmerged headerless backtrace. */
  id: number | null;
  lwp: number | null;
  ptid: string | null;
  name: string | null;
  /** Short machine state, e.g. `gc-initiator`, `gc-parked`, `gc-unsafe-blocked`, `idle`, `blocked`, `running`. */
  state: string;
  /** Human phrase for the state, e.g. `parked at a GC safepoint`. */
  stateText: string;
  /** Resource ids (and `thread:KEY` for all-of waits) this thread waits for. */
  waitsFor: string[];
  /** Resource ids this thread holds. */
  holds: string[];
  /** Ids of the rules that fired on this thread, in firing order. */
  rules: string[];
  /** The rule that set `state`, when one did. */
  stateRule?: string;
  /** The first frame above the wait primitives: where the thread asked for what it waits on. */
  acquireSite: FrameRef | null;
  /** Index of the thread's backtrace in `Dump.backtraces`. */
  backtrace: number;
  /** Indexes of headerless backtraces merged into this thread (matched by top frames). */
  merged: number[];
  /** True when an `idle` rule fired (idle pool / listener thread). */
  idle?: boolean;
  /** True when the stack starts with wait primitives (and is not an unlock path waking a waiter). */
  blocked?: boolean;
  /** True when a rule says the thread's wait has a time limit (a sleep, a timed wait): it wakes by itself. */
  timed?: boolean;
  /** True when the thread waits on the outside world (I/O, a signal, a child process, another process): it is never blocked forever. */
  outside?: boolean;
  /** True when a rule says a signal handler may end its wait (a semaphore: sem_post is async-signal-safe). */
  signalWake?: boolean;
  /** True when its stack is cut short (`(More stack frames follow...)`, a cut paste): outer frames are not shown. */
  truncated?: boolean;
}

/** One step of a canonical cycle: `from` waits (directly or through `resource`) for `to`. */
export interface CycleStep {
  from: ThreadKey;
  to: ThreadKey;
  /** The resource between them, or null for a direct `waits-thread` edge. */
  resource: ResourceId | null;
  wait: Edge;
  /** The hold edge `resource → to`, when the step goes through a resource. */
  hold: Edge | null;
  /** The sentence a report prints for this step. */
  text: string;
}

/**
 * Why the verdict is what it is, one finding each, in the order of the decision procedure
 * (analyze/verdict.ts): the first reason is the one the verdict rests on.
 * - `cycle`: threads wait for each other (a deadlock);
 * - `only-candidate-cycle`: the possible holders of the unproven waits leave exactly one cycle;
 * - `owner-gone`: a wait's owner is not a thread of the process (it exited, or the lock was inherited across fork());
 * - `all-blocked`: every thread is blocked with no time limit and none waits on the outside world;
 * - `no-releaser`: some threads are blocked with no time limit, and every thread that could release what
 *   they wait for is blocked for good too;
 * - `crashed`: the process crashed; its waits are where the crash froze them (verdict crash);
 * - `waker-not-shown`: the blocked threads only wait to be signalled, and the dump does not show every thread;
 * - `signal-wake`: the blocked threads only wait to be woken, and one waits on a semaphore a signal
 *   handler may post (the process may be idle until a signal comes);
 * - `can-progress`: some thread can still run (it runs, sleeps, or waits on the outside world), so every wait can still end;
 * - `nothing-blocked`: no thread is blocked;
 * - `moved`: over several snapshots of the process, a thread the last one shows stuck moved (the
 *   cycle or hang it showed is withdrawn).
 */
export type VerdictReasonKind = 'cycle' | 'only-candidate-cycle' | 'owner-gone' | 'all-blocked' | 'no-releaser' | 'crashed' | 'waker-not-shown' | 'signal-wake' | 'can-progress' | 'nothing-blocked' | 'moved';

export interface VerdictReason {
  kind: VerdictReasonKind;
  /** One or two English sentences, with thread names as reports print them. */
  text: string;
  /** The threads the finding is about, in thread order. */
  threads: ThreadKey[];
  /**
   * The dump does not show every thread of the process, and the finding depends on the threads it
   * does not show (`all-blocked`, `no-releaser`: they may run; `owner-gone`: the owner may be one of
   * them, nothing says it exited). A headline must then speak of the threads shown only.
   */
  notWhole?: true;
}

/**
 * A cycle that may hold but is not proven: every thread on it is blocked for good, and each waits
 * for something whose holder the text does not show but that the next thread could hold.
 */
export interface CandidateCycle {
  /** Its threads, in thread order. */
  threads: ThreadKey[];
  /** One concrete order: `from` waits for `resource` (null for an all-of wait), which `to` holds or may hold. */
  steps: Array<{ from: ThreadKey; to: ThreadKey; resource: ResourceId | null; known: boolean }>;
  /** The gdb commands that would settle its unproven steps (owner queries), de-duplicated. */
  gdbCommands: string[];
  /** Steps whose holder no gdb command can name (a Python Lock, a condition variable): what they wait for. */
  unprovable: string[];
  /** The sentence a report prints. */
  text: string;
  /** Set when several snapshots were read and every thread of the cycle was stuck in all of them: how many. */
  stuckAcross?: number;
}

export interface Deadlock {
  /** Thread keys in the cycle's strongly connected component, sorted by thread number. */
  threads: ThreadKey[];
  /** One concrete cycle, rotated to start at the lowest thread number. */
  cycle: CycleStep[];
  /** Resources on the cycle, sorted. */
  resources: ResourceId[];
  /** `proven` only when every edge of the cycle is proven. */
  evidence: Evidence;
  /** E.g. `deadlock: Julia GC stop-the-world ↔ LLVM ORC lazy compile`. */
  title: string;
  /** Short stable hash of normalised acquire sites and resource kinds (no addresses or numbers). */
  signature: string;
  explanation: string;
  fix: string;
  /** Rule ids behind the cycle's edges and its explanation, sorted. */
  rules: string[];
  /** Threads not in the cycle that wait, directly or transitively, on it. Sorted. */
  blockedBehind: ThreadKey[];
  /**
   * Set when the cycle was not read from the frames but is the only one the possible holders of
   * its unproven waits leave (`candidates`): what ruled the other possibilities out.
   */
  basis?: 'candidates';
  ruledOut?: string;
}

/** A wait whose holder is not known from the input. */
export interface UnresolvedWait {
  thread: ThreadKey;
  resource: ResourceId;
  description: string;
  ruleId: string;
  site: FrameRef | null;
  /** The gdb command that would settle who holds it, when one exists. */
  gdbCommand: string | null;
  /** What `gdbCommand` prints: the holder's LWP or its pthread_t. */
  ownerAnswer?: 'lwp' | 'ptid';
  /** The owner shape the rule names (live mode asks gdb by it). */
  ownerShape?: OwnerShape;
  /** Where to look for the holder when no gdb command can name it (the rule's holderHint). */
  holderHint?: string;
}

/** A fact about who holds a resource, from the text (`print` output) or asked of gdb live. */
export interface OwnerFact {
  resource: ResourceId;
  /** The holder as gdb names it; at least one field is set. */
  holder: { lwp?: number; ptid?: string; threadId?: number };
  origin: 'text' | 'gdb';
  /** What was asked (`print ((pthread_mutex_t *) 0x…)->__data.__owner`) and gdb's answer, when live. */
  query: string | null;
  answer: string | null;
  sourceLine: number | null;
  /**
   * For an answer in the text: how it was linked to its lock, e.g. `by the symbol <qemu_global_mutex>`,
   * `by its address`, `by the selected thread, printed in thread 5's frame 1`.
   */
  link?: string;
  /**
   * The lock is process-shared, as the answer shows: an owner that is no thread of the dump is then
   * a thread of another process using it, not one that exited.
   */
  shared?: true;
}

/** An owner answer in the text that names no lock a wait can be linked to (so it proves nothing yet). */
export interface UnlinkedOwner {
  /** 1-based input line of the answer. */
  sourceLine: number;
  /** The printed expression, when the input shows it. */
  expression: string | null;
  /** What it says, e.g. `__owner = 20496`. */
  answer: string;
  /** Why it links to no wait, e.g. `no frame names <qemu_global_mutex>, and no thread was selected when it was printed`. */
  reason: string;
  /** The gdb command whose answer would link it (`print &qemu_global_mutex`), when there is one. */
  gdbCommand: string | null;
}

/**
 * The process crashed: which thread, with which signal, where. From a signal line in the text
 * (`Thread 23 "worker" received signal SIGABRT, Aborted.`, `Program terminated with signal
 * SIGSEGV, Segmentation fault.`, LLDB's `stop reason = signal SIGSEGV`, Julia's `signal (11):
 * Segmentation fault`) or from the crashing thread's frames (`raise`/`abort`, `__assert_fail`, a
 * crash handler under `<signal handler called>`, a freed-memory fill value in its arguments).
 */
export interface Crash {
  thread: ThreadKey;
  /** `SIGABRT`, `SIGSEGV`, `EXC_BAD_ACCESS`, …; null when the text does not say which signal. */
  signal: string | null;
  /** What shows the crash (strongest first). */
  evidence: CrashEvidenceKind;
  /** The first frame outside libc and the abort / terminate / panic machinery: where it went wrong. */
  site: FrameRef | null;
  /** The frame that shows the crash (`raise`, `__assert_fail`, `<signal handler called>`, …), when one does. */
  crashFrame: FrameRef | null;
  /** The signal line in the text, when the evidence is one. */
  sourceLine: number | null;
  /** One sentence for the report. */
  text: string;
}

/**
 * - `signal-line`: gdb, LLDB or Julia printed the signal that stopped the thread;
 * - `abort`: the thread is in `abort`/`raise`/`pthread_kill` (SIGABRT: std::terminate, glibc's
 *   fatal error messages, Rust's abort);
 * - `assert`: in `__assert_fail` (a failed `assert()`);
 * - `signal-handler`: in a crash handler under `<signal handler called>`;
 * - `freed-memory`: running with a freed-memory fill (`0xdbdbdbdb…`, `0xdddddddd…`) in its arguments
 *   (inferred: a use after free, no signal in the text).
 */
export type CrashEvidenceKind = 'signal-line' | 'abort' | 'assert' | 'signal-handler' | 'freed-memory';

/**
 * What a partial paste lacks (analyze/partial.ts): `info-threads` — only `info threads` rows;
 * `one-thread` — one thread of a process with more; `backtrace-limit` — every backtrace cut at
 * `(More stack frames follow...)` before any frame a rule knows; `cut-mid-thread` — the paste stops
 * inside a thread.
 */
export interface PartialPaste {
  kind: 'info-threads' | 'one-thread' | 'backtrace-limit' | 'cut-mid-thread';
  /** One sentence: what is missing. */
  text: string;
  /** The gdb command that captures it. */
  command: string;
}

export interface AnalysisStats {
  lines: number;
  backtraces: number;
  threads: number;
  frames: number;
  ignoredLines: number;
}

export interface Analysis {
  schemaVersion: 1;
  verdict: Verdict;
  deadlocks: Deadlock[];
  /** Threads that wait with no time limit on something whose holder is unknown or blocked (verdict `hang`). */
  hung: ThreadKey[];
  threads: ThreadAnalysis[];
  edges: Edge[];
  unresolved: UnresolvedWait[];
  facts: OwnerFact[];
  /** Owner answers in the text that could not be linked to a lock, with why (absent when there are none). */
  unlinkedOwners?: UnlinkedOwner[];
  /** Things the reader should know about how the input was read, e.g. merged backtraces, caps. */
  notes: string[];
  /** For verdict `hang`: threads not in `hung` that wait, directly or transitively, on a hung thread. */
  hangBlockedBehind?: ThreadKey[];
  /** Why each `hung` thread cannot go on, one sentence each, in `hung` order. */
  hangReasons?: Array<{ thread: ThreadKey; text: string }>;
  /** Why the verdict is what it is (analyze/verdict.ts); the first reason is the deciding one. */
  verdictReasons: VerdictReason[];
  /** For a hang with no proven cycle: the cycles that may hold, smallest first (capped, with a note, on huge dumps). */
  candidateCycles: CandidateCycle[];
  /** Set when the process crashed (verdict `crash`, or a deadlock or hang found besides). */
  crash?: Crash;
  /** Set when the paste is partial: what it lacks, and the gdb command that captures it. */
  partial?: PartialPaste;
  stats: AnalysisStats;
  /**
   * Set when the input was several snapshots of one process (attach --samples, several dumps, or
   * --snapshots): the analysis is the last snapshot's, its verdict checked against what moved.
   */
  snapshots?: SnapshotSeries;
  /** The parsed input, so reporters can print stacks (the last snapshot's, for snapshots). */
  dump: Dump;
}

/** Which thread moved over several snapshots of one process (analyze/snapshots/). */
export interface SnapshotSeries {
  count: number;
  /** Mean seconds between snapshots, when known (attach records it; a saved dump carries it; --interval says it). */
  interval: number | null;
  /** How a thread of one snapshot was found in the next: by its LWP, its pthread address, or gdb's number. */
  matchedBy: 'lwp' | 'ptid' | 'thread number';
  /** `given`: attach --samples or --snapshots; `recognised`: several dumps with the same LWPs and pthread addresses. */
  how: 'given' | 'recognised';
  /** Every thread any snapshot shows, by its key (the last snapshot's; a thread gone before it: `KEY@SNAPSHOT`). */
  threads: Record<ThreadKey, ThreadMotionRecord>;
}

export interface ThreadMotionRecord {
  /** `stuck`: the same frames (function, file:line, pc) in every snapshot; `moved`; `new` (not in the first); `gone` (not in the last). */
  motion: 'stuck' | 'moved' | 'new' | 'gone';
  lwp: number | null;
  name: string | null;
  /** 1-based numbers of the first and last snapshot that show it, and how many do. */
  first: number;
  last: number;
  seen: number;
  /** For `moved`: the first two snapshots between which its frames differ. */
  movedBetween?: [number, number];
  /** For `stuck`: seconds from the first to the last snapshot that shows it, when the times are known. */
  stuckSeconds?: number;
  /** For `moved`: the snapshot from which its frames stayed the same to the last one, when before the last. */
  stuckSince?: number;
}
