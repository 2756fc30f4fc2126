/**
 * Julia's own backtrace dumps, read into the same model as gdb's (grammar/README.md, "Julia").
 * Julia prints them itself: on SIGUSR1 (Linux) / SIGINFO (BSD, macOS) — "Information request
 * received" — on a fatal signal, and from `jl_print_task_backtraces` (gdb `call
 * jl_print_task_backtraces(0)`, SIGQUIT, watchdogs). Sources: JuliaLang/julia src/stackwalk.c
 * (jl_safe_print_codeloc, jl_print_native_codeloc, jl_print_task_backtraces),
 * src/signal-handling.c (jl_critical_error).
 *
 *   cmd: /usr/bin/julia 9614 running 2 of 5
 *   signal (10): User defined signal 1                       (a signal line: Dump.signals)
 *   [9614] signal 11 (1): Segmentation fault
 *   in expression starting at REPL[4]:1
 *   pthread_cond_wait at /lib/aarch64-linux-gnu/libpthread.so.0 (unknown line)
 *   jl_safepoint_wait_gc at /cache/build/…/src/safepoint.c:172
 *   gc at ./gcutils.jl:129 [inlined]
 *   unknown function (ip: 0xffffa1e52f4b)
 *   _ZNSt6futureImE3getEv at /…/libLLVM-15jl.so (unknown line)   (no debug info: the raw symbol)
 *   Allocations: 7431022 (Pool: 7429470; Big: 1552); GC: 11
 *
 *   ==== Thread 7 created 2 live tasks
 *        ---- Root task (0x7840e8010010)
 *             (sticky: 1, started: 1, state: 0, tid: 7)
 *   …frames…
 *        ---- End root task
 *   ==== End thread 7
 *   ==== Done
 *
 * A Julia frame line is read only inside a Julia block — after a signal line, a task header or
 * another Julia frame — so prose such as "the bug is at foo.c:12" elsewhere stays prose. One
 * instance per line reader holds that state (no module-level state).
 */
import type { Frame, JuliaTask, ThreadInfo } from '../model/dump.js';
import { demangle } from './demangle.js';
import { emptyFrame } from './frame-body.js';
import { detach } from '../model/text-hygiene.js';

export type JuliaRead =
  /** `cut`: the line may be the last, cut-off frame of the paste (read as prose if a line follows). */
  | { kind: 'frame'; frame: Frame; level: number; cut: boolean }
  | { kind: 'task'; thread: ThreadInfo; task: JuliaTask }
  | { kind: 'marker'; task: Partial<JuliaTask> | null }
  | { kind: 'noise' };

