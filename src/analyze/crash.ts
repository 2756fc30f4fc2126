/**
 * The crash verdict: did the process die, which thread, with which signal, and where? A crash
 * shows in two ways, and either is enough:
 *
 * - a signal line: gdb's `Thread 23 "x" received signal SIGABRT, Aborted.` / `Program terminated
 *   with signal SIGSEGV, …` (Dump.signals), LLDB's `stop reason = signal SIGSEGV` /
 *   `EXC_BAD_ACCESS`, Julia's `signal (11): Segmentation fault` (ThreadInfo.stopReason);
 * - the crashing thread's frames: `raise`/`abort`/`__pthread_kill_implementation` (SIGABRT),
 *   `__assert_fail`, a crash handler under `<signal handler called>` (KCrash, Breakpad, a
 *   handler called with a fatal signal number), or, with no signal in the text at all, a freed-memory
 *   fill value (`0xdbdbdbdbdbdbdbdb`) in the arguments of a thread that is not waiting.
 *
 * Per backtrace (`crashEvidenceOf`, while the parser streams) only a small record is kept; the
 * choice among threads is made at the end (`findCrash`). The report names the first frame outside
 * libc and the abort / terminate / panic machinery: where the program went wrong (gdb-format.md
 * §3.7 for the signal lines; glibc's abort.c, raise.c, pthread_kill.c, assert.c for the frames).
 */
import type { Crash, CrashEvidenceKind, FrameRef, ThreadAnalysis, ThreadKey, Verdict } from '../model/analysis.js';
import type { Backtrace, Dump, Frame } from '../model/dump.js';
import { normalizeFunctionName, stripLeadingUnderscores } from '../rules/function-names.js';

/** True for the verdicts that are findings, exit code 1: a deadlock or a hang (a crash alone is 0). */
export function isFinding(verdict: Verdict): boolean {
  return verdict === 'deadlock' || verdict === 'hang';
}

/**
 * What the analysis keeps while backtraces stream by: the evidence of the few that show a crash,
 * and every backtrace's first line (a signal line names the backtrace printed after it).
 */
export class CrashCollector {
  readonly evidence: BacktraceCrash[] = [];
  /** startLines[i]: the first input line of backtrace i (in the order the analyser got them). */
  readonly startLines: number[] = [];
  /**
   * Where each backtrace that is not waiting went wrong (its first frame outside libc), for a
   * thread a signal line names but whose frames show nothing more: its frames may be gone by
   * the end (keepFrames false). Waiting threads are not where a signal hit.
   */
  readonly sites = new Map<number, FrameRef>();

  add(bt: Backtrace, index: number, blocked: boolean): void {
    this.startLines[index] = bt.startLine;
    const e = crashEvidenceOf(bt, index, blocked);
    if (e !== null) this.evidence.push(e);
    else if (!blocked && bt.frames.length > 0) {
      const site = siteFrom(bt.frames, 0, index);
      if (site !== null) this.sites.set(index, site);
    }
  }
}

/** What one backtrace shows of a crash. */
export interface BacktraceCrash {
  backtrace: number;
  kind: Exclude<CrashEvidenceKind, 'signal-line'>;
  signal: string | null;
  crashFrame: FrameRef | null;
  site: FrameRef | null;
  /** For `freed-memory`: the argument that holds the fill value, as `name=value`. */
  detail: string | null;
}

/** Frames searched from the top for the abort path or a signal frame (deep ones are not the crash). */
const SCAN_FRAMES = 24;
/** Frames whose arguments are read for freed-memory fill values. */
const FILL_FRAMES = 8;

/** glibc / macOS libc functions of the abort path (names without leading underscores). */
const ABORT = new Set(['abort', 'libc_abort', 'abort_with_payload', 'abort_with_reason', 'libc_message', 'libc_message_impl', 'libc_fatal', 'fortify_fail', 'fortify_fail_abort', 'chk_fail', 'stack_chk_fail', 'malloc_printerr']);
/** raise and its aliases: a crash unless their argument names a signal that is not fatal. */
const RAISE = new Set(['raise', 'gsignal']);
/** pthread_kill: also how runtimes signal their own threads (Julia's suspend), so only on the abort path. */
const PTHREAD_KILL = new Set(['pthread_kill', 'pthread_kill_implementation', 'pthread_kill_internal']);
const ASSERT = new Set(['assert_fail', 'assert_fail_base', 'assert_perror_fail', 'assert_rtn', 'assert']);
/** The signal trampoline as LLDB names it (gdb prints `<signal handler called>`). */
const SIGTRAMP_NAMES = new Set(['sigtramp', 'restore_rt']);
/**
 * Signal handlers that are a runtime's normal traffic, not a crash: Julia's GC safepoints fault on
 * purpose (segv_handler → jl_set_gc_and_wait) and its profiler suspends threads in usr2_handler
 * (rules-domain §3.0).
 */
