/**
 * Stage A, part 2: physical lines → classified logical lines. Splits the streamed text into
 * physical lines (numbered from 1), normalises each (paste-cleanup.ts), rejoins what the pager or
 * gdb's own wrapping broke, and gives every logical line a class. Stage B (parser.ts) parses the
 * sequence of classes. Needs one line of lookahead, never more, so it streams.
 */
import type { IToken, TokenType } from 'chevrotain';
import type { ThreadInfo } from '../model/dump.js';
import { chunkNeedsWork, cleanLine, cleanLineResult, PagerEffect } from './paste-cleanup.js';
import { scanFrameBody, skipCharLiteral, skipString, type FrameBody } from './frame-body.js';
import { detach } from '../model/text-hygiene.js';
import { parseThreadHeader } from './thread-header.js';
import { parseLldbFrame, parseLldbThread } from './lldb.js';
import { JuliaLines, type JuliaRead } from './julia.js';
import type { JuliaTask } from '../model/dump.js';

/** Line classes; each is one Chevrotain token type in tokens.ts. */
export const enum Kind {
  Blank,
  Frame,
  Header,
  MoreFrames,
  Stopped,
  Quit,
  Elision,
  Local,
  LocalsMarker,
  Prompt,
  Print,
  Switch,
  ThreadRow,
  Source,
  Register,
  Noise,
  Other,
  /** A line a dialect prints inside a backtrace: Julia's `(sticky: 1, …)`, `---- End task 2`. */
  Marker,
}

/**
 * One logical line. It is also its own Chevrotain token (the IToken fields below), so no second
 * object is made per line.
 */
export interface LogicalLine extends IToken {
  kind: Kind;
  /** The normalised text; for joined lines the joined text. */
  text: string;
  /** 1-based number of the first physical line. */
  line: number;
  /** Further physical lines joined into this one, or null. */
  extra: number[] | null;
  /** The normalised text of each physical line, only for joined non-frame lines (for `ignored`). */
  parts: string[] | null;
  /** Frame level (Kind.Frame). */
  level: number;
  /** The frame read from the line (Kind.Frame); the builder completes it. */
  frame: FrameBody | null;
  /** Its unsplit argument text (Kind.Frame). */
  argsText: string | null;
  /** `argsText` holds no quote or bracket (see ArgsHolder). */
  argsPlain: boolean;
  /** Never join continuation lines into this line (LLDB frames are one line each). */
  noJoin: boolean;
  /** Thread header (Kind.Header). */
  thread: ThreadInfo | null;
  /** A Julia task header's task, or a task state marker's fields (julia.ts). */
  task: Partial<JuliaTask> | null;
  /** Local name / print or prompt command, depending on the kind. */
  name: string | null;
  /** Local value (Kind.Local). */
  value: string | null;
  /** Unclosed `{`/`(`/`[` depth of a local or print value still being joined. */
  open: number;
  /** A pager prompt on this line was answered with `q`. */
  quit: boolean;
  /**
   * The frame lines after this one when it heads a FrameRun token (index.ts): consecutive frame
   * lines with rising levels, parsed as one token; null otherwise.
   */
  run: LogicalLine[] | null;
}

/** Widths at which terminals hard-wrap a line with no indentation (gdb-format.md §2.5). */
const WRAP_WIDTHS = new Set([80, 100, 120, 132, 160, 200]);
/** A multi-line local or print value longer than this many lines is cut (bounded memory). */
const MAX_VALUE_LINES = 2000;
/**
 * A wrapped frame is re-scanned whole on each joined line, so joining is capped to keep the work
 * linear; lines past the cap are classified on their own (and listed as ignored when they are not
 * frames), the frame stays `incomplete`.
 */
const MAX_FRAME_LINES = 256;
/** Mid-line frame splits per physical line (each re-classifies the rest of the line). */
const MAX_MIDLINE_SPLITS = 16;
/** Notes about limits kept for the report (the `ignored` list still has every line). */
const MAX_CAP_NOTES = 20;

