/**
 * The inside of a frame line, after `#N  `: a deterministic left-to-right scanner (gdb-format.md
 * §3.3.4) in linear time, with no backtracking regular expression. Function names contain
 * parentheses, spaces and `<`/`>` (`std::function<void ()>::operator()`, `(anonymous namespace)`,
 * `foo(int) [clone .cold]`), so the argument list is the first depth-0 ` (` group whose closing
 * `)` is followed by the end of the line, ` at …` or ` from …`.
 */
import type { Frame, FrameArg, FrameKind } from '../model/dump.js';

/**
 * What the scanner reads is the model's Frame itself (so no second object is made per line);
 * `level`, `sourceLine` and `args` are filled in by the builder. `incomplete`: the argument list
 * never closed (a cut paste, or a line still waiting for its continuation).
 */
export type FrameBody = Frame;

/** Receives the unsplit argument text of a scanned frame (null: no argument list found). */
export interface ArgsHolder {
  argsText: string | null;
  /** `argsText` holds no quote or bracket (only `, ` can split it): splitArgs may skip its scan. */
  argsPlain: boolean;
}

/** Placeholder until the builder splits the argument text; never handed out. */
const NO_ARGS = Object.freeze([]) as unknown as FrameArg[];

const SPECIAL_FRAMES: ReadonlyArray<readonly [string, FrameKind]> = [
  ['<signal handler called>', 'sigtramp'],
  ['<function called from gdb>', 'dummy'],
  ['<cross-architecture call>', 'arch'],
];

/**
 * The characters that matter to bracket matching: quotes and brackets (global: used with lastIndex).
 * A plain charCode loop over a lookup table was measured instead: ~20% slower on the bench's frame
 * lines, since the native scan between brackets outweighs the cost of one `test` call per bracket.
 */
