/**
 * The parsed form of a gdb text dump: what `waitgraph parse` prints and what every later stage
 * reads. Plain data only (JSON-serialisable, no classes), so it can be printed, stored as a golden
 * file and rebuilt by tests without going through the parser.
 */

/** One `name=value` of a frame's argument list, e.g. `mutex=0x78411d5ca900 <safepoint_lock>`. */
export interface FrameArg {
  /** `mutex`; for `sig@entry=6` the name is `sig` and `entry` is `"only"`. */
  name: string;
  /** The value as printed, without the name: `0x78411d5ca900 <safepoint_lock>`, `<optimized out>`. */
  value: string;
  /**
   * gdb's entry-value annotations: `n=n@entry=5` → `"equal"`; a lone `n@entry=5` → `"only"`.
   * Absent for a plain argument.
   */
  entry?: 'equal' | 'only';
}

/** A local variable printed by `bt full` under its frame (`        i = 0`). */
export interface FrameLocal {
  name: string;
  /** The value, with multi-line values joined by `\n`. */
  value: string;
  sourceLine: number;
  /** Further input lines of a multi-line value, 1-based (added by the parser). */
  continuationLines?: number[];
}

/**
 * What kind of frame line this was. `normal` covers `#N [pc in] NAME (ARGS) [at F:L | from LIB]`;
 * the others are gdb's pseudo frames (`<signal handler called>`, `<function called from gdb>`,
 * `<cross-architecture call>`).
 */
export type FrameKind = 'normal' | 'sigtramp' | 'dummy' | 'arch';

export interface Frame {
  /** The `#N` level as printed. Levels need not be contiguous (elision, `bt -N`). */
  level: number;
  /** `0x000078411e0524e9`, or null when gdb printed no address (inlined call site, line start). */
  pc: string | null;
  /** Address flags printed after the pc, e.g. `["PAC"]` for `0x… [PAC] in` (AArch64); absent when none. */
  pcFlags?: string[];
  /** The function as printed, templates and all; `??` when gdb knew no symbol. */
  function: string;
  /** Parsed arguments in print order; empty for `()` and for `(...)` presence mode. */
  args: FrameArg[];
  /** `at FILE:LINE`: the file, or null. Windows paths keep their drive colon. */
  file: string | null;
  line: number | null;
  /** `from LIB` (or the frame-filter `at LIB` with no line): the shared object, or null. */
  library: string | null;
  /**
   * True when this frame was inlined into its caller: gdb prints the caller of an inlined frame
   * (the next outer frame) without a pc. Computed after the whole backtrace is read.
   */
  inlined: boolean;
  kind: FrameKind;
  /**
   * True when the line ended before its argument list closed (a paste cut mid-frame, e.g.
   * `#3  0x000078411d0b4735 in jl_safepoin`); the fields hold what could be read.
   */
  incomplete: boolean;
  /** 1-based input line where the frame starts (its `#N`). */
  sourceLine: number;
  /** Further input lines joined into this frame (wrapped args, `   from LIB`), 1-based. */
  continuationLines?: number[];
  /** `bt full` locals under this frame, if any were printed. */
  locals?: FrameLocal[];
  /**
   * The frame's language when it is not native code: `julia` for the Julia-level frames of Julia's
   * own dumps (`macro expansion at ./threadingconstructs.jl:215`, `wait at ./task.jl:994`). Absent
   * for native frames (C, C++, and the `julia_*` JIT code gdb shows).
   */
  language?: 'julia';
  /** The byte offset into the function LLDB prints (`libc.so.6\`raise + 55`), when it does. */
  offset?: number;
}

/** The thread a backtrace belongs to, from its `Thread N (…):` header. */
export interface ThreadInfo {
  /** gdb's thread number N (for `Thread 2.4` the thread part, 4). */
  id: number;
  /** gdb's id as printed, `9` or `2.4` (inferior.thread). */
  gdbId: string;
  /** The pthread_t from `Thread 0x7840ebe006c0 (LWP …)`, lower-case hex, or null. */
  ptid: string | null;
  /** Kernel thread id from `(LWP n)`, or `process n` for single-threaded targets, or null. */
  lwp: number | null;
  /** The quoted thread name (may be empty), or null when none was printed. */
  name: string | null;
  /** The whole target id text between the outer parentheses, for display and odd targets. */
  targetId: string;
  /** gdb's extra info group, e.g. `Exiting`, or null. */
  extra: string | null;
  /**
   * Why the thread stopped, when its header says so: LLDB's `stop reason = signal SIGABRT` (the
   * text after `stop reason = `), Julia's `signal (11): Segmentation fault`. Absent otherwise.
   */
  stopReason?: string;
}