const FRAME_START = /^[ \t]*#(\d+)(?:[ \t]+|$)/;
// A local's name never starts with `$`: an indented `$1 = {…}` is a print answer.
const LOCAL = /^(?: {8,}|\t+)([^\s=$][^\s=]*) = (.*)$/;
const PROMPT = /^[ \t]*(?:\(gdb\)|\(rr\)|\(cuda-gdb\)|\(lldb\)|pwndbg>|gef➤)(?:[ \t]+(.*))?$/;
const PRINT_COMMAND = /^[ \t]*(?:p|print|output|call|inspect)(?:\/\w+)?[ \t]+\S/;
const PRINT_VALUE = /^[ \t]*\$\d+ = /;
const ELISION = /^[ \t]*(?:\.\.\.|\[\.\.\.\]|<snip>|\(snip\)|\[snip\]|…|\.\s\.\s\.)[ \t]*$/;
// `[Switching to thread 2 (Thread 0x7ffff7a00640 (LWP 5151))]`, `[Current thread is 1 (Thread 0x7fb6699b9bc0 (LWP 895))]`,
// `Thread 23 "thread_method" received signal SIGABRT, Aborted.`, `[Switching to Thread 0x7fff8f28d640 (LWP 1993136)]`.
// Flag `s`: `.` also matches U+2028/U+2029, so `.*$` cannot fail on them and backtrack (quadratic).
const SWITCH = /^[ \t]*(?:\[(?:Switching to thread|Current thread is) (\d+(?:\.\d+)?) \((.*)\)\](?: ?\(running\))?|\[Switching to (Thread .*|LWP \d+|process \d+)\]|Thread (\d+(?:\.\d+)?) "(.*)" (?:received signal|hit ).*)$/s;
// A frame glued to the line before it: `[Switching to thread 5 (…)]#0  0x… in __lll_lock_wait_private ()`.
const GLUED_FRAME = /^(\[Switching to thread [^\n]*?\])(#\d+\s.*)$/s; // `s`: see SWITCH
// A record starting mid-line after a failed pretty-printer: `…frame=#7  0x00005555555562ab in Tracker::run (…`.
const MIDLINE_FRAME = /[=(]#\d+ /;
// The source line gdb prints after a stop location or a selected frame: `57\t./nptl/futex-internal.c:
// No such file or directory.`, `14\t  std::lock_guard<std::mutex> hold_journal(journal);`.
const SOURCE_LINE = /^[ \t]*\d+\t/;
// The same pasted with its tab turned into spaces (`18  pthread_mutex_lock(&mutexB);`): only right after a frame line.
const SOURCE_LINE_SPACES = /^[ \t]*\d{1,7} {2,}\S/;
// A row of `info registers`: `rdi            0x7f8529449278      140209899737720`, `eflags         0x202               [ IF ]`.
const REGISTER_ROW = /^[ \t]*([a-z][a-z0-9_]{0,15})[ \t]+(0x[0-9a-fA-F]{1,32}|-?\d{1,20})(?:[ \t]+(\S.*))?$/s; // `s`: see SWITCH
const INFO_REGISTERS_COMMAND = /^(?:info|i)[ \t]+(?:r|re|reg|regi|regis|regist|registe|register|registers|all-registers)\b/;
// Session chatter that neither belongs to nor ends a backtrace.
const NOISE =
  /^[ \t]*(?:\[New (?:Thread|LWP|process|inferior)\b|\[Thread .* exited\b|\[Inferior \d+ .*\]|(?:\S{1,2} )?warning: |Python Exception <|Downloading |Download failed|Reading symbols from |\(No debugging symbols found|\[Thread debugging using libthread_db|Using host libthread_db|\x1a\x1a)/;

const NO_TOKEN_TYPE = { name: 'unset' } as TokenType;

function emptyLine(kind: Kind, text: string, line: number): LogicalLine {
  return {
    kind,
    text,
    line,
    extra: null,
    parts: null,
    level: -1,
    frame: null,
    argsText: null,
    argsPlain: false,
    noJoin: false,
    thread: null,
    task: null,
    name: null,
    value: null,
    open: 0,
    quit: false,
    run: null,
    image: text,
    startOffset: line,
    startLine: line,
    tokenTypeIdx: 0,
    tokenType: NO_TOKEN_TYPE,
  };
}

/** Net depth of `{ ( [` minus `} ) ]` in a value, outside string and char literals. */
function depthDelta(text: string, from: number): number {
  let depth = 0;
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34) i = skipString(text, i) - 1;
    else if (c === 39) {
      const end = skipCharLiteral(text, i);
      if (end > 0) i = end - 1;
    } else if (c === 123 || c === 40 || c === 91) depth++;
    else if (c === 125 || c === 41 || c === 93) depth--;
  }
  return depth;
}

/**
 * For `#N  body` with `#` at `hash`: where the body starts, or -1. The same test as FRAME_START
 * without allocating a match.
 */
function frameBodyStart(text: string, hash: number): number {
  const n = text.length;
  let j = hash + 1;
  while (j < n) {
    const d = text.charCodeAt(j);
    if (d < 48 || d > 57) break;
    j++;
  }
  if (j === hash + 1) return -1;
  if (j < n) {
    const sp = text.charCodeAt(j);
    if (sp !== 32 && sp !== 9) return -1;
    while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
  }
  return j;
}

/** Where the body of a frame line starts when `text` is one after its indent (`  #4  0x… in f ()`), or -1. */
function indentedFrameBody(text: string): number {
  let i = 0;
  while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  return i < text.length && text.charCodeAt(i) === 35 /* # */ ? frameBodyStart(text, i) : -1;
}

/**
 * A `#N  ` frame line whose body starts at `body`; N is read from the digits after the first `#`.
 * Its own small function, so the optimized LineReader.logical inlines it for the frame lines it
 * recognised after a frame (most lines of a dump) instead of calling classify, which is too large
 * to inline and is optimized later (~1.1 MB into the 30 MB bench dump against ~0.6 MB for logical).
 */
function frameLine(text: string, line: number, body: number, deferArgs: boolean): LogicalLine {
  const ll = emptyLine(Kind.Frame, text, line);
  let j = text.indexOf('#') + 1;
  let level = 0;
  for (; j < body; j++) {
    const d = text.charCodeAt(j);
    if (d < 48 || d > 57) break;
    level = level * 10 + (d - 48);
  }
  ll.level = level;
  ll.frame = scanFrameBody(text, body, ll, deferArgs);
  return ll;
}

/**
 * Classifies one normalised physical line. `deferArgs`: a gdb frame line's frame splits its
 * arguments when they are first read (DeferredFrame).
 */
export function classify(text: string, line: number, deferArgs = false): LogicalLine {
  let i = 0;
  const n = text.length;
  while (i < n && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
  if (i === n) return emptyLine(Kind.Blank, text, line);
  const c = text.charCodeAt(i);
  if (c === 35 /* # */) {
    const body = frameBodyStart(text, i);
    if (body > 0) return frameLine(text, line, body, deferArgs);
  }
  if (
    (c === 84 /* T */ && (text.startsWith('Thread ', i) || text.startsWith('Task ID ', i) || text.startsWith('TID ', i))) ||
    (c === 83 /* S */ && text.startsWith('Stack trace of thread ', i))
  ) {
    const thread = parseThreadHeader(text);
    if (thread !== null) {
      const ll = emptyLine(Kind.Header, text, line);
      ll.thread = thread;
      return ll;
    }
  }
  if (i >= 8 || (i > 0 && text.charCodeAt(0) === 9)) {
    const m = LOCAL.exec(text);
    if (m !== null) {
      const ll = emptyLine(Kind.Local, text, line);
      ll.name = m[1]!;
      ll.value = m[2]!;
      ll.open = Math.max(0, depthDelta(ll.value, 0));
      return ll;
    }
  }
  if (c === 42 /* * */ || c === 102 /* f */ || c === 116 /* t */) {
    const lldb = classifyLldb(text, line);
    if (lldb !== null) return lldb;
  }
  const t = i === 0 ? text : text.slice(i);
  switch (c) {
    case 40 /* ( */:
      if (t === '(More stack frames follow...)') return emptyLine(Kind.MoreFrames, text, line);
      break;
    case 66 /* B */:
      if (t.startsWith('Backtrace stopped: ')) return emptyLine(Kind.Stopped, text, line);
      break;
    case 80 /* P */:
      if (t === 'PC unavailable, cannot determine locals.') return emptyLine(Kind.LocalsMarker, text, line);
      if (t === 'Previous frame inner to this frame (corrupt stack?)' || t === 'Previous frame identical to this frame (corrupt stack?)') {
        return emptyLine(Kind.Stopped, text, line);
      }
      break;
    case 78 /* N */:
      if (t === 'No locals.' || t === 'No symbol table info available.') return emptyLine(Kind.LocalsMarker, text, line);
      break;
    case 81 /* Q */:
      if (t === 'Quit') return emptyLine(Kind.Quit, text, line);
      break;
    case 36 /* $ */:
      if (PRINT_VALUE.test(text)) {
        const ll = emptyLine(Kind.Print, text, line);
        ll.open = Math.max(0, depthDelta(text, 0));
        return ll;
      }
      break;
  }
  if (ELISION.test(text)) return emptyLine(Kind.Elision, text, line);
  if (c >= 48 && c <= 57 && SOURCE_LINE.test(text)) return emptyLine(Kind.Source, text, line);
  const sw = SWITCH.exec(text);
  if (sw !== null) {
    const ll = emptyLine(Kind.Switch, text, line);
    ll.thread = switchedThread(sw);
    return ll;
  }
  const prompt = PROMPT.exec(text);
  if (prompt !== null) {
    const ll = emptyLine(Kind.Prompt, text, line);
    ll.name = (prompt[1] ?? '').trim();
    return ll;
  }
  if (PRINT_COMMAND.test(text)) {
    const ll = emptyLine(Kind.Prompt, text, line);
    ll.name = text.trim();
    return ll;
  }
  if (NOISE.test(text)) return emptyLine(Kind.Noise, text, line);
  return emptyLine(Kind.Other, text, line);
}

// GDB/MI stream records: console `~"…"`, target `@"…"`, log and echoed commands `&"…"`.
const MI_RECORD = /^[~@&]".*"$/;

/** Undoes gdb's C-style escaping of MI strings (gdb/ui-file.c printchar). */
export function decodeMiString(body: string): string {
  if (!body.includes('\\')) return body;
  return body.replace(/\\(?:([0-7]{1,3})|(.))/g, (_m, octal: string | undefined, ch: string | undefined) => {
    if (octal !== undefined) return String.fromCharCode(parseInt(octal, 8));
    switch (ch) {
      case 'n':
        return '\n';
      case 't':
        return '\t';
      case 'r':
        return '';
      case 'e':
        return '\x1b';
      case 'a':
      case 'b':
      case 'f':
        return '';
      default:
        return ch ?? '';
    }
  });
}

// `info threads` (gdb-format.md §3.7): the column header, and one row per thread:
// `* 1    Thread 0x7ffff7d8a740 (LWP 5150) "app"     0x00007ffff7e8e7ed in __pthread_clockjoin_ex () from /lib/libc.so.6`
const INFO_THREADS_HEADER = /^[ \t]*Id[ \t]+Target[ \t]+Id[ \t]+Frame[ \t]*$/;
const INFO_THREADS_COMMAND = /^(?:info|i)[ \t]+th(?:r|re|rea|read|reads)?\b/;
const INFO_THREADS_ROW =
  /^[ \t]*(?:\*[ \t]+)?(\d+(?:\.\d+)?)[ \t]+((?:Thread 0x[0-9a-fA-F]+|Thread -?\d+) \((?:LWP|tid) \d+\)|Thread \d+(?:\.(?:0x)?[0-9a-fA-F]+)?|Thread 0x[0-9a-fA-F]+(?: of process \d+)?|LWP \d+(?: of process \d+)?|process \d+)(?:[ \t]+"(.*?)")?[ \t]+(.*)$/s;

/** An `info threads` row as a thread plus its current frame, or null. */
function classifyThreadRow(text: string, line: number): LogicalLine | null {
  const m = INFO_THREADS_ROW.exec(text);
  if (m === null) return null;
  const ll = emptyLine(Kind.ThreadRow, text, line);
  const gdbId = m[1]!;
  const target = m[2]!;
  const name = m[3] ?? null;
  const targetId = name === null ? target : `${target} "${name}"`;
  // The same target id a `Thread N (…):` header would show: read it the same way.
  ll.thread = parseThreadHeader(`Thread ${gdbId} (${targetId}):`) ?? { id: 0, gdbId: detach(gdbId), ptid: null, lwp: null, name: name === null ? null : detach(name), targetId: detach(targetId), extra: null };
  const body = m[4]!;
  // `(running)`, or a row the paste cut inside the thread name (`17   Thread 0x7f… (LWP 84) "po`):
  // no frame to read.
  if (body.trim() !== '(running)' && !body.startsWith('"')) {
    ll.level = 0;
    ll.frame = scanFrameBody(text, text.length - body.length, ll);
  }
  return ll;
}

/** LLDB `thread #N, …` headers and `frame #N: …` lines, or null. */
function classifyLldb(text: string, line: number): LogicalLine | null {
  if (text.includes('frame #')) {
    const ll = emptyLine(Kind.Frame, text, line);
    const frame = parseLldbFrame(text, ll);
    if (frame === null) return null;
    ll.frame = frame;
    ll.level = frame.level;
    ll.noJoin = true;
    return ll;
  }
  if (text.includes('thread #')) {
    const thread = parseLldbThread(text);
    if (thread === null) return null;
    const ll = emptyLine(Kind.Header, text, line);
    ll.thread = thread;
    return ll;
  }
  return null;
}

/** A line Julia's own dumps print (julia.ts), as a logical line. */
function juliaLine(read: JuliaRead, text: string, line: number): LogicalLine {
  switch (read.kind) {
    case 'frame': {
      const ll = emptyLine(Kind.Frame, text, line);
      ll.frame = read.frame;
      ll.level = read.level;
      ll.noJoin = true;
      // A line that may be a frame cut off by the end of the paste, or prose (see LineReader).
      if (read.cut) ll.name = JULIA_CUT;
      return ll;
    }
    case 'task': {
      const ll = emptyLine(Kind.Header, text, line);
      ll.thread = read.thread;
      ll.task = read.task;
      return ll;
    }
    case 'marker': {
      const ll = emptyLine(Kind.Marker, text, line);
      ll.task = read.task;
      return ll;
    }
    case 'noise':
      return emptyLine(Kind.Noise, text, line);
  }
}

/** `LogicalLine.name` of a Julia line that is a frame only if nothing follows it. */
const JULIA_CUT = 'julia-cut';
/** `#1 at …`, `#251#threadsfor_fun at …`: a gdb frame has its pc or function after the level. */
const JULIA_HASH_FRAME = /^[ \t]*#\S* at \S/;

/** Where a second frame record starts inside a frame line (after `=` or `(`), or -1. */
function midlineFrame(text: string): number {
  // From the second character: a frame record at the start is the line itself.
  const at = text.slice(1).search(MIDLINE_FRAME);
  return at < 0 ? -1 : at + 2;
}

/** The thread a switch or stop line names (only the fields it shows). */
function switchedThread(m: RegExpExecArray): ThreadInfo {
  const info: ThreadInfo = { id: 0, gdbId: '', ptid: null, lwp: null, name: null, targetId: '', extra: null };
  const gdbId = m[1] ?? m[4];
  if (gdbId !== undefined) {
    info.gdbId = detach(gdbId);
    info.id = Number(gdbId.includes('.') ? gdbId.slice(gdbId.indexOf('.') + 1) : gdbId);
  }
  // Kept by every backtrace that follows the switch: detached from the input chunk.
  const target = detach(m[2] ?? m[3] ?? '');
  info.targetId = target;
  if (m[5] !== undefined) info.name = detach(m[5]);
  const ptid = /^Thread (0x[0-9a-fA-F]+)/.exec(target);
  if (ptid) info.ptid = ptid[1]!.toLowerCase();
  const lwp = /(?:LWP|process) (\d+)/.exec(target);
  if (lwp) info.lwp = Number(lwp[1]);
  return info;
}

function reclassifyAsOther(ll: LogicalLine): void {
  ll.kind = Kind.Other;
  ll.frame = null;
  ll.level = -1;
  ll.name = null;
}

function startsRecord(text: string): boolean {
  return FRAME_START.test(text) || /^\s*Thread \d+(?:\.\d+)? \(/.test(text);
}

// ---------------------------------------------------------------------------------------------
// The reader's states, in the manner of panicparse's scanner: each names what the reader holds
// between lines, with a real line that puts it there and the states the next lines take it to.
// Three machines run side by side: how lines end (Endings), which logical line is held open for
// its continuation (Open), and which gdb answer the lines belong to (Section). A line the pager
// cut is held apart (LineReader.cut) until its rest arrives.

/** How physical lines end, decided from the first line end seen. */
const enum Endings {
  /**
   * No line end seen yet: text is held whole. `Thread 1 (Thread 0x7ffff7d8a740 (LWP 5150) "app"):`
   * with no newline so far → Lf at the first `\n`; Cr when more than 64 KiB hold a `\r` and no
   * `\n`, or at the end of input that holds one (classic Mac text).
   */
  Unknown,
  /** `\n` ends lines (a `\r` before it is cleaned off with the line). Final. */
  Lf,
  /** `\r` alone ends lines. Final. */
  Cr,
}

/** The logical line held open because the next physical lines may continue it. */
const enum Open {
  /**
   * Nothing held: the last line was complete and went out.
   * `Thread 3 (Thread 0x7ffff6ffe640 (LWP 4713) "worker-b"):` → Frame (a frame line), Value (a
   * local or print value with open brackets), Row (an `info threads` row), Nothing (any other).
   */
  Nothing,
  /**
   * A frame line, whose arguments or location gdb or the terminal may have wrapped.
   * `#3  0x0000555555555236 in worker_b (arg=0x0,` ⏎ `    lock=0x555555558040) at abba.c:20`
   * → Frame (the line joined in, or the next `#4` frame line), Value, Row, Nothing.
   */
  Frame,
  /**
   * A `bt full` local or a `print` answer whose `{ ( [` are not all closed yet.
   * `        m = {__data = {__lock = 2, __count = 0, __owner = 4712,` → Value (joined, still
   * open), Nothing (closed, or a new record starts, or the value ran over MAX_VALUE_LINES).
   */
  Value,
  /**
   * An `info threads` row, whose frame may wrap onto an indented `from LIB` / `at FILE:LINE`.
   * `  2    Thread 1077942624 (LWP 10954) 0x0000002a95673f3b in __lll_mutex_lock_wait ()` ⏎
   * `    from /lib64/tls/libpthread.so.0` → Row (that line joined in), Nothing (any other line).
   */
  Row,
}

/** The gdb answer the lines belong to, for lines that read differently inside one. */
const enum Section {
  /** Backtraces, transcripts, anything else. `(gdb) thread apply all bt` → Threads, Registers, Lines. */
  Lines,
  /**
   * An `info threads` table: after its command `(gdb) info threads` or its column header
   * `  Id   Target Id                                   Frame`, a line such as
   * `* 1    Thread 0x7ffff7d8a740 (LWP 5150) "app" 0x00007ffff7e8e7ed in __pthread_clockjoin_ex () from /lib/libc.so.6`
   * is a thread row. → Threads (rows, blank lines, noise), Registers / Lines (a prompt, any other line).
   */
  Threads,
  /**
   * An `info registers` answer, after `(gdb) info registers`: `rdi            0x7f8529449278      140209899737720`
   * is a register row. → Registers (rows, blank lines, noise), Threads / Lines (a prompt, any other line).
   */
  Registers,
}

/** The section a prompt line (`(gdb) info threads`, its command in `name`) opens. */
function sectionOfCommand(command: string): Section {
  if (INFO_REGISTERS_COMMAND.test(command)) return Section.Registers;
  if (INFO_THREADS_COMMAND.test(command)) return Section.Threads;
  return Section.Lines;
}

/**
 * Streams text into logical lines. `push` any chunks (boundaries anywhere: mid-line, mid-CRLF,
 * mid-prompt); `end` flushes. Lines are handed to `emit` in input order.
 */
export class LineReader {
  /** Physical lines seen so far. */
  lines = 0;
  /** The input ended without a final line terminator. */
  endedMidLine = false;
  /** Text after the last line end, in the pieces it arrived in. */
  private pending: string[] = [];
  private pendingLength = 0;
  private endings = Endings.Unknown;
  /** The text being split holds nothing but plain lines (see chunkNeedsWork). */
  private chunkClean = false;
  /** cleanLine's answer for the current physical line (one object, rewritten per line). */
  private readonly cleaned = cleanLineResult();
  /**
   * A line the pager cut, waiting for its rest on the next physical line:
   * `#5  0x00007f… in start_thread (arg=--Type <RET> for more, q to quit, c to continue without paging--`
   * ⏎ `0x7f…) at ./nptl/pthread_create.c:442` is one frame line. Null when no line is cut.
   */
  private cut: { text: string; line: number; extra: number[]; parts: string[] } | null = null;
  /** What is held open, and the line itself (`cur`, null for Open.Nothing). */
  private holding = Open.Nothing;
  private cur: LogicalLine | null = null;
  /** Length of the last physical line added to `cur` (terminal hard-wrap detection). */
  private curLastLength = 0;
  private section = Section.Lines;
  /** Mid-line frame splits made in the current physical line (capped: MAX_MIDLINE_SPLITS). */
  private midlineSplits = 0;
  /** Limits applied, as sentences for the report (Dump.capped); at most MAX_CAP_NOTES kept. */
  readonly capped: string[] = [];
  private cappedMore = 0;

  private cap(note: string): void {
    if (this.capped.length < MAX_CAP_NOTES) this.capped.push(note);
    else if (++this.cappedMore === 1) this.capped.push('More limits were applied further on; `waitgraph parse` lists every line that was read on its own.');
  }
  /** Julia's own dumps: where a Julia block is open (julia.ts). */
  private readonly julia = new JuliaLines();

  /**
   * `deferArgs`: gdb frame lines get DeferredFrame frames (the parser sets it when it drops
   * frames after handing them out).
   */
  constructor(
    private readonly emit: (line: LogicalLine) => void,
    private readonly deferArgs = false,
  ) {}

  /** A noise line emitted at once, even while `cur` waits for its continuation. */
  private noise(line: number, text: string, quit: boolean): void {
    const ll = emptyLine(Kind.Noise, text, line);
    ll.quit = quit;
    this.emit(ll);
  }

  push(chunk: string): void {
    if (chunk.length === 0) return;
    if (this.endings === Endings.Unknown) {
      if (chunk.includes('\n')) this.endings = Endings.Lf;
      else if (this.pendingLength + chunk.length > 65536 && (chunk.includes('\r') || this.pending.some((p) => p.includes('\r')))) this.endings = Endings.Cr;
    }
    const sep = this.endings === Endings.Cr ? '\r' : '\n';
    if (this.endings === Endings.Unknown || !chunk.includes(sep)) {
      // No line ends here: keep the piece (joining now would copy a long line once per chunk).
      this.pending.push(chunk);
      this.pendingLength += chunk.length;
      return;
    }
    let from = 0;
    if (this.pending.length > 0) {
      // The line the previous chunk left unfinished ends here: join only that line, never the
      // whole chunk (a copy of every chunk was ~5% of the parse time on the 30 MB bench dump).
      const nl = chunk.indexOf(sep);
      this.pending.push(chunk.slice(0, nl));
      const first = this.pending.join('');
      this.pending = [];
      this.pendingLength = 0;
      // The clean check only ever skips work for text that holds no trigger: any text around the
      // line gives the same answer for it (see chunkNeedsWork).
      this.chunkClean = !chunkNeedsWork(first);
      this.physical(first);
      from = nl + 1;
    }
    this.chunkClean = !chunkNeedsWork(chunk);
    const start = this.splitLines(chunk, sep, from);
    if (start < chunk.length) {
      this.pending.push(chunk.slice(start));
      this.pendingLength = chunk.length - start;
    }
  }

  /**
   * Hands every complete line of `buf` to `physical`; returns where the unfinished rest starts.
   * A method of its own (not a loop inside `push`) so V8 optimizes it as a whole function rather
   * than on-stack-replacing `push`, which kept deoptimizing as string representations changed.
   */
  private splitLines(buf: string, sep: string, from: number): number {
    let start = from;
    for (;;) {
      const nl = buf.indexOf(sep, start);
      if (nl < 0) return start;
      this.physical(buf.slice(start, nl));
      start = nl + 1;
    }
  }

  end(): void {
    let rest = this.pending.join('');
    this.pending = [];
    this.pendingLength = 0;
    if (this.endings === Endings.Unknown && rest.includes('\r')) {
      // Classic-Mac input: CR alone ends lines.
      this.endings = Endings.Cr;
      this.push(rest);
      rest = this.pending.join('');
      this.pending = [];
    }
    if (rest.length > 0) {
      this.chunkClean = false;
      this.endedMidLine = true;
      this.physical(rest);
    }
    if (this.cut !== null) {
      const cut = this.cut;
      this.cut = null;
      this.logical(cut.text, cut.line, cut.extra.length ? cut.extra : null, cut.parts.length > 1 ? cut.parts : null, false);
    }
    this.release();
  }

  /** Holds `ll` open (state `open`) for the lines that may continue it. */
  private hold(open: Open, ll: LogicalLine): void {
    this.holding = open;
    this.cur = ll;
  }

  /** Hands out the line held open, if any: Open.Nothing. */
  private release(): void {
    const cur = this.cur;
    this.holding = Open.Nothing;
    this.cur = null;
    if (cur !== null) this.emit(cur);
  }

  private physical(raw: string): void {
    const line = ++this.lines;
    this.midlineSplits = 0;
    const clean = cleanLine(raw, this.chunkClean, this.cleaned);
    if (clean.pager === PagerEffect.WholeLine) {
      this.noise(line, clean.pagerText ?? clean.text, clean.quit);
      return;
    }
    let text = clean.text;
    if (this.cut !== null) {
      const cut = this.cut;
      this.cut = null;
      if (startsRecord(text)) {
        this.logical(cut.text, cut.line, cut.extra.length ? cut.extra : null, cut.parts.length > 1 ? cut.parts : null, false);
      } else {
        cut.extra.push(line);
        cut.parts.push(text);
        text = cut.text + text;
        if (clean.pager === PagerEffect.CutLine) {
          this.cut = { text, line: cut.line, extra: cut.extra, parts: cut.parts };
          return;
        }
        this.logical(text, cut.line, cut.extra, cut.parts, clean.quit);
        return;
      }
    }
    if (clean.pager === PagerEffect.CutLine) {
      this.cut = { text, line, extra: [], parts: [text] };
      return;
    }
    // Lengths are tested before charCodeAt past the end (NaN): optimized code that met an
    // out-of-bounds read deoptimizes and warms up again (blank lines reach it in the first
    // hundred lines of a dump). Same below and in paste-cleanup.ts needsWork.
    if (text.length > 1 && text.charCodeAt(1) === 34 /* " */ && MI_RECORD.test(text)) {
      // A GDB/MI console record (`~"#1  0x… in main () at t.c:9\n"`): decode, then read as CLI text.
      const pieces = decodeMiString(text.slice(2, -1)).replace(/\n$/, '').split('\n');
      for (const piece of pieces) this.logical(piece.trimEnd(), line, null, null, false);
      return;
    }
    this.logical(text, line, null, null, clean.quit);
  }

  /** One normalised physical line (or a pager-rejoined pair): join with `cur` or start a new one. */
  private logical(text: string, line: number, extra: number[] | null, parts: string[] | null, quit: boolean): void {
    if (text.length > 0 && text.charCodeAt(0) === 91 /* [ */ && text.includes(']#')) {
      const glued = GLUED_FRAME.exec(text);
      if (glued !== null) {
        this.logical(glued[1]!, line, null, null, false);
        this.logical(glued[2]!, line, extra, parts, quit);
        return;
      }
    }
    const cur = this.cur;
    // The line after a frame is most often the next frame: recognised here, it skips classify
    // (and tryJoin: a frame line never continues the one before it).
    const frameBody = this.holding === Open.Frame && !(cur as LogicalLine).noJoin ? indentedFrameBody(text) : -1;
    if (cur !== null && frameBody < 0 && this.tryJoin(cur, text, line, extra)) return;
    if (cur !== null) {
      // A Julia line that would be a cut-off last frame: a line follows, so it is prose.
      if (cur.name === JULIA_CUT) reclassifyAsOther(cur);
      this.release();
    }
    let ll = frameBody > 0 ? frameLine(text, line, frameBody, this.deferArgs) : classify(text, line, this.deferArgs);
    // Julia's own dumps (julia.ts): prose to gdb's reading; and a Julia closure frame in a Julia
    // block (`#1 at ./threadingconstructs.jl:129`), which gdb's reading takes for frame #1.
    if (ll.kind === Kind.Other || (ll.kind === Kind.Frame && this.julia.isActive() && JULIA_HASH_FRAME.test(text))) {
      const julia = this.julia.read(text);
      if (julia !== null) ll = juliaLine(julia, text, line);
    } else this.julia.saw(ll.kind === Kind.Elision ? 'elision' : ll.kind === Kind.Blank ? 'blank' : 'other');
    if (ll.kind === Kind.Frame && !ll.noJoin && ll.frame!.incomplete && text.includes('#', 1)) {
      const split = this.midlineSplits < MAX_MIDLINE_SPLITS ? midlineFrame(text) : -1;
      if (this.midlineSplits === MAX_MIDLINE_SPLITS && midlineFrame(text) > 0) {
        this.midlineSplits++;
        this.cap(`Line ${line} holds more than ${MAX_MIDLINE_SPLITS} frames; the rest of the line is read as one frame.`);
      }
      if (split > 0) {
        this.midlineSplits++;
        this.logical(text.slice(0, split), line, null, null, false);
        this.logical(text.slice(split), line, extra, parts, quit);
        return;
      }
    }
    ll.extra = extra;
    ll.parts = parts;
    ll.quit = quit;
    this.curLastLength = text.length;
    if (ll.kind === Kind.Other) {
      if (cur !== null && cur.kind === Kind.Frame && SOURCE_LINE_SPACES.test(text)) ll.kind = Kind.Source;
      else if (this.section === Section.Registers) {
        const reg = REGISTER_ROW.exec(text);
        if (reg !== null) {
          ll.kind = Kind.Register;
          ll.name = reg[1]!;
          ll.value = reg[2]!;
        }
      }
    }
    if (this.section === Section.Threads && ll.kind === Kind.Other) {
      const row = classifyThreadRow(text, line);
      if (row !== null) {
        row.extra = extra;
        row.parts = parts;
        this.hold(Open.Row, row);
        return;
      }
    }
    // Blank lines and noise keep the section; a register row keeps Registers.
    if (ll.kind === Kind.Prompt) this.section = sectionOfCommand(ll.name ?? '');
    else if (ll.kind === Kind.Other && INFO_THREADS_HEADER.test(text)) this.section = Section.Threads;
    else if (ll.kind !== Kind.Blank && ll.kind !== Kind.Noise && ll.kind !== Kind.Register) this.section = Section.Lines;
    if (ll.kind === Kind.Frame) this.hold(Open.Frame, ll);
    else if ((ll.kind === Kind.Local || ll.kind === Kind.Print) && ll.open > 0) this.hold(Open.Value, ll);
    else this.emit(ll);
  }

  /**
   * Joins `text` into `cur` when it continues it (gdb-format.md §2.5); true when joined. A frame
   * line is never offered while a frame is open (logical reads it as the next frame).
   */
  private tryJoin(cur: LogicalLine, text: string, line: number, extra: number[] | null): boolean {
    switch (this.holding) {
      case Open.Row:
        return this.joinRow(cur, text, line, extra);
      case Open.Frame:
        return this.joinFrameLine(cur, text, line, extra);
      case Open.Value:
        return this.joinValue(cur, text, line, extra);
      case Open.Nothing:
        return false;
    }
  }

  private joinRow(cur: LogicalLine, text: string, line: number, extra: number[] | null): boolean {
    // A row's frame wraps like a frame line: `   2 Thread 1077942624 (LWP 10954)  0x… in __lll_mutex_lock_wait ()` ⏎ `    from /lib64/tls/libpthread.so.0`.
    const frame = cur.frame;
    const t = text.trimStart();
    if (frame === null || t.length === text.length || frame.file !== null || frame.library !== null) return false;
    if (!(t.startsWith('at ') || t.startsWith('from '))) return false;
    (cur.extra ??= []).push(line);
    if (extra) cur.extra.push(...extra);
    cur.text = `${cur.text} ${t}`;
    cur.image = cur.text;
    const row = classifyThreadRow(cur.text, cur.line);
    if (row !== null) {
      cur.frame = row.frame;
      cur.argsText = row.argsText;
      cur.argsPlain = row.argsPlain;
    }
    return true;
  }

  private joinFrameLine(cur: LogicalLine, text: string, line: number, extra: number[] | null): boolean {
    if (cur.noJoin) return false;
    const frame = cur.frame!;
    let i = 0;
    while (i < text.length && (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9)) i++;
    if (i === text.length) return false;
    const t = i === 0 ? text : text.slice(i);
    if (frame.incomplete && cur.extra?.length === MAX_FRAME_LINES) {
      this.cap(`The frame at line ${cur.line} is wrapped over more than ${MAX_FRAME_LINES} lines; it is read as cut there, and the lines after it on their own.`);
    }
    if (frame.incomplete && (cur.extra?.length ?? 0) < MAX_FRAME_LINES) {
      if (t.startsWith('Python Exception <')) {
        // stderr noise printed between a frame's name and its `(args…` continuation.
        this.noise(line, text, false);
        return true;
      }
      const hardWrap = i === 0 && WRAP_WIDTHS.has(this.curLastLength) && !startsRecord(text);
      if (i === 0 && !hardWrap) return false;
      const prev = cur.text;
      const sep = hardWrap || prev.endsWith('(') ? '' : ' ';
      this.joinFrame(cur, prev + sep + (hardWrap ? text : t), line, extra, text.length);
      return true;
    }
    if (i > 0 && frame.file === null && frame.library === null && frame.kind === 'normal' && (t.startsWith('at ') || t.startsWith('from '))) {
      this.joinFrame(cur, `${cur.text} ${t}`, line, extra, text.length);
      return true;
    }
    return false;
  }

  private joinValue(cur: LogicalLine, text: string, line: number, extra: number[] | null): boolean {
    if (cur.open <= 0 || startsRecord(text)) return false;
    const count = (cur.extra?.length ?? 0) + 1;
    if (count >= MAX_VALUE_LINES) {
      this.cap(`The value at line ${cur.line} runs over ${MAX_VALUE_LINES.toLocaleString('en')} lines; it is cut there, and the lines after it are read on their own.`);
      return false;
    }
    (cur.extra ??= []).push(line);
    if (extra) cur.extra.push(...extra);
    (cur.parts ??= [cur.text]).push(text);
    const t = text.trim();
    if (cur.kind === Kind.Local) cur.value = `${cur.value}\n${t}`;
    cur.text = cur.kind === Kind.Local ? `${cur.text}\n${text}` : `${cur.text} ${t}`;
    cur.open += depthDelta(t, 0);
    if (cur.open <= 0) this.release();
    return true;
  }

  private joinFrame(cur: LogicalLine, joined: string, line: number, extra: number[] | null, length: number): void {
    (cur.extra ??= []).push(line);
    if (extra) cur.extra.push(...extra);
    cur.text = joined;
    cur.image = joined;
    const m = FRAME_START.exec(joined);
    cur.frame = scanFrameBody(joined, m ? m[0].length : 0, cur, this.deferArgs);
    this.curLastLength = length;
  }
}