const BENIGN_HANDLER_FRAMES = new Set(['jl_set_gc_and_wait', 'jl_safepoint_wait_gc', 'jl_safepoint_wait_thread_resume', 'usr2_handler']);
/** Arguments that hold a signal number in handlers. */
const SIGNAL_ARGS = new Set(['sig', 'signo', 'signum', 'signal', 'sig_num', 'signr', 'nsig', 'sign']);
/** Fatal signals by number (the same on Linux, the BSDs and macOS, but SIGBUS 7 and SIGSYS 31: Linux). */
const FATAL_NUMBERS = new Map<number, string>([
  [4, 'SIGILL'],
  [6, 'SIGABRT'],
  [7, 'SIGBUS'],
  [8, 'SIGFPE'],
  [11, 'SIGSEGV'],
  [31, 'SIGSYS'],
]);
const FATAL_SIGNALS = new Set(['SIGSEGV', 'SIGBUS', 'SIGILL', 'SIGFPE', 'SIGABRT', 'SIGIOT', 'SIGSYS', 'SIGEMT']);
/** Mach exceptions LLDB reports for a crash on macOS (a Swift trap is EXC_BREAKPOINT). */
const FATAL_EXCEPTIONS = new Set(['EXC_BAD_ACCESS', 'EXC_BAD_INSTRUCTION', 'EXC_ARITHMETIC', 'EXC_CRASH', 'EXC_BREAKPOINT', 'EXC_GUARD']);
/** strsignal texts (glibc, macOS) as Julia prints them, by signal. */
const SIGNAL_TEXTS: ReadonlyArray<readonly [RegExp, string]> = [
  [/^Segmentation fault/, 'SIGSEGV'],
  [/^Abort(?:ed| trap)/, 'SIGABRT'],
  [/^Bus error/, 'SIGBUS'],
  [/^Illegal instruction/, 'SIGILL'],
  [/^Floating[ -]point exception/, 'SIGFPE'],
  [/^Bad system call/, 'SIGSYS'],
];
/**
 * Freed-memory fill patterns of common allocators: CPython's debug allocator (0xDB before 3.8,
 * 0xDD since), MSVC's CRT (0xDD) and HeapFree (0xFEEEFEEE), jemalloc / FreeBSD's junk filling
 * (0x5A), and the 0xDEADBEEF poison. Only whole 32- or 64-bit values.
 */
const FREED_FILL = /^0x(?:(?:db){4}|(?:dd){4}|(?:5a){4}|feeefeee|deadbeef)(?:(?:db){4}|(?:dd){4}|(?:5a){4}|feeefeee|deadbeef)?$/i;

/**
 * Frames that are the machinery of dying, skipped to find where the program went wrong: libc, the
 * C++ runtime's terminate and throw path, Rust's panic path, assertion and fatal-message helpers.
 */
const MACHINERY_PREFIXES = [
  '__gnu_cxx::__verbose_terminate_handler',
  '__cxxabiv1::',
  'std::terminate',
  '__cxa_throw',
  '__cxa_rethrow',
  '__cxa_call_terminate',
  '__clang_call_terminate',
  'std::__throw_',
  'std::__terminate',
  'std::panicking::',
  'core::panicking::',
  'std::process::abort',
  'std::sys::',
  'panic_abort::',
  '__rust_',
  'rust_panic',
  'g_assertion_message',
  'g_assert_warning',
  'qt_assert',
  'qt_message_fatal',
  'QMessageLogger::fatal',
  'qFatal',
];
const LIBC_LIBRARY = /(?:^|\/)(?:libc[.-]|libc\.so|libpthread[.-]|libsystem_(?:c|kernel|pthread|platform)\.dylib|libc\+\+abi|ld-linux|libdyld)/;
/** The C++ and unwinder runtimes: their frames with no symbol are the terminate / throw path. */
const CXX_RUNTIME_LIBRARY = /(?:^|\/)(?:libstdc\+\+|libc\+\+|libgcc_s|libunwind)[.-]/;
/** glibc's own sources, as gdb prints them with libc debug info (`../sysdeps/unix/sysv/linux/raise.c`). */
const LIBC_FILE = /^(?:\.\.?\/)*(?:sysdeps|nptl|signal|stdlib|assert|csu|posix)\/|^(?:raise|abort|assert|pthread_kill)\.c$/;

