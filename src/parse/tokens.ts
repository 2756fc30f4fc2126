/**
 * Line-shaped Chevrotain tokens: one token per logical line, its type the line's class. Lines are
 * classified by stage A (lines.ts) with custom, linear-time matchers, so the tokens carry no
 * regex pattern (`Lexer.NA`); word-sized tokens would lex several times slower (see the issue).
 * Each token's comment holds one real gdb sample line.
 */
import { createToken, Lexer, type TokenType } from './chevrotain.js';
import { Kind, type LogicalLine } from './lines.js';

/** `Thread 12 (Thread 0x7840dfe006c0 (LWP 45441) "julia"):` */
export const ThreadHeader = createToken({ name: 'ThreadHeader', pattern: Lexer.NA });
/** `#2  0x000078411d132fca in uv_cond_wait (cond=0x78411d52dfa0 <gc_threads_cond>, mutex=0x78411d52dfe0 <gc_threads_lock>) at src/unix/thread.c:883` */
export const FrameLine = createToken({ name: 'FrameLine', pattern: Lexer.NA });
/** `#0  __futex_abstimed_wait_common64 (…) at ./nptl/futex-internal.c:57` ⏎ `#1  0x00007f3c2e891e9b in __GI___futex_abstimed_wait_cancelable64 (…) at ./nptl/futex-internal.c:139` (consecutive frame lines with rising levels and nothing between them, as one token) */
export const FrameRun = createToken({ name: 'FrameRun', pattern: Lexer.NA });
/** `(More stack frames follow...)` */
export const MoreFramesFollow = createToken({ name: 'MoreFramesFollow', pattern: Lexer.NA });
/** `Backtrace stopped: previous frame identical to this frame (corrupt stack?)` */
export const BacktraceStopped = createToken({ name: 'BacktraceStopped', pattern: Lexer.NA });
/** `Quit` (printed after the user answered `q` at a pager prompt) */
export const QuitLine = createToken({ name: 'QuitLine', pattern: Lexer.NA });
/** `          (sticky: 1, started: 1, state: 0, tid: 7)` (a line Julia's task dump prints inside a backtrace; also `---- End task 2`, `in expression starting at REPL[4]:1`) */
export const MarkerLine = createToken({ name: 'MarkerLine', pattern: Lexer.NA });
/** `...` (a person cut frames out of the paste; also `[...]`, `<snip>`) */
export const ElisionMarker = createToken({ name: 'ElisionMarker', pattern: Lexer.NA });
/** `        i = 0` (a `bt full` local, 8 spaces and ` = `) */
export const LocalLine = createToken({ name: 'LocalLine', pattern: Lexer.NA });
/** `No locals.` / `No symbol table info available.` */
export const LocalsMarker = createToken({ name: 'LocalsMarker', pattern: Lexer.NA });
/** `(gdb) thread apply all bt` (also a bare print command: `p *(pthread_mutex_t *) 0x5555555580a0`) */
export const PromptLine = createToken({ name: 'PromptLine', pattern: Lexer.NA });
/** `$1 = {__data = {__lock = 2, __count = 0, __owner = 20496, __nusers = 1, __kind = 0, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\002\000\000\000\000\000\000\000\020P\000\000\001", '\000' <repeats 26 times>, __align = 2}` (any answer of `print`: also `$6 = 20595`, `$3 = (pthread_mutex_t *) 0x5555555580a0 <lock_b>`) */
export const PrintAnswer = createToken({ name: 'PrintAnswer', pattern: Lexer.NA });
/** `[Switching to thread 2 (Thread 0x7ffff7a00640 (LWP 5151))]` (also `[Current thread is 1 (…)]`, `Thread 1 "crashy" received signal SIGSEGV, Segmentation fault.`) */
export const ThreadSwitch = createToken({ name: 'ThreadSwitch', pattern: Lexer.NA });
/** `  2    Thread 0x7ffff7a00640 (LWP 5151) "worker"  __lll_lock_wait (futex=0x5555555580a0 <lock>, private=0) at lowlevellock.c:52` (a row of `info threads`) */
export const InfoThreadsRow = createToken({ name: 'InfoThreadsRow', pattern: Lexer.NA });
/** `14\t  std::lock_guard<std::mutex> hold_journal(journal); // blocks: audit holds journal` (gdb's source line after a selected frame or a stop; `57\t./nptl/futex-internal.c: No such file or directory.`) */
export const SourceLine = createToken({ name: 'SourceLine', pattern: Lexer.NA });
/** `rdi            0x7f8529449278      140209899737720` (a row of `info registers`) */
export const RegisterRow = createToken({ name: 'RegisterRow', pattern: Lexer.NA });
/** `` (an empty line; gdb prints one before every thread header) */
export const BlankLine = createToken({ name: 'BlankLine', pattern: Lexer.NA });
/** `[New LWP 45431]`, `warning: Unable to find libthread_db matching inferior's thread library, thread debugging will not be available.`, `--Type <RET> for more, q to quit, c to continue without paging--` */
export const NoiseLine = createToken({ name: 'NoiseLine', pattern: Lexer.NA });
/** `The thread triggering GC is holding the trampoline lock` (prose, and any other line) */
export const OtherLine = createToken({ name: 'OtherLine', pattern: Lexer.NA });

export const allTokens: TokenType[] = [
  ThreadHeader,
  FrameLine,
  FrameRun,
  MoreFramesFollow,
  BacktraceStopped,
  QuitLine,
  MarkerLine,
  ElisionMarker,
  LocalLine,
  LocalsMarker,
  PromptLine,
  PrintAnswer,
  ThreadSwitch,
  InfoThreadsRow,
  SourceLine,
  RegisterRow,
  BlankLine,
  NoiseLine,
  OtherLine,
];

/** The token type of a logical line. */
export function tokenTypeOf(line: LogicalLine): TokenType {
  switch (line.kind) {
    case Kind.Header:
      return ThreadHeader;
    case Kind.Frame:
      return FrameLine;
    case Kind.MoreFrames:
      return MoreFramesFollow;
    case Kind.Stopped:
      return BacktraceStopped;
    case Kind.Quit:
      return QuitLine;
    case Kind.Marker:
      return MarkerLine;
    case Kind.Elision:
      return ElisionMarker;
    case Kind.Local:
      return LocalLine;
    case Kind.LocalsMarker:
      return LocalsMarker;
    case Kind.Prompt:
      return PromptLine;
    case Kind.Print:
      return PrintAnswer;
    case Kind.Source:
      return SourceLine;
    case Kind.Register:
      return RegisterRow;
    case Kind.Switch:
      return ThreadSwitch;
    case Kind.ThreadRow:
      return InfoThreadsRow;
    case Kind.Blank:
      return BlankLine;
    case Kind.Noise:
      return NoiseLine;
    default:
      return OtherLine;
  }
}

/** Makes a logical line its own token: sets its token type. */
export function asToken(line: LogicalLine): LogicalLine {
  const type = tokenTypeOf(line);
  line.tokenType = type;
  line.tokenTypeIdx = type.tokenTypeIdx!;
  line.image = line.text;
  return line;
}
