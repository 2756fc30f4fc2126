/**
 * LLDB's `bt` / `bt all` / `thread backtrace all` lines (gdb-format.md §6.2), read into the same
 * model as gdb's: people paste LLDB output into the same bug reports (macOS, Julia, Swift). A
 * frame gets its library (the module before the backtick), function (with its arguments split
 * off as gdb's are), byte offset and file:line, so the rule packs read it as a gdb frame.
 *
 *   * thread #1, name = 'julia', stop reason = signal SIGSTOP
 *   * thread #1, queue = 'com.apple.main-thread', stop reason = EXC_BAD_ACCESS (code=1, address=0x0)
 *   * thread #1: tid = 18364, 0x00007fff8e5e1f06 libsystem_kernel.dylib`__pthread_kill + 10, queue = 'com.apple.main-thread', stop reason = signal SIGABRT
 *     * frame #0: 0x0000555555555131 crashy`main(argc=1, argv=0x00007fffffffe3f8) at main.c:4:6
 *       frame #3: 0x0000000100003f5c a.out`main [inlined] helper(x=1) at main.c:3:10 [opt]
 *       frame #3: 0x0000000100003f5c a.out`helper(x=1) at main.c:3:10 [opt] [inlined]   (LLDB ≥ 21)
 *       frame #1: 0x00007fff2033a8e1 libsystem_c.dylib`abort + 120
 *       frame #4: 0x000078411e1bb044                                                 (no module: JIT code)
 */
import type { Frame, ThreadInfo } from '../model/dump.js';
import { emptyFrame, type ArgsHolder } from './frame-body.js';
import { detach } from '../model/text-hygiene.js';

// `* thread #1, name = 'julia', stop reason = signal SIGSTOP` / `thread #1: tid = 18364, 0x…, name = 'python'`
const THREAD = /^[ \t]*(?:\*[ \t]*)?thread #(\d+)(?:[:,][ \t]*(.*))?$/s;
// `* frame #0: 0x… module`function…` (the part after the colon may be missing in a cut paste)
const FRAME = /^[ \t]*(?:\*[ \t]*)?frame #(\d+):[ \t]*(.*)$/s;
// ` [opt]`, ` [artificial]`, ` [inlined]` at the end of a frame line, in any number and order.
const FLAGS = [' [opt]', ' [artificial]', ' [inlined]'] as const;
const OFFSET = / \+ (\d+)$/;
const UNNAMED = /^___lldb_unnamed_symbol\d*(?:\$\$.*)?$/;
// `stop reason = …` is the header's last field, and may hold commas: `EXC_BAD_ACCESS (code=1, address=0x0)`.
const STOP_REASON = /(?:^|, )stop reason = (.*)$/s;

export function parseLldbThread(text: string): ThreadInfo | null {
  const m = THREAD.exec(text);
  if (m === null) return null;
  // Kept by the backtrace (name is cut from it): detached from the input chunk.
  const rest = detach((m[2] ?? '').trim());
  const name = quotedField(rest, 'name');
  const tid = /(?:^|, )tid = (?:0x([0-9a-fA-F]+)|(\d+))/.exec(rest);
  const info: ThreadInfo = {
    id: Number(m[1]),
    gdbId: detach(m[1]!),
    ptid: null,
    lwp: tid === null ? null : tid[1] !== undefined ? parseInt(tid[1], 16) : Number(tid[2]),
    name,
    targetId: rest,
    extra: null,
  };
  const stop = STOP_REASON.exec(rest);
  if (stop !== null && stop[1]!.trim() !== '') info.stopReason = stop[1]!.trim();
  return info;
}