// `signal (10): User defined signal 1`, `[9614] signal 11 (1): Segmentation fault`, `[9614] signal 6: Aborted`.
const SIGNAL = /^[ \t]*(?:\[(\d+)\] signal (\d+)(?: \((-?\d+)\))?|signal \((\d+)\)): (\S.*)$/;
const THREAD_LIST = /^[ \t]*==== Thread (\d+) created \d+ live tasks?[ \t]*$/;
const LIST_NOISE = /^[ \t]*==== (?:End thread \d+|Done|Skipping backtrace for parallel\/concurrent GC thread \d+)[ \t]*$/;
const TASK = /^[ \t]*---- (?:Root task|Task (\d+)) \((0x[0-9a-fA-F]+|\(nil\))\)[ \t]*$/;
const TASK_STATE = /^[ \t]*\(sticky: (\d+), started: (\d+), state: (-?\d+), tid: (-?\d+)\)[ \t]*$/;
const TASK_END = /^[ \t]*---- End (?:root task|task \d+)[ \t]*$/;
const NO_BACKTRACE = /^[ \t]*no backtrace recorded[ \t]*$/;
const IN_EXPRESSION = /^[ \t]*(?:in expression starting at \S.*|while loading .*, in expression starting on line \d+)$/;
const ALLOCATIONS = /^[ \t]*Allocations: \d+ \(Pool: \d+; Big: \d+\); GC: \d+[ \t]*$/;
const INTERPRETER = /^[ \t]*(?:No code info - unknown interpreter state!|Non-native bt entry with tag and header bits 0x[0-9a-fA-F]+)[ \t]*$/;
// `cmd: /cache/build/…/bin/julia 9614 running 2 of 5`
const PROCESS = /^[ \t]*cmd: (\S.*) (\d+) running (\d+) of (\d+)[ \t]*$/;
const UNKNOWN_FUNCTION = /^[ \t]*unknown function \(ip: (0x[0-9a-fA-F]+|\(nil\))\)(?: at (.+))?$/;
const INLINED = ' [inlined]';
const UNKNOWN_LINE = ' (unknown line)';
const LINE_NUMBER = /:(\d+)$/;
const SHARED_OBJECT = /\.(?:so(?:\.[\d.]+)?|dylib|dll|DLL)$|\.so\.\d/;
/** The functions a parked task's saved context starts in (src/task.c): its stack is no thread's. */
const TASK_SWITCH = new Set(['ctx_switch', 'jl_swap_fiber', 'jl_start_fiber_swap', 'jl_set_fiber', 'jl_switch', 'ijl_switch', 'jl_switchto', 'ijl_switchto', 'swapcontext', 'jl_swapcontext', 'jl_setjmp', 'sigsetjmp', '__sigsetjmp']);

/** The signal a Julia signal line names: `SIGSEGV` from `Segmentation fault`, else its number. */
const SIGNAL_NAMES: ReadonlyArray<readonly [RegExp, string]> = [
  [/^Segmentation fault/, 'SIGSEGV'],
  [/^Abort(?:ed| trap)/, 'SIGABRT'],
  [/^Bus error/, 'SIGBUS'],
  [/^Illegal instruction/, 'SIGILL'],
  [/^Floating[ -]point exception/, 'SIGFPE'],
  [/^Trace\/breakpoint trap/, 'SIGTRAP'],
  [/^Bad system call/, 'SIGSYS'],
  [/^User defined signal 1/, 'SIGUSR1'],
  [/^User defined signal 2/, 'SIGUSR2'],
  [/^Information request/, 'SIGINFO'],
  [/^Quit/, 'SIGQUIT'],
  [/^Interrupt/, 'SIGINT'],
  [/^Terminated/, 'SIGTERM'],
];

/** A Julia signal line as a signal (name, description), or null. */
export function readJuliaSignal(text: string): { signal: string; description: string } | null {
  if (!text.includes('signal ')) return null;
  const m = SIGNAL.exec(text);
  if (m === null) return null;
  const description = m[5]!.trimEnd();
  for (const [re, name] of SIGNAL_NAMES) if (re.test(description)) return { signal: name, description };
  return { signal: m[2] ?? m[4]!, description };
}

/** The `cmd: … PID running N of M` line, or null. */
export function readJuliaProcess(text: string): { command: string; pid: number; running: number; threads: number } | null {
  if (!text.includes('cmd: ')) return null;
  const m = PROCESS.exec(text);
  return m === null ? null : { command: detach(m[1]!), pid: Number(m[2]), running: Number(m[3]), threads: Number(m[4]) };
}

export class JuliaLines {
  /** Inside a Julia block: a frame line here is a Julia frame. */
  private active = false;
  private level = 0;
  /** `==== Thread N created …`: whose task list follows. */
  private listedBy: number | null = null;
  /** The block's innermost frame while it is the only one (see `inLibc`). */
  private first: Frame | null = null;