const STRUCTURAL = /["'(){}[\]]/g;
/** The same plus the argument separator. */
const ARG_STRUCTURAL = /["'(){}[\],]/g;

const CH_SPACE = 32;
const CH_QUOTE = 34;
const CH_APOS = 39;
const CH_LPAREN = 40;
const CH_RPAREN = 41;
const CH_LBRACK = 91;
const CH_RBRACK = 93;
const CH_LBRACE = 123;
const CH_RBRACE = 125;
const CH_BACKSLASH = 92;

function isHex(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 97 && c <= 102) || (c >= 65 && c <= 70);
}

/** Index just past a `"…"` literal that starts at `i` (backslash escapes honoured), or `s.length`. */
export function skipString(s: string, i: number): number {
  let from = i + 1;
  for (;;) {
    const q = s.indexOf('"', from);
    if (q < 0) return s.length;
    // The quote is escaped when an odd number of backslashes precede it.
    let b = q - 1;
    while (b > i && s.charCodeAt(b) === CH_BACKSLASH) b--;
    if ((q - 1 - b) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

/**
 * Index just past a char literal at `i` (`'('`, `'\''`, `'\000'`, `'\x1b'`), or -1 when the quote
 * does not open a full literal (Rust lifetimes `'a`, apostrophes in prose).
 */
export function skipCharLiteral(s: string, i: number): number {
  const n = s.length;
  let j = i + 1;
  if (j >= n) return -1;
  const c = s.charCodeAt(j);
  if (c === CH_APOS) return -1;
  if (c === CH_BACKSLASH) {
    j++;
    if (j >= n) return -1;
    const e = s.charCodeAt(j);
    if (e >= 48 && e <= 55) {
      let k = 0;
      while (k < 3 && j < n && s.charCodeAt(j) >= 48 && s.charCodeAt(j) <= 55) {
        j++;
        k++;
      }
    } else if (e === 120 /* x */ && j + 1 < n && isHex(s.charCodeAt(j + 1))) {
      j++;
      while (j < n && isHex(s.charCodeAt(j))) j++;
    } else {
      j++;
    }
  } else {
    // One UTF-16 unit, or a surrogate pair.
    j += c >= 0xd800 && c <= 0xdbff ? 2 : 1;
  }
  return j < n && s.charCodeAt(j) === CH_APOS ? j + 1 : -1;
}

/**
 * Reads `0x…[ [PAC]] in ` (or `<unavailable> in `) at `from`. Sets `result.pc`/`pcFlags` and
 * returns where the name starts; returns `-(end + 1)` for a pc with no ` in ` after it
 * (eu-stack, systemd-coredump) and `from` when there is no pc.
 */
function readPc(s: string, from: number, result: FrameBody): number {
  // The common form, lower-case hex and ` in `, matched natively: a char loop here ran
  // interpreted for the first tens of thousands of frames of a cold start.
  if (s.charCodeAt(from) === 48 /* 0 */) {
    PC_IN.lastIndex = from;
    if (PC_IN.test(s)) {
      const end = PC_IN.lastIndex;
      result.pc = s.slice(from, end - 4);
      return end;
    }
  }
  const n = s.length;
  let i = from;
  let pc: string;
  if (s.charCodeAt(i) === 48 && s.charCodeAt(i + 1) === 120 /* 0x */) {
    i += 2;
    let upper = false;
    while (i < n) {
      const c = s.charCodeAt(i);
      if ((c >= 48 && c <= 57) || (c >= 97 && c <= 102)) i++;
      else if (c >= 65 && c <= 70) {
        upper = true;
        i++;
      } else break;
    }
    if (i === from + 2) return from;
    pc = s.slice(from, i);
    if (upper) pc = pc.toLowerCase();
  } else if (s.charCodeAt(i) === 60 /* < */ && s.startsWith('<unavailable>', i)) {
    i += '<unavailable>'.length;
    pc = '<unavailable>';
  } else {
    return from;
  }
  let flags: string[] | null = null;
  if (s.charCodeAt(i) === CH_SPACE && s.charCodeAt(i + 1) === CH_LBRACK) {
    const close = s.indexOf(']', i + 2);
    if (close > 0) {
      flags = s.slice(i + 2, close).split(/[ ,]+/).filter(Boolean);
      i = close + 1;
    }
  }
  if (s.startsWith(' in ', i)) {
    result.pc = pc;
    if (flags !== null) result.pcFlags = flags;
    return i + 4;
  }
  // eu-stack / systemd-coredump forms print the pc and a symbol with no ` in `.
  if (s.charCodeAt(i) === CH_SPACE || i === n) {
    result.pc = pc;
    if (flags !== null) result.pcFlags = flags;
    return -i - 1;
  }
  return from;
}

/** `0x00007f3c2e891e9b in ` (sticky; readPc's general path handles upper case, flags and the rest). */
const PC_IN = /0x[0-9a-f]+ in /y;

/** Whether the text after an argument list's `)` is a valid frame tail. */
function acceptsTail(s: string, close: number): boolean {
  const n = s.length;
  if (close + 1 >= n) return true;
  if (isAt(s, close + 1)) return n > close + 5;
  if (isFrom(s, close + 1)) return n > close + 7;
  return false;
}

// `s.startsWith(' at ', i)` and `s.startsWith(' from ', i)` by char codes: a builtin call per
// frame was ~3% of the parse time; compares inline.
function isAt(s: string, i: number): boolean {
  return s.charCodeAt(i) === CH_SPACE && s.charCodeAt(i + 1) === 97 && s.charCodeAt(i + 2) === 116 && s.charCodeAt(i + 3) === CH_SPACE;
}

function isFrom(s: string, i: number): boolean {
  return (
    s.charCodeAt(i) === CH_SPACE &&
    s.charCodeAt(i + 1) === 102 &&
    s.charCodeAt(i + 2) === 114 &&
    s.charCodeAt(i + 3) === 111 &&
    s.charCodeAt(i + 4) === 109 &&
    s.charCodeAt(i + 5) === CH_SPACE
  );
}

function applyTail(result: FrameBody, s: string, from: number): void {
  if (from >= s.length) return;
  if (isFrom(s, from)) {
    result.library = s.slice(from + 6);
    return;
  }
  // ` at FILE:LINE`, split at the last `:` so `C:\…` and `D://…` stay whole; no `:N` → library.
  // Indexes into `s` rather than a sliced copy of the location: one string less per frame.
  const at = from + 4;
  const n = s.length;
  // The last `:` after `at`, by char codes: `lastIndexOf` is a runtime call in V8, ~5 ms of the
  // 30 MB bench dump; the line number is a few characters from the end. A `:` at or before `at`
  // counts as none, as it did with lastIndexOf.
  let colon = n - 1;
  while (colon > at && s.charCodeAt(colon) !== 58 /* : */) colon--;
  if (colon > at && colon < n - 1) {
    let allDigits = true;
    let line = 0;
    for (let k = colon + 1; k < n; k++) {
      const c = s.charCodeAt(k);
      if (c < 48 || c > 57) {
        allDigits = false;
        break;
      }
      line = line * 10 + (c - 48);
    }
    if (allDigits) {
      result.file = s.slice(at, colon);
      // Summed digits are exact below 2^53; longer runs go through Number() as before.
      result.line = n - colon - 1 <= 15 ? line : Number(s.slice(colon + 1));
      return;
    }
  }
  result.library = s.slice(at);
}

function specialFrame(s: string, at: number): readonly [string, FrameKind] | null {
  if (s.charCodeAt(at) !== 60 /* < */) return null;
  for (const entry of SPECIAL_FRAMES) if (s.startsWith(entry[0], at)) return entry;
  return null;
}

/**
 * A frame with only its level and function set: the one object shape every frame starts from (gdb
 * and LLDB lines alike), so frames stay monomorphic. `args` is a shared placeholder: the builder
 * replaces it, never pushes into it.
 */
export function emptyFrame(level: number, fn: string): FrameBody {
  return {
    level,
    pc: null,
    function: fn,
    args: NO_ARGS,
    file: null,
    line: null,
    library: null,
    inlined: false,
    kind: 'normal',
    incomplete: false,
    sourceLine: 0,
  };
}

/**
 * A frame whose argument list is split, and whose ` at FILE:LINE` / ` from LIB` tail is read, the
 * first time something reads them: the parser makes these only when it drops frames after
 * `onBacktrace` (keepFrames false, the CLI's usual mode), where the rules read the arguments of
 * few frames (30 MB bench dump: ~21,000 reads of 240,000 frames; splitting them all was ~30 ms of
 * the parse plus the garbage of their pieces) and the file or library of the frames their
 * conditions name and of the sites they report (reading every tail was ~20 ms).
 *
 * It reads as the plain Frame it stands for: `args`, `file`, `line` and `library` are accessors
 * on the prototype (per-object `defineProperty` getters were tried: ~1 µs a frame), and `toJSON`
 * gives the plain Frame with its keys in the same order, so `JSON.stringify` is unchanged.
 */
export class DeferredFrame implements Frame {
  level = -1;
  pc: string | null = null;
  function = '';
  inlined = false;
  kind: FrameKind = 'normal';
  incomplete = false;
  sourceLine = 0;
  declare pcFlags?: string[];
  declare continuationLines?: number[];
  declare locals?: Frame['locals'];
  /** The unsplit argument text (null: no argument list), until `args` is first read. */
  private argsText: string | null = null;
  private argsPlain = false;
  private argList: FrameArg[] | null = null;
  /** The line whose tail (from `tailFrom`) is still to be read; null once read or when there is none. */
  private tailLine: string | null = null;
  private tailFrom = 0;
  private fileValue: string | null = null;
  private lineValue: number | null = null;
  private libraryValue: string | null = null;

  /** Sets the text `args` will be split from (ArgsHolder.argsText and argsPlain). */
  deferArgs(text: string | null, plain: boolean): void {
    this.argsText = text;
    this.argsPlain = plain;
  }

  /** Sets where the tail starts in `line` (what applyTail would read now). */
  deferTail(line: string, from: number): void {
    this.tailLine = line;
    this.tailFrom = from;
  }

  private readTail(): void {
    const line = this.tailLine;
    if (line === null) return;
    this.tailLine = null;
    applyTail(this, line, this.tailFrom);
  }

  get args(): FrameArg[] {
    if (this.argList === null) {
      const text = this.argsText;
      this.argList = text === null || text.length === 0 ? [] : splitArgs(text, this.argsPlain);
      this.argsText = null;
    }
    return this.argList;
  }

  set args(value: FrameArg[]) {
    this.argList = value;
    this.argsText = null;
  }

  get file(): string | null {
    this.readTail();
    return this.fileValue;
  }

  set file(value: string | null) {
    this.readTail();
    this.fileValue = value;
  }

  get line(): number | null {
    this.readTail();
    return this.lineValue;
  }

  set line(value: number | null) {
    this.readTail();
    this.lineValue = value;
  }

  get library(): string | null {
    this.readTail();
    return this.libraryValue;
  }

  set library(value: string | null) {
    this.readTail();
    this.libraryValue = value;
  }

  toJSON(): Frame {
    const plain: Frame = {
      level: this.level,
      pc: this.pc,
      function: this.function,
      args: this.args,
      file: this.file,
      line: this.line,
      library: this.library,
      inlined: this.inlined,
      kind: this.kind,
      incomplete: this.incomplete,
      sourceLine: this.sourceLine,
    };
    // Optional keys in the order the parser adds them.
    if (this.pcFlags !== undefined) plain.pcFlags = this.pcFlags;
    if (this.continuationLines !== undefined) plain.continuationLines = this.continuationLines;
    if (this.locals !== undefined) plain.locals = this.locals;
    return plain;
  }
}

/**
 * Scans a frame body (`0x… in NAME (ARGS) at FILE:LINE`) starting at `from` in `s` (the whole
 * line, so no copy of the body is made). Never throws. `deferArgs`: the result is a
 * DeferredFrame (the builder hands it the argument text; its tail is read when first used).
 */
export function scanFrameBody(s: string, from: number, holder: ArgsHolder, deferArgs = false): FrameBody {
  holder.argsText = null;
  holder.argsPlain = false;
  const result = deferArgs ? new DeferredFrame() : emptyFrame(-1, '');
  const special = specialFrame(s, from);
  if (special !== null) {
    result.function = special[0];
    result.kind = special[1];
    return result;
  }
  const rest = readPc(s, from, result);
  if (rest < 0) return scanForeignFrame(s, -rest - 1, result);
  const n = s.length;
  const start = rest;
  // Special frames behind an address (frame-filter path: `0x… in <signal handler called> () at …`).
  const behind = specialFrame(s, start);
  if (behind !== null) result.kind = behind[1];
  let depth = 0;
  let candidate = -1; // index of a depth-0 ` (` whose group is open
  let lastDepth0Open = -1;
  // Structural characters met so far, and when the candidate opened: a group closed by the very
  // next one holds no quote or bracket (ArgsHolder.argsPlain).
  let hits = 0;
  let candidateHits = 0;
  // Jump from one structural character to the next natively; most of a frame line has none.
  const structural = STRUCTURAL;
  structural.lastIndex = start;
  while (structural.test(s)) {
    hits++;
    const i = structural.lastIndex - 1;
    const c = s.charCodeAt(i);
    if (c === CH_QUOTE) {
      structural.lastIndex = skipString(s, i);
    } else if (c === CH_APOS) {
      const end = skipCharLiteral(s, i);
      if (end > 0) structural.lastIndex = end;
    } else if (c === CH_LPAREN) {
      if (depth === 0 && i > start && s.charCodeAt(i - 1) === CH_SPACE) {
        candidate = i;
        candidateHits = hits;
        lastDepth0Open = i;
      }
      depth++;
    } else if (c === CH_LBRACE || c === CH_LBRACK) {
      depth++;
    } else {
      if (depth > 0) depth--;
      if (depth === 0 && c === CH_RPAREN && candidate >= 0) {
        if (acceptsTail(s, i)) {
          result.function = s.slice(start, candidate - 1);
          holder.argsText = s.slice(candidate + 1, i);
          holder.argsPlain = hits === candidateHits + 1;
          if (deferArgs) (result as DeferredFrame).deferTail(s, i + 1);
          else applyTail(result, s, i + 1);
          return result;
        }
        candidate = -1;
      }
    }
  }
  // No argument list closed: a cut line (`#3  0x… in jl_safepoin`) or one still being joined.
  result.incomplete = true;
  if (lastDepth0Open >= 0 && (lastDepth0Open + 1 === n || startsArg(s, lastDepth0Open + 1) || s.startsWith('...', lastDepth0Open + 1))) {
    result.function = s.slice(start, lastDepth0Open - 1);
    holder.argsText = s.slice(lastDepth0Open + 1);
  } else {
    result.function = s.slice(start);
  }
  return result;
}

/**
 * eu-stack (`0x… start_thread - /usr/lib64/libc.so.6`) and systemd-coredump
 * (`0x… n/a (libc.so.6 + 0x9f002)`) frames: an address and a symbol, no ` in `, no arguments.
 */
function scanForeignFrame(s: string, at: number, result: FrameBody): FrameBody {
  const rest = s.slice(at).trim();
  const dash = rest.indexOf(' - ');
  if (dash >= 0) {
    result.function = rest.slice(0, dash);
    result.library = rest.slice(dash + 3);
  } else if (rest.endsWith(')') && rest.lastIndexOf(' (') > 0) {
    const open = rest.lastIndexOf(' (');
    result.function = rest.slice(0, open);
    result.library = rest.slice(open + 2, -1).replace(/ \+ 0x[0-9a-f]+$/i, '');
  } else {
    result.function = rest || '??';
  }
  if (result.function === 'n/a' || result.function === '') result.function = '??';
  return result;
}

/**
 * When `s[i…]` starts an argument — `NAME=` or `NAME@entry=`, no space before `=` — the index of
 * that `=`; otherwise -1.
 */
function argEquals(s: string, i: number): number {
  const n = s.length;
  let j = i;
  if (j >= n) return -1;
  let c = s.charCodeAt(j);
  if (!(c === 95 || c === 36 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122))) return -1;
  j++;
  while (j < n) {
    c = s.charCodeAt(j);
    // `#` too: parameter-pack elements print as `__args#0=1`.
    if (c === 95 || c === 36 || c === 35 || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || (c >= 48 && c <= 57)) j++;
    else break;
  }
  if (c === 64 /* @ */ && isEntry(s, j)) j += 6;
  return j < n && s.charCodeAt(j) === 61 /* = */ ? j : -1;
}

function startsArg(s: string, i: number): boolean {
  return argEquals(s, i) >= 0;
}

/**
 * Splits an argument list at depth-0 `, ` followed by `NAME=` (gdb-format.md §3.3.3), outside
 * string and char literals, so `"a, b=c"`, `'x' <repeats 30 times>, "yz"` and pretty-printer
 * prose stay in one value. `...` (presence mode) gives no arguments. `plain`: the text holds no
 * quote or bracket (ArgsHolder.argsPlain), so separators are found with `indexOf`.
 */
export function splitArgs(text: string, plain = false): FrameArg[] {
  const args: FrameArg[] = [];
  if (text.length === 0 || text === '...') return args;
  if (plain) return splitPlainArgs(text, args);
  let depth = 0;
  let from = 0;
  let eq = argEquals(text, 0);
  const structural = ARG_STRUCTURAL;
  structural.lastIndex = 0;
  while (structural.test(text)) {
    const i = structural.lastIndex - 1;
    const c = text.charCodeAt(i);
    if (c === CH_QUOTE) {
      structural.lastIndex = skipString(text, i);
    } else if (c === CH_APOS) {
      const end = skipCharLiteral(text, i);
      if (end > 0) structural.lastIndex = end;
    } else if (c === CH_LPAREN || c === CH_LBRACE || c === CH_LBRACK) {
      depth++;
    } else if (c === CH_RPAREN || c === CH_RBRACE || c === CH_RBRACK) {
      if (depth > 0) depth--;
    } else if (depth === 0 && text.charCodeAt(i + 1) === CH_SPACE) {
      const next = argEquals(text, i + 2);
      if (next >= 0) {
        args.push(makeArg(text, from, eq, i));
        from = i + 2;
        eq = next;
      }
    }
  }
  args.push(makeArg(text, from, eq, text.length));
  return args;
}

/**
 * splitArgs for a text with no quote or bracket: every `,` is at depth 0 outside literals, so
 * native `indexOf` finds the same separators the structural scan would.
 */
function splitPlainArgs(text: string, args: FrameArg[]): FrameArg[] {
  let from = 0;
  let eq = argEquals(text, 0);
  for (let i = text.indexOf(','); i >= 0; i = text.indexOf(',', i + 1)) {
    if (text.charCodeAt(i + 1) !== CH_SPACE) continue;
    const next = argEquals(text, i + 2);
    if (next >= 0) {
      args.push(makeArg(text, from, eq, i));
      from = i + 2;
      eq = next;
    }
  }
  args.push(makeArg(text, from, eq, text.length));
  return args;
}

/** The argument in `text[from, end)` whose name ends at the `=` at `eq` (-1: no name). */
function makeArg(text: string, from: number, eq: number, end: number): FrameArg {
  if (eq < 0) return { name: '', value: text.slice(from, end) };
  if (eq - from > 6 && isEntry(text, eq - 6)) {
    return { name: text.slice(from, eq - 6), value: text.slice(eq + 1, end), entry: 'only' };
  }
  const name = text.slice(from, eq);
  // `sig=sig@entry=6`: the current value equals the entry value.
  const after = eq + 1 + (eq - from);
  if (after < text.length && text.charCodeAt(after) === 64 /* @ */ && isEntryEqual(text, after) && sameRun(text, from, eq + 1, eq - from)) {
    return { name, value: text.slice(after + 7, end), entry: 'equal' };
  }
  return { name, value: text.slice(eq + 1, end) };
}

// `text.startsWith('@entry=', at)` and `text.startsWith(name, eq + 1)` by char codes: half the
// arguments of the bench dump are `NAME=NAME@entry=VALUE`, and the two builtin calls were ~5 ms.
function isEntryEqual(s: string, at: number): boolean {
  return isEntry(s, at) && s.charCodeAt(at + 6) === 61 /* = */;
}

/** `s.startsWith('@entry', at)` by char codes (argEquals meets it in every `NAME@entry=` argument). */
function isEntry(s: string, at: number): boolean {
  return (
    s.charCodeAt(at) === 64 /* @ */ &&
    s.charCodeAt(at + 1) === 101 /* e */ &&
    s.charCodeAt(at + 2) === 110 /* n */ &&
    s.charCodeAt(at + 3) === 116 /* t */ &&
    s.charCodeAt(at + 4) === 114 /* r */ &&
    s.charCodeAt(at + 5) === 121 /* y */
  );
}

/** `s[a, a + n)` equals `s[b, b + n)` (b + n within `s`). */
function sameRun(s: string, a: number, b: number, n: number): boolean {
  if (b + n > s.length) return false;
  for (let k = 0; k < n; k++) if (s.charCodeAt(a + k) !== s.charCodeAt(b + k)) return false;
  return true;
}