/** Reads an LLDB frame line into a Frame (level set; args left to the builder), or null. */
export function parseLldbFrame(text: string, holder: ArgsHolder): Frame | null {
  const m = FRAME.exec(text);
  if (m === null) return null;
  holder.argsText = null;
  holder.argsPlain = false;
  const frame: Frame = emptyFrame(Number(m[1]), '??');
  let rest = m[2]!.trim();
  if (rest === '') {
    frame.incomplete = true;
    return frame;
  }
  const pc = /^(0x[0-9a-fA-F]+)(?:[ \t]+|$)/.exec(rest);
  if (pc !== null) {
    frame.pc = pc[1]!.toLowerCase();
    rest = rest.slice(pc[0].length);
  }
  const tick = rest.indexOf('`');
  if (tick < 0) {
    // `0x… libfoo.so` or a bare address: a module and no symbol.
    if (rest !== '') frame.library = rest;
    return frame;
  }
  frame.library = rest.slice(0, tick) || null;
  let symbol = rest.slice(tick + 1);
  const flagged = stripFlags(symbol);
  // LLDB ≥ 21 marks an inlined frame with a trailing ` [inlined]`.
  if (flagged.inlined) frame.inlined = true;
  symbol = flagged.rest;
  const loc = location(symbol);
  if (loc !== null) {
    frame.file = loc.file;
    frame.line = loc.line;
    symbol = symbol.slice(0, loc.at);
  }
  const offset = OFFSET.exec(symbol);
  if (offset !== null) {
    frame.offset = Number(offset[1]);
    symbol = symbol.slice(0, offset.index);
  }
  // `outer [inlined] inner(args)`: this frame is `inner`, inlined into `outer`.
  const inlined = symbol.lastIndexOf(' [inlined] ');
  if (inlined >= 0) {
    frame.inlined = true;
    symbol = symbol.slice(inlined + ' [inlined] '.length);
  }
  // Arguments follow the name with no space: `main(argc=1, argv=0x…)`.
  if (symbol.endsWith(')')) {
    const open = matchingOpen(symbol, symbol.length - 1);
    if (open > 0 && /[=]/.test(symbol.slice(open)) ) {
      holder.argsText = symbol.slice(open + 1, -1);
      symbol = symbol.slice(0, open);
    }
  }
  // LLDB names a symbol-less address in a module `___lldb_unnamed_symbol3105` (`$$libc.so.6` on
  // older versions); gdb prints `?? () from /usr/lib/libc.so.6`.
  frame.function = symbol === '' || UNNAMED.test(symbol) ? '??' : symbol;
  return frame;
}

/**
 * `'…'` of `KEY = '…'` in a thread line's fields (`name = 'julia', queue = '…'`): the value runs to
 * the first `'` followed by `, ` or the end. One scan, not a lazy regex, which is quadratic on a
 * line of many `, name = '` with no closing quote.
 */
function quotedField(fields: string, key: string): string | null {
  const open = `${key} = '`;
  let start = fields.startsWith(open) ? 0 : fields.indexOf(`, ${open}`);
  if (start < 0) return null;
  start += fields.startsWith(open, start) ? open.length : open.length + 2;
  for (let q = fields.indexOf("'", start); q >= 0; q = fields.indexOf("'", q + 1)) {
    if (q === fields.length - 1 || fields.startsWith(', ', q + 1)) return fields.slice(start, q);
  }
  return null;
}

/** Drops the trailing ` [opt]` / ` [artificial]` / ` [inlined]` flags, from the end (linear). */
function stripFlags(symbol: string): { rest: string; inlined: boolean } {
  let rest = symbol;
  let inlined = false;
  for (let more = true; more; ) {
    more = false;
    for (const flag of FLAGS) {
      if (rest.endsWith(flag)) {
        if (flag === ' [inlined]') inlined = true;
        rest = rest.slice(0, -flag.length);
        more = true;
      }
    }
  }
  return { rest, inlined };
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/**
 * ` at FILE:LINE[:COL]` at the end of a frame's symbol: the first ` at ` with a file of at least
 * one character before the tail. Scanned from the end once, then one indexOf: a lazy regex
 * (` at (.+?):(\d+)…$`) retried from every ` at ` is quadratic on a line full of them.
 */
function location(symbol: string): { at: number; file: string; line: number } | null {
  // The last number, after a colon.
  let i = symbol.length;
  while (i > 0 && isDigit(symbol.charCodeAt(i - 1))) i--;
  if (i === symbol.length || i === 0 || symbol.charCodeAt(i - 1) !== 58) return null;
  const lastColon = i - 1;
  // `:LINE:COL` when a number and a colon come before it; the shorter file wins, as the regex did.
  let j = lastColon;
  while (j > 0 && isDigit(symbol.charCodeAt(j - 1))) j--;
  const tails = j < lastColon && j > 0 && symbol.charCodeAt(j - 1) === 58
    ? [{ colon: j - 1, line: symbol.slice(j, lastColon) }, { colon: lastColon, line: symbol.slice(i) }]
    : [{ colon: lastColon, line: symbol.slice(i) }];
  // Only the first ` at ` can match: a later one leaves a shorter file.
  const at = symbol.indexOf(' at ');
  if (at < 0) return null;
  for (const tail of tails) {
    if (at + 4 < tail.colon) return { at, file: symbol.slice(at + 4, tail.colon), line: Number(tail.line) };
  }
  return null;
}

/** Index of the `(` matching the `)` at `close`, scanning backwards, or -1. */
function matchingOpen(s: string, close: number): number {
  let depth = 0;
  for (let i = close; i >= 0; i--) {
    const c = s.charCodeAt(i);
    if (c === 41) depth++;
    else if (c === 40 && --depth === 0) return i;
  }
  return -1;
}