  /** A line the gdb classifier left as prose; its Julia reading, or null. */
  read(text: string): JuliaRead | null {
    const c = firstChar(text);
    if (c === 's' || c === '[') {
      if (readJuliaSignal(text) !== null) {
        // A signal line: the frames after it are one backtrace (the signal line stays prose for
        // the builder, which records it as a signal).
        this.active = true;
        this.level = 0;
        return null;
      }
    }
    if (c === '=') {
      const list = THREAD_LIST.exec(text);
      if (list !== null) {
        this.listedBy = Number(list[1]);
        this.active = false;
        return { kind: 'noise' };
      }
      if (LIST_NOISE.test(text)) {
        this.active = false;
        if (!text.includes('Skipping')) this.listedBy = text.includes('Done') ? null : this.listedBy;
        return { kind: 'noise' };
      }
    }
    if (c === '-') {
      const task = TASK.exec(text);
      if (task !== null) {
        this.active = true;
        this.level = 0;
        return this.taskHeader(task[1] ?? 'root', task[2]!);
      }
      if (TASK_END.test(text)) {
        this.active = false;
        return { kind: 'marker', task: null };
      }
    }
    if (c === '(') {
      const state = TASK_STATE.exec(text);
      if (state !== null) {
        const tid = Number(state[4]);
        return { kind: 'marker', task: { sticky: state[1] === '1', started: state[2] === '1', state: Number(state[3]), tid: tid < 0 ? 0 : tid } };
      }
    }
    if (NO_BACKTRACE.test(text) || INTERPRETER.test(text)) return { kind: 'marker', task: null };
    if ((c === 'i' || c === 'w') && IN_EXPRESSION.test(text)) return { kind: 'marker', task: null };
    if (c === 'A' && ALLOCATIONS.test(text)) {
      this.active = false;
      return { kind: 'marker', task: null };
    }
    if (!this.active) return null;
    const frame = readJuliaFrame(text, this.level);
    if (frame !== null && this.level === 1 && this.first !== null) inLibc(this.first, frame);
    this.first = this.level === 0 ? frame : null;
    if (frame === null) {
      // Something else inside a block: the paste may stop in the middle of a frame line (`t`).
      const cut = emptyFrame(this.level, detach(text.trim()));
      cut.incomplete = true;
      this.active = false;
      return { kind: 'frame', frame: cut, level: this.level++, cut: true };
    }
    return { kind: 'frame', frame, level: this.level++, cut: false };
  }

  isActive(): boolean {
    return this.active;
  }

  /** Lines the gdb classifier placed: a blank or any gdb line ends a Julia block; an elision does not. */
  saw(blankOrOther: 'blank' | 'elision' | 'other'): void {
    if (blankOrOther !== 'elision') this.active = false;
  }

  private taskHeader(number: string, address: string): JuliaRead {
    const listedBy = this.listedBy;
    const addr = address === '(nil)' ? '0x0' : address.toLowerCase();
    const task: JuliaTask = { task: number, address: detach(addr), listedBy, sticky: null, started: null, state: null, tid: null, running: false };
    return { kind: 'task', thread: parkedTaskThread(task), task };
  }
}

function firstChar(text: string): string {
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  return text.charAt(i);
}

/**
 * One Julia frame line, or null when the line is not one:
 * `NAME at FILE:LINE`, `NAME at FILE (unknown line)` (either with ` [inlined]`),
 * `unknown function (ip: 0x…)` (newer Julia: `… at LIB`). `NAME at FILE` with neither is a line cut
 * by the paste (incomplete).
 */