/** A gap the input shows between two frame levels: an elided `...` line or a jump in levels. */
export interface FrameGap {
  /** Level of the frame before the gap, and after it. */
  afterLevel: number;
  beforeLevel: number;
  /** 1-based input line of the elision marker, or of the frame after the jump. */
  sourceLine: number;
}

export interface Backtrace {
  /** The header this backtrace followed, or null for a plain `bt` with no thread header. */
  thread: ThreadInfo | null;
  /** 1-based input line of the header (or of the first frame when there is no header). */
  startLine: number;
  /** Last 1-based input line that belongs to this backtrace. */
  endLine: number;
  /**
   * True when gdb or the paste shows frames are missing at the outer end:
   * `(More stack frames follow...)`, a pager `q`/`Quit`, a cut-off frame, or the input's end.
   */
  truncated: boolean;
  /**
   * What cut it, when `truncated`: `limit` — `(More stack frames follow...)` (`bt N`, a backtrace
   * limit); `pager` — a `q` at gdb's pager; `paste` — the text stops in the middle of it (a frame
   * cut off, or the end of the input). Absent when it is not truncated.
   */
  truncatedBy?: 'limit' | 'pager' | 'paste';
  /** Why the unwinder stopped, from `Backtrace stopped: …`, or null. */
  stopReason: string | null;
  frames: Frame[];
  gaps: FrameGap[];
  /**
   * 1-based input lines of this backtrace that are neither its header nor part of a frame or a
   * local, in input order: `(More stack frames follow...)`, `Backtrace stopped: …`, a pager `Quit`,
   * `No locals.`, an elided `...` that became a gap, and a header's or row's continuation lines.
   * With these, every input line is in exactly one place: a header (`startLine` when no frame
   * starts there), a frame or local (with their continuation lines), an owner hint, a marker line,
   * or `ignored` — except a line gdb put several records on (a glued `[Switching to thread …]#0`,
   * frames split out of one line), which each of them names. Absent when there are none, and
   * emptied with the frames when the parser drops them (keepFrames false).
   */
  markerLines?: number[];
  /**
   * Set when this is not a backtrace of its own but a partial view of a thread, absent otherwise:
   * - `info-threads`: a row of an `info threads` table (only the current frame; `truncated` is
   *   true). Kept only for threads no real backtrace in the input shows.
   * - `selected-frame`: the frame gdb printed on `thread N` / `frame N` (after `[Switching to
   *   thread N …]`), repeated by the backtrace of the same thread that follows it. Prefer that one.
   */
  source?: 'info-threads' | 'selected-frame';
  /**
   * A task of Julia's `jl_print_task_backtraces` output (`---- Task 2 (0x7f1a2c3d4e50)`), absent for
   * every other backtrace. A task running on a thread when it was printed is that thread's stack
   * (`thread` is Julia thread `tid`); a parked one is not a thread's (its stack starts at a task
   * switch) and gets an identity of its own.
   */
  task?: JuliaTask;
}

export interface JuliaTask {
  /** `root` for a thread's root task, else its number in its thread's list (`2`). */
  task: string;
  /** The `jl_task_t *`, lower-case hex. */
  address: string;
  /** The thread whose list holds it (`==== Thread 7 created 2 live tasks`), or null. */
  listedBy: number | null;
  /** From `(sticky: 1, started: 1, state: 0, tid: 7)`, null until that line is read. */
  sticky: boolean | null;
  started: boolean | null;
  /** 0 runnable, 1 done, 2 failed (JL_TASK_STATE_*). */
  state: number | null;
  /** The Julia thread it is bound to or runs on, 1-based; 0: none. */
  tid: number | null;
  /** Running on thread `tid` when printed (its stack is that thread's), or parked. */
  running: boolean;
}

/**
 * gdb `print` output that names a lock owner, kept so analysis can add a proven hold edge:
 * `$1 = {__data = {__lock = 2, __count = 0, __owner = 20496, …` (after `(gdb) p *(pthread_mutex_t *) 0x…`),
 * `$6 = 20595` (after `print ((pthread_mutex_t *) 0x…)->__data.__owner`), or a `bt full` local
 * that is itself a lock. What the transcript around it shows (the command, earlier answers, the
 * selected thread and frame) is recorded; analysis links it to the wait it answers.
 */