function bare(frame: Frame): string {
  return stripLeadingUnderscores(normalizeFunctionName(frame.function));
}

function isSigtramp(frame: Frame): boolean {
  return frame.kind === 'sigtramp' || (frame.kind === 'normal' && SIGTRAMP_NAMES.has(bare(frame)));
}

/** The number or name an argument gives for a signal (`sig=6`, `sig=sig@entry=6`, `signo=SIGSEGV`). */
function signalArg(frame: Frame): { name: string | null; fatal: boolean } | null {
  for (const arg of frame.args) {
    if (!SIGNAL_ARGS.has(arg.name.toLowerCase())) continue;
    const v = arg.value.trim();
    const n = /^-?\d+$/.test(v) ? Number(v) : null;
    if (n !== null) {
      const name = FATAL_NUMBERS.get(n) ?? null;
      return { name, fatal: name !== null };
    }
    const sig = /^(SIG[A-Z0-9]+)\b/.exec(v);
    if (sig !== null) return { name: sig[1]!, fatal: FATAL_SIGNALS.has(sig[1]!) };
    return null;
  }
  return null;
}

function ref(frames: readonly Frame[], i: number, backtrace: number): FrameRef {
  const f = frames[i]!;
  return { backtrace, level: f.level, function: f.function, file: f.file, line: f.line, sourceLine: f.sourceLine };
}

/** A frame of libc or of the machinery of dying. */
function isMachinery(frame: Frame): boolean {
  if (frame.kind !== 'normal') return true;
  const name = bare(frame);
  if (ABORT.has(name) || RAISE.has(name) || PTHREAD_KILL.has(name) || ASSERT.has(name) || SIGTRAMP_NAMES.has(name)) return true;
  if (frame.library !== null && (LIBC_LIBRARY.test(frame.library) || (frame.function === '??' && CXX_RUNTIME_LIBRARY.test(frame.library)))) return true;
  if (frame.file !== null && LIBC_FILE.test(frame.file)) return true;
  const fn = frame.function;
  return MACHINERY_PREFIXES.some((p) => fn.startsWith(p));
}

/** The first frame from `from` outward that is neither libc nor the machinery of dying, or null. */
function siteFrom(frames: readonly Frame[], from: number, backtrace: number): FrameRef | null {
  for (let i = from; i < frames.length; i++) if (!isMachinery(frames[i]!)) return ref(frames, i, backtrace);
  return null;
}

/**
 * What one backtrace shows of a crash, or null. `blocked`: the stack starts with wait primitives
 * (then its argument values are not read for fill patterns: it is waiting, not crashing).
 */
