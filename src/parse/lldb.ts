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
// ` at main.c:4:6` / ` at main.c:4` at the end of the rest.
const LOCATION = / at (.+?):(\d+)(?::\d+)?$/s;
const TRAILING_FLAGS = /(?: \[(?:opt|artificial|inlined)\])+$/;
const OFFSET = / \+ (\d+)$/;
const UNNAMED = /^___lldb_unnamed_symbol\d*(?:\$\$.*)?$/;
// `stop reason = …` is the header's last field, and may hold commas: `EXC_BAD_ACCESS (code=1, address=0x0)`.
const STOP_REASON = /(?:^|, )stop reason = (.*)$/s;

export function parseLldbThread(text: string): ThreadInfo | null {
  const m = THREAD.exec(text);
  if (m === null) return null;
  // Kept by the backtrace (name is cut from it): detached from the input chunk.
  const rest = detach((m[2] ?? '').trim());
  const name = /(?:^|, )name = '(.*?)'(?:, |$)/.exec(rest);
  const tid = /(?:^|, )tid = (?:0x([0-9a-fA-F]+)|(\d+))/.exec(rest);
  const info: ThreadInfo = {
    id: Number(m[1]),
    gdbId: detach(m[1]!),
    ptid: null,
    lwp: tid === null ? null : tid[1] !== undefined ? parseInt(tid[1], 16) : Number(tid[2]),
    name: name === null ? null : name[1]!,
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
  const flags = TRAILING_FLAGS.exec(symbol);
  if (flags !== null) {
    // LLDB ≥ 21 marks an inlined frame with a trailing ` [inlined]`.
    if (flags[0].includes('[inlined]')) frame.inlined = true;
    symbol = symbol.slice(0, flags.index);
  }
  const loc = LOCATION.exec(symbol);
  if (loc !== null) {
    frame.file = loc[1]!;
    frame.line = Number(loc[2]);
    symbol = symbol.slice(0, loc.index);
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