export interface OwnerHint {
  /** The printed expression when the input shows it (`p *(pthread_mutex_t *) 0x5555…`), else null. */
  expression: string | null;
  /** The lock's address when the expression or the transcript names one, else null. */
  address: string | null;
  /**
   * How `address` was found: in the expression itself, from an earlier answer (`$3 = (pthread_mutex_t *)
   * 0x… <lock_b>` for `*$3` or `lock_b`), from `info registers` (`*(pthread_mutex_t *) $rdi`), or
   * from an argument of the selected frame (`*mutex` after `frame 1`). Absent when `address` is null.
   */
  addressFrom?: 'expression' | 'history' | 'register' | 'frame-arg' | 'answer';
  /** The variable the lock starts at, when the expression is a plain name: `qemu_global_mutex`, `mutexB`. */
  variable?: string;
  /** A gdb expression for the lock object itself, when one can be written (`qemu_global_mutex.lock`, `*mutex`). */
  lockExpression?: string;
  /**
   * Which owner field: `__owner` (mutex; also the glibc printer's `Owner ID`), `__cur_writer`
   * (rwlock writer; `__writer` before glibc 2.25, `Writer ID`), or `thread_id` (a holder named by
   * its pthread_t: the CPython GIL's, a Julia `jl_mutex_t` owner's `system_id`).
   */
  field: '__owner' | '__cur_writer' | 'thread_id';
  /** The owner as printed: the LWP for `__owner` / `__cur_writer`, the pthread_t for `thread_id`. 0 means not held. */
  ownerLwp: number;
  /** gdb's history number of the answer (`$6` → 6); absent for a `bt full` local. */
  history?: number;
  /** rwlock: how many readers hold it, when printed (glibc does not record which). */
  readers?: number;
  /** The mutex's `__lock` word when printed (0: not locked). */
  lockWord?: number;
  /** The lock is process-shared, as the print shows (`__kind` with PTHREAD_MUTEX_PSHARED_BIT, `Shared = Yes`). */
  shared?: true;
  /** Where gdb's selection stood when the value was printed, when the transcript shows it. */
  context?: PrintContext;
  sourceLine: number;
  /** Further input lines of a print that gdb spread over several lines, 1-based (added by the parser). */
  continuationLines?: number[];
}

/** The thread (and frame) a print was typed in, from the transcript around it. */
export interface PrintContext {
  /** gdb's thread id (`5`, `2.4`). */
  thread: string;
  lwp: number | null;
  /** The selected frame's level, or null when no frame selection was shown. */
  frame: number | null;
  /** The selected frame's function as printed, when shown. */
  function?: string;
  /** The source line gdb printed for the selected frame (`pthread_mutex_lock(&mutexB);`), when shown. */
  source?: string;
  /**
   * How the context is known: `switch` — `thread N` / `frame K` answers (`[Switching to thread 5 …]`,
   * `#1  0x… in pthread_mutex_lock () …`); `thread-apply` — the header `thread apply` printed
   * before the answer; `bt-full` — the frame a `bt full` local belongs to.
   */
  from: 'switch' | 'thread-apply' | 'bt-full';
  /** Counts gdb selections in the input: answers with the same number were printed in the same one. */
  selection: number;
}

/** An input line that is not part of the model, with why, so nothing is silently dropped. */
export interface IgnoredLine {
  /** 1-based input line number. */
  line: number;
  /** The line's text after normalisation (colour and pager prompts removed). */
  text: string;
}

/**
 * A line where gdb says a signal stopped or ended the program, kept so a crash names its thread
 * and signal: `Thread 23 "thread_method" received signal SIGABRT, Aborted.`,
 * `Program received signal SIGSEGV, Segmentation fault.`, `Program terminated with signal SIGSEGV,
 * Segmentation fault.` (loading a core).
 */
export interface SignalLine {
  /** `SIGSEGV`, as printed. */
  signal: string;
  /** gdb's description of it: `Segmentation fault`. */
  description: string;
  /** `received`: the program stopped on it (live); `terminated`: it ended the program (a core). */
  how: 'received' | 'terminated';
  /** The thread the line names, as its gdb id (`23`); null for `Program …` (the current thread). */
  thread: string | null;
  /** 1-based input line. */
  sourceLine: number;
}

export interface ProcessLine {
  command: string;
  pid: number;
  /** Threads running, and threads in all (`running 2 of 5`). */
  running: number;
  threads: number;
  sourceLine: number;
}

export interface DumpStats {
  /** Number of input lines (a final line without `\n` counts; an empty input has 0). */
  lines: number;
  backtraces: number;
  frames: number;
  ignoredLines: number;
}

export interface Dump {
  schemaVersion: 1;
  backtraces: Backtrace[];
  ownerHints: OwnerHint[];
  ignored: IgnoredLine[];
  stats: DumpStats;
  /** Signal lines (`… received signal SIGABRT, Aborted.`), in input order; absent when there are none. */
  signals?: SignalLine[];
  /**
   * Julia's `cmd: /usr/bin/julia 9614 running 2 of 5` line, when the input has one: the process,
   * and how many of its threads were running (so a dump showing fewer is known to be partial).
   */
  process?: ProcessLine;
  /**
   * Limits the parser applied, one sentence each with its line (a frame wrapped over too many
   * lines, a `bt full` value too long, too many frames in one line), so a report can say what was
   * cut instead of cutting silently. Absent when none applied.
   */
  capped?: string[];
}