export function readJuliaFrame(text: string, level: number): Frame | null {
  const unknown = UNKNOWN_FUNCTION.exec(text);
  if (unknown !== null) {
    const frame = emptyFrame(level, '??');
    if (unknown[1] !== '(nil)') frame.pc = detach(unknown[1]!.toLowerCase());
    const lib = unknown[2]?.trimEnd();
    if (lib !== undefined && lib !== '(unknown file)') frame.library = detach(lib);
    return frame;
  }
  let t = text.trim();
  let inlined = false;
  if (t.endsWith(INLINED)) {
    inlined = true;
    t = t.slice(0, -INLINED.length);
  }
  const at = t.indexOf(' at ');
  if (at <= 0) return null;
  const name = t.slice(0, at);
  let where = t.slice(at + 4);
  if (where === '') return null;
  const frame = emptyFrame(level, functionName(name));
  frame.inlined = inlined;
  if (where.endsWith(UNKNOWN_LINE)) {
    where = where.slice(0, -UNKNOWN_LINE.length);
    // Native code without line info: Julia names the shared object it is in.
    if (SHARED_OBJECT.test(where)) frame.library = detach(where);
    else frame.file = detach(where);
  } else {
    const line = LINE_NUMBER.exec(where);
    if (line !== null) {
      frame.file = detach(where.slice(0, line.index));
      frame.line = Number(line[1]);
    } else {
      // `Lock at /cache/…/Orc/ThreadSafeModule.h`: Julia always prints `:LINE` or
      // ` (unknown line)`, so the paste cut the line here.
      frame.file = detach(where);
      frame.incomplete = true;
    }
  }
  if (isJuliaLevel(name, frame.file)) frame.language = 'julia';
  return frame;
}

const LIBC = /(?:^|\/)(?:libc|libpthread)[.-]|(?:^|\/)libsystem_(?:kernel|pthread|c)\.dylib$/;

/**
 * Julia prints libc's unexported internals under a pthread call (the futex wait under
 * `pthread_mutex_lock`) as `unknown function (ip: 0x…)`, with no library; gdb prints the same
 * frame as `?? () from /usr/lib/libc.so.6`. A frame a libc function called at the top of the
 * stack is libc's own code: it gets that library, as gdb's reading would.
 */
function inLibc(top: Frame, caller: Frame): void {
  if (top.function === '??' && top.library === null && top.file === null && caller.library !== null && LIBC.test(caller.library)) top.library = caller.library;
}

/** A raw C++ symbol (`_ZN4llvm3orc18MaterializationTask3runEv`) as gdb prints it; other names as printed. */
function functionName(name: string): string {
  if (name.startsWith('_Z')) {
    const d = demangle(name);
    if (d !== null) return d;
  }
  return detach(name);
}

/** Julia-level code: a `.jl` file, the REPL, `macro expansion`, `top-level scope`. */
function isJuliaLevel(name: string, file: string | null): boolean {
  if (name === 'macro expansion' || name === 'top-level scope') return true;
  if (file === null) return false;
  return file.endsWith('.jl') || /^REPL\[\d+\]$/.test(file) || file === 'none';
}

/** A parked task's own identity: `7.task-2`, read as "task 2 of thread 7". */
function parkedTaskThread(task: JuliaTask): ThreadInfo {
  const owner = task.listedBy ?? 0;
  const gdbId = detach(`${owner}.task-${task.task}`);
  return { id: owner, gdbId, ptid: null, lwp: null, name: null, targetId: detach(`Julia task ${task.task === 'root' ? 'root' : task.task} (${task.address}) of thread ${owner}`), extra: null };
}

/**
 * Settles a task backtrace once its frames are read: running on thread `tid` (its stack is that
 * thread's, so the backtrace is Julia thread `tid`'s), or parked (its stack starts at a task
 * switch, or it has none): an identity of its own.
 */
export function settleJuliaTask(task: JuliaTask, frames: readonly Frame[]): ThreadInfo {
  const top = frames.slice(0, 3).some((f) => TASK_SWITCH.has(f.function));
  task.running = task.tid !== null && task.tid > 0 && frames.length > 0 && !top && task.state !== 1;
  if (!task.running) return parkedTaskThread(task);
  const tid = task.tid!;
  return { id: tid, gdbId: String(tid), ptid: null, lwp: null, name: null, targetId: detach(`Julia thread ${tid}, task ${task.task === 'root' ? 'root' : task.task} (${task.address})`), extra: null };
}