export function crashEvidenceOf(bt: Backtrace, index: number, blocked: boolean): BacktraceCrash | null {
  const frames = bt.frames;
  const n = Math.min(frames.length, SCAN_FRAMES);
  let sigtramp = -1;
  for (let i = 0; i < n; i++) {
    if (isSigtramp(frames[i]!)) {
      sigtramp = i;
      break;
    }
  }
  // Past the (first) signal frame: the code the signal interrupted.
  const siteStart = sigtramp >= 0 ? sigtramp + 1 : 0;
  // The abort path: abort/assert anywhere near the top; raise unless its signal is not fatal;
  // pthread_kill only right under raise or abort. Searched past the signal frame first (a crash
  // handler that re-raises has a second raise inside it).
  for (let k = 0; k < n; k++) {
    const i = sigtramp >= 0 ? (k < n - siteStart ? siteStart + k : k - (n - siteStart)) : k;
    const frame = frames[i]!;
    if (frame.kind !== 'normal') continue;
    const name = bare(frame);
    let kind: BacktraceCrash['kind'] | null = null;
    let signal: string | null = 'SIGABRT';
    if (ASSERT.has(name)) kind = 'assert';
    else if (ABORT.has(name)) kind = 'abort';
    else if (RAISE.has(name)) {
      const arg = signalArg(frame);
      if (arg === null || arg.fatal) {
        kind = 'abort';
        signal = arg?.name ?? 'SIGABRT';
      }
    } else if (PTHREAD_KILL.has(name)) {
      const arg = signalArg(frame);
      const outer = frames.slice(i + 1, i + 4).some((f) => f.kind === 'normal' && (RAISE.has(bare(f)) || ABORT.has(bare(f)) || ASSERT.has(bare(f))));
      if (arg !== null ? arg.fatal : outer) {
        kind = 'abort';
        signal = arg?.name ?? 'SIGABRT';
      }
    }
    if (kind === null) continue;
    // abort() called by __assert_fail further out: a failed assertion.
    if (kind === 'abort') for (let j = i + 1; j < n; j++) if (frames[j]!.kind === 'normal' && ASSERT.has(bare(frames[j]!))) kind = 'assert';
    // The site is searched past the signal frame when there is one.
    return { backtrace: index, kind, signal, crashFrame: ref(frames, i, index), site: siteFrom(frames, siteStart, index), detail: null };
  }
  if (sigtramp >= 0) {
    // A handler running for a fatal signal, or one named as a crash handler; not a runtime's own
    // safepoint or suspend handler.
    let signal: string | null = null;
    let named = false;
    let benign = false;
    for (let i = 0; i < sigtramp; i++) {
      const frame = frames[i]!;
      if (BENIGN_HANDLER_FRAMES.has(bare(frame))) benign = true;
      const arg = signalArg(frame);
      if (arg !== null && arg.fatal && signal === null) signal = arg.name;
      if (/crash/i.test(frame.function)) named = true;
    }
    if (!benign && (signal !== null || named)) {
      return { backtrace: index, kind: 'signal-handler', signal, crashFrame: ref(frames, sigtramp, index), site: siteFrom(frames, siteStart, index), detail: null };
    }
  }
  if (!blocked) {
    const m = Math.min(frames.length, FILL_FRAMES);
    for (let i = 0; i < m; i++) {
      const frame = frames[i]!;
      for (const arg of frame.args) {
        const value = arg.value.trim();
        if (FREED_FILL.test(value)) {
          return { backtrace: index, kind: 'freed-memory', signal: null, crashFrame: ref(frames, i, index), site: siteFrom(frames, 0, index), detail: `${arg.name}=${value}` };
        }
      }
    }
  }
  return null;
}

/** The fatal signal a stop reason or signal name gives, or null when it is not fatal. */
export function fatalSignalOf(text: string, how: 'received' | 'terminated' | 'stop-reason'): string | null {
  const t = text.trim();
  const sig = /^(?:signal )?(SIG[A-Z0-9]+)\b/.exec(t);
  if (sig !== null) {
    const name = sig[1]!;
    if (FATAL_SIGNALS.has(name)) return name;
    // A trap ends the program only when a core says so (live, it is a breakpoint).
    return name === 'SIGTRAP' && how === 'terminated' ? name : null;
  }
  const exc = /^(EXC_[A-Z_]+)\b/.exec(t);
  if (exc !== null) return FATAL_EXCEPTIONS.has(exc[1]!) ? exc[1]! : null;
  const number = /^(?:signal )?(\d+)$/.exec(t);
  if (number !== null) return FATAL_NUMBERS.get(Number(number[1])) ?? null;
  // Julia: `signal (11): Segmentation fault`, `[9614] signal 6 (-6): Aborted`, `signal 11: Segmentation fault: 11`.
  const julia = /^(?:\[\d+\] )?signal \(?(\d+)\)?(?: \(-?\d+\))?: (.*)$/.exec(t);
  if (julia !== null) {
    for (const [re, name] of SIGNAL_TEXTS) if (re.test(julia[2]!)) return name;
    return null;
  }
  return null;
}

export interface CrashInput {
  dump: Dump;
  collected: CrashCollector;
  threads: readonly ThreadAnalysis[];
}

const STRENGTH: Record<BacktraceCrash['kind'], number> = { abort: 0, assert: 0, 'signal-handler': 1, 'freed-memory': 2 };

/** The crash, or null when nothing in the dump says the process crashed. */
export function findCrash(input: CrashInput): Crash | null {
  const keyOf = new Map<number, ThreadKey>();
  for (const t of input.threads) {
    keyOf.set(t.backtrace, t.key);
    for (const m of t.merged) keyOf.set(m, t.key);
  }
  const byThread = new Map<ThreadKey, BacktraceCrash>();
  const { evidence, startLines } = input.collected;
  for (const e of evidence) {
    const key = keyOf.get(e.backtrace);
    if (key === undefined) continue;
    const known = byThread.get(key);
    if (known === undefined || STRENGTH[e.kind] < STRENGTH[known.kind]) byThread.set(key, e);
  }
  const backtraces = input.dump.backtraces;

  // 1. A signal line that names a fatal signal.
  let signalled: { key: ThreadKey | null; signal: string; line: number | null } | null = null;
  for (const s of input.dump.signals ?? []) {
    const signal = fatalSignalOf(s.signal, s.how);
    if (signal === null) continue;
    let key: ThreadKey | null = s.thread;
    if (key === null) {
      // `Program received/terminated …`: the current thread, whose frame gdb prints next.
      let next = -1;
      for (let i = 0; i < startLines.length; i++) {
        const line = startLines[i]!;
        if (line > s.sourceLine && (next < 0 || line < startLines[next]!)) next = i;
      }
      key = next >= 0 ? (keyOf.get(next) ?? null) : null;
      if (key !== null && !byThread.has(key) && byThread.size > 0) key = null;
    }
    signalled = { key, signal, line: s.sourceLine };
    break;
  }
  if (signalled === null) {
    // A header's stop reason (LLDB, Julia): the backtrace whose first line it is.
    const keyAtLine = new Map<number, ThreadKey>();
    startLines.forEach((line, i) => {
      const key = keyOf.get(i);
      if (key !== undefined) keyAtLine.set(line, key);
    });
    for (const bt of backtraces) {
      if (bt.thread?.stopReason === undefined) continue;
      const signal = fatalSignalOf(bt.thread.stopReason, 'stop-reason');
      const key = keyAtLine.get(bt.startLine);
      if (signal !== null && key !== undefined) {
        signalled = { key, signal, line: bt.startLine };
        break;
      }
    }
  }
  const strongest = (): [ThreadKey, BacktraceCrash] | null => {
    let best: [ThreadKey, BacktraceCrash] | null = null;
    for (const entry of byThread) if (best === null || STRENGTH[entry[1].kind] < STRENGTH[best[1].kind]) best = entry;
    return best;
  };
  const threads = new Map(input.threads.map((t) => [t.key, t]));
  if (signalled !== null) {
    const s = signalled as { key: ThreadKey | null; signal: string; line: number | null };
    const fallback = strongest();
    const key = s.key ?? fallback?.[0] ?? null;
    if (key === null) return null;
    const e = byThread.get(key) ?? null;
    const t = threads.get(key);
    const site = e?.site ?? (t === undefined ? null : (input.collected.sites.get(t.backtrace) ?? null));
    return { thread: key, signal: s.signal, evidence: 'signal-line', site, crashFrame: e?.crashFrame ?? null, sourceLine: s.line, text: crashText(threads.get(key), key, s.signal, e?.kind ?? null, site, null) };
  }
  const best = strongest();
  if (best === null) return null;
  const [key, e] = best;
  return { thread: key, signal: e.signal, evidence: e.kind, site: e.site, crashFrame: e.crashFrame, sourceLine: null, text: crashText(threads.get(key), key, e.signal, e.kind, e.site, e.detail) };
}

function crashText(t: ThreadAnalysis | undefined, key: ThreadKey, signal: string | null, kind: BacktraceCrash['kind'] | null, site: FrameRef | null, detail: string | null): string {
  const who = threadTitleOf(t, key);
  const where = site === null ? '' : ` in ${site.function}${site.file !== null ? ` at ${site.file}${site.line !== null ? `:${site.line}` : ''}` : ''}`;
  if (kind === 'freed-memory') return `${who} probably crashed: it runs with a freed-memory fill value (${detail}) in its frames, a use after free${where}`;
  const how = kind === 'assert' ? ' (a failed assertion)' : kind === 'abort' && signal === 'SIGABRT' ? ' (abort)' : '';
  return `${who} crashed with ${signal ?? 'a fatal signal'}${how}${where}`;
}

function threadTitleOf(t: ThreadAnalysis | undefined, key: ThreadKey): string {
  const base = threadTitleText(key);
  return t?.lwp != null ? `${base} (LWP ${t.lwp})` : base;
}

/** `thread 9`, or `the backtrace at line 119` for a headerless one. */
export function threadTitleText(key: ThreadKey): string {
  return /^bt@\d+$/.test(key) ? `the backtrace at line ${key.slice(3)}` : `thread ${key}`;
}

/** The crashing thread's state, when no rule explains it: never `running`. */
export function markCrashedThread(threads: ThreadAnalysis[], crash: Crash): void {
  const t = threads.find((x) => x.key === crash.thread);
  if (t === undefined || t.stateRule !== undefined) return;
  t.state = 'crashed';
  t.stateText = `crashed (${crash.signal ?? 'a fatal signal'})`;
}
