/**
 * Builds the Dump model from the parser's events. The grammar decides the structure inside one
 * record; the builder also bridges record seams (the streaming parser cuts the token stream into
 * records), so a backtrace stays open until something that cannot belong to it arrives: a new
 * header, a frame whose level does not go on, prose, a prompt or a print.
 */
import type { Backtrace, Dump, Frame, IgnoredLine, OwnerHint, ProcessLine, SignalLine, ThreadInfo } from '../model/dump.js';
import { detach } from '../model/text-hygiene.js';
import { DeferredFrame, splitArgs } from './frame-body.js';
import type { LogicalLine } from './lines.js';
import { readSignalLine } from './signals.js';
import { readJuliaProcess, settleJuliaTask } from './julia.js';
import { Transcript } from './transcript.js';

export interface BuilderOptions {
  onBacktrace?: (bt: Backtrace, index: number) => void;
  keepFrames?: boolean;
}


export class DumpBuilder {
  readonly backtraces: Backtrace[] = [];
  readonly ignored: IgnoredLine[] = [];
  readonly ownerHints: OwnerHint[] = [];
  /** gdb's signal lines (`… received signal SIGABRT, Aborted.`): a place of their own, not `ignored`. */
  readonly signals: SignalLine[] = [];
  /** Julia's `cmd: … PID running N of M` line: a place of its own, not `ignored`. */
  process: ProcessLine | null = null;
  frameCount = 0;
  private cur: Backtrace | null = null;
  /** Level of the last frame of `cur`, -1 when it has none. */
  private lastLevel = -1;
  /** Line of an elision marker waiting for the frame after it. */
  private pendingElision: LogicalLine | null = null;
  /** The last event was a frame of `cur` (for truncation at the end of the input). */
  private lastWasFrame = false;
  /** The gdb session around the backtraces: selection, history, registers (owner answers need them). */
  private readonly transcript = new Transcript();
  private emitted = 0;
  /**
   * The thread gdb last switched to (`[Switching to thread 5 (…)]`, `Thread 1 "x" received
   * signal …`): a plain `bt` after it shows that thread's stack. A thread header clears it.
   */
  private selected: ThreadInfo | null = null;
  /**
   * `info threads` rows, as one-frame backtraces. They are handed out at the end, and only for
   * threads no real backtrace showed (a paste often holds both the table and the full stacks).
   */
  private rows: Array<{ bt: Backtrace; line: LogicalLine }> = [];
  /**
   * gdb ids of the threads the handed-out backtraces belong to, in order. An array, made a Set only
   * at the end when `info threads` rows need it: a Set insert per backtrace was ~3 ms of the 30 MB
   * bench dump, which has no rows.
   */
  private seenThreads: string[] = [];
  /** The open backtrace took its thread from a `[Switching to thread …]` line. */
  private curFromSwitch = false;
  /** Its first frame line. */
  private curFirstLine: LogicalLine | null = null;
  /**
   * One-frame backtraces right after a thread switch, by thread: usually gdb echoing the selected
   * frame (`thread 2` prints `#0  …`; loading a core prints the current frame), with the real
   * backtrace of that thread still to come. Each is held until that backtrace arrives — then it
   * is handed out just before it, marked `source: 'selected-frame'` when the frame repeats — or
   * until the end of the input.
   */
  private echoes = new Map<string, Backtrace>();

  constructor(private readonly options: BuilderOptions = {}) {}

  /** True when a frame of this level may continue the open backtrace. */
  continues(level: number): boolean {
    return this.cur !== null && level > this.lastLevel;
  }

  header(line: LogicalLine): void {
    this.finish();
    this.transcript.notAnswer();
    if (line.thread !== null) this.transcript.header(line.thread);
    this.selected = null;
    this.curFromSwitch = false;
    this.cur = {
      thread: line.thread,
      startLine: line.line,
      endLine: lastLineOf(line),
      truncated: false,
      stopReason: null,
      frames: newList(),
      gaps: newList(),
    };
    // A header broken by a pager prompt: its second part is a marker line.
    if (line.extra !== null && line.extra.length > 0) addMarkerExtras(this.cur, line);
    // A Julia task (`---- Task 2 (0x…)`): its thread is settled when its frames are read.
    if (line.task !== null) this.cur.task = { ...(line.task as NonNullable<Backtrace['task']>) };
    this.lastLevel = -1;
    this.lastWasFrame = false;
  }

  /** A frame; `first` when it opens a backtrace in the grammar (no header before it). */
  frame(line: LogicalLine, first: boolean): void {
    if (first && !this.continues(line.level)) {
      this.finish();
      this.cur = { thread: this.selected === null ? null : { ...this.selected }, startLine: line.line, endLine: line.line, truncated: false, stopReason: null, frames: newList(), gaps: newList() };
      this.curFromSwitch = this.selected !== null;
      this.curFirstLine = line;
      this.lastLevel = -1;
    } else if (this.cur === null) {
      this.cur = { thread: null, startLine: line.line, endLine: line.line, truncated: false, stopReason: null, frames: newList(), gaps: newList() };
      this.lastLevel = -1;
    }
    this.transcript.notAnswer();
    const bt = this.cur!;
    const frame = line.frame!;
    frame.level = line.level;
    frame.sourceLine = line.line;
    const argsText = line.argsText;
    if (frame instanceof DeferredFrame) frame.deferArgs(argsText, line.argsPlain);
    else frame.args = argsText === null || argsText.length === 0 ? [] : splitArgs(argsText, line.argsPlain);
    if (line.extra) frame.continuationLines = line.extra;
    // The frame gdb printed for `thread N` / `frame K`: the selection later prints are typed in.
    if (this.transcript.wantsFrame) this.transcript.frame(frame);
    const prev = bt.frames.length > 0 ? bt.frames[bt.frames.length - 1]! : null;
    if (prev !== null) {
      if (this.pendingElision !== null) {
        bt.gaps.push({ afterLevel: prev.level, beforeLevel: frame.level, sourceLine: this.pendingElision.line });
        addMarker(bt, this.pendingElision);
      } else if (frame.level > prev.level + 1) {
        bt.gaps.push({ afterLevel: prev.level, beforeLevel: frame.level, sourceLine: frame.sourceLine });
      }
      // gdb prints the caller of an inlined frame without a pc (not so the one-line dialects,
      // LLDB and Julia, which say `[inlined]` themselves).
      if (frame.pc === null && frame.kind === 'normal' && frame.level === prev.level + 1 && !line.noJoin) prev.inlined = true;
    } else if (this.pendingElision !== null) {
      this.ignoreLine(this.pendingElision);
    }
    this.pendingElision = null;
    bt.frames.push(frame);
    this.frameCount++;
    this.lastLevel = frame.level;
    bt.endLine = lastLineOf(line);
    this.lastWasFrame = true;
  }

  /** A FrameRun token: its head line, then each line of its run, as frames one after another. */
  frameRun(head: LogicalLine, first: boolean): void {
    this.frame(head, first);
    const run = head.run!;
    for (let i = 0; i < run.length; i++) this.frame(run[i]!, false);
  }

  local(line: LogicalLine): void {
    const frame = this.lastFrame();
    if (frame === null) return this.ignoreLine(line);
    const local = { name: line.name!, value: line.value!, sourceLine: line.line } as NonNullable<Frame['locals']>[number];
    if (line.extra) local.continuationLines = line.extra;
    (frame.locals ??= []).push(local);
    // `bt full` shows a lock's owner when a local is the lock itself: `m = {__data = {…, __owner = 20496, …`.
    if (local.value.includes('__owner = ') || local.value.includes('__cur_writer = ') || local.value.includes('__writer = ') || local.value.includes('Owner ID = ') || local.value.includes('Writer ID = ')) {
      const hints = this.transcript.local(local.name, local.value, this.cur!.thread, frame.level, line.line);
      if (hints.length > 0 && line.extra) hints[0]!.continuationLines = line.extra;
      for (const hint of hints) this.ownerHints.push(hint);
    }
    this.cur!.endLine = lastLineOf(line);
    this.lastWasFrame = false;
  }

  localsMarker(line: LogicalLine): void {
    const frame = this.lastFrame();
    if (frame === null) return this.ignoreLine(line);
    frame.locals ??= [];
    addMarker(this.cur!, line);
    this.cur!.endLine = lastLineOf(line);
    this.lastWasFrame = false;
  }

  elision(line: LogicalLine): void {
    if (this.cur === null || this.cur.frames.length === 0) return this.ignoreLine(line);
    if (this.pendingElision !== null) this.ignoreLine(this.pendingElision);
    this.pendingElision = line;
    this.lastWasFrame = false;
  }

  /** `(More stack frames follow...)`, `Backtrace stopped: …`, `Quit`, a dialect's marker line. */
  trailer(line: LogicalLine, kind: 'more' | 'stopped' | 'quit' | 'marker'): void {
    const bt = this.cur;
    if (bt === null) return this.ignoreLine(line);
    if (kind === 'marker') {
      // Julia's `(sticky: 1, started: 1, state: 0, tid: 7)` under its task's header.
      if (line.task !== null && bt.task !== undefined) Object.assign(bt.task, line.task);
    } else if (kind === 'stopped') {
      const text = line.text.trim();
      bt.stopReason = text.startsWith('Backtrace stopped: ') ? text.slice('Backtrace stopped: '.length) : text;
    } else {
      bt.truncated = true;
      bt.truncatedBy = kind === 'more' ? 'limit' : 'pager';
    }
    addMarker(bt, line);
    bt.endLine = lastLineOf(line);
    this.lastWasFrame = false;
  }

  /** Blank and noise lines: ignored, and they neither extend nor end a backtrace. */
  interlude(line: LogicalLine): void {
    if (line.quit) this.pagerQuit();
    this.ignoreLine(line);
  }

  /** Prose and anything unknown: ends the open backtrace. */
  other(line: LogicalLine): void {
    this.finish();
    this.transcript.notAnswer();
    if (this.signalLine(line)) return;
    const process = line.extra === null && this.process === null ? readJuliaProcess(line.text) : null;
    if (process !== null) this.process = { ...process, sourceLine: line.line };
    else this.ignoreLine(line);
  }

  /** Records a one-line signal line (`Program terminated with signal SIGSEGV, …`); false for any other line. */
  private signalLine(line: LogicalLine): boolean {
    if (line.extra !== null && line.extra.length > 0) return false;
    const signal = readSignalLine(line.text, line.line);
    if (signal === null) return false;
    this.signals.push(signal);
    return true;
  }

  /** gdb's source line after a selected frame (`18\t  pthread_mutex_lock(&mutexB);`): noise to a backtrace, the selection's code to a print. */
  sourceLine(line: LogicalLine): void {
    this.transcript.source(line.text);
    this.ignoreLine(line);
  }

  /** A row of `info registers`: remembered for prints that use the register (`*(pthread_mutex_t *) $rdi`). */
  registerRow(line: LogicalLine): void {
    this.finish();
    this.transcript.register(line.name!, line.value!);
    this.ignoreLine(line);
  }

  threadSwitch(line: LogicalLine): void {
    const next = line.thread!;
    // Loading a core prints the current frame first and names its thread after it:
    // `#0  __futex_abstimed_wait_common64 (…)`, then `[Current thread is 1 (Thread 0x… (LWP 7157))]`.
    const open = this.cur;
    if (
      open !== null &&
      open.thread === null &&
      open.frames.length === 1 &&
      this.curFirstLine !== null &&
      next.gdbId !== '' &&
      line.text.trimStart().startsWith('[Current thread is ')
    ) {
      open.thread = { ...next };
      this.curFromSwitch = true;
    }
    this.finish();
    this.transcript.notAnswer();
    // `[Switching to Thread 0x… (LWP n)]` after `Thread 23 "x" received signal …` adds the target id.
    if (next.gdbId === '' && this.selected !== null && this.selected.ptid === null && this.selected.lwp === null) {
      this.selected = { ...this.selected, ptid: next.ptid, lwp: next.lwp, targetId: next.targetId };
    } else if (next.gdbId !== '' && this.selected !== null && this.selected.gdbId === next.gdbId) {
      // `[Current thread is 1 (Thread 0x… (LWP 895))]` then `Thread 1 "crashy" received signal …`.
      const had = this.selected;
      this.selected = {
        ...had,
        ptid: next.ptid ?? had.ptid,
        lwp: next.lwp ?? had.lwp,
        name: next.name ?? had.name,
        targetId: next.targetId || had.targetId,
      };
    } else if (next.gdbId !== '') {
      this.selected = next;
    }
    if (this.selected !== null) this.transcript.switched(this.selected);
    if (!this.signalLine(line)) this.ignoreLine(line);
  }

  threadRow(line: LogicalLine): void {
    this.finish();
    this.transcript.notAnswer();
    const frames: Frame[] = [];
    const frame = line.frame;
    if (frame !== null) {
      frame.level = 0;
      frame.sourceLine = line.line;
      frame.args = line.argsText === null || line.argsText.length === 0 ? [] : splitArgs(line.argsText, line.argsPlain);
      if (line.extra) frame.continuationLines = line.extra;
      frames.push(frame);
    }
    const bt: Backtrace = {
      thread: line.thread,
      startLine: line.line,
      endLine: lastLineOf(line),
      truncated: true,
      stopReason: null,
      frames,
      gaps: newList(),
      source: 'info-threads',
    };
    // A row with no frame (`(running)`) has no frame to hold its continuation lines.
    if (frame === null && line.extra !== null && line.extra.length > 0) addMarkerExtras(bt, line);
    this.rows.push({ bt, line });
  }

  prompt(line: LogicalLine): void {
    this.finish();
    this.transcript.command(line.name ?? '');
    this.ignoreLine(line);
  }

  /** A `$N = …` answer: owner hints when it shows a lock's owner, else ignored (the transcript remembers it). */
  printAnswer(line: LogicalLine): void {
    this.finish();
    const hints = this.transcript.answer(line.text, line.line);
    if (hints.length === 0) return this.ignoreLine(line);
    // One print may show several locks; its lines belong to the first hint.
    if (line.extra) hints[0]!.continuationLines = line.extra;
    for (const hint of hints) this.ownerHints.push(hint);
  }

  /** A pager `q` answer: gdb stops the command, the open backtrace is cut short. */
  pagerQuit(): void {
    if (this.cur !== null) {
      this.cur.truncated = true;
      this.cur.truncatedBy = 'pager';
    }
  }

  /** Closes the open backtrace and hands it out. */
  finish(): void {
    const bt = this.cur;
    if (bt === null) return;
    if (this.pendingElision !== null) {
      this.ignoreLine(this.pendingElision);
      this.pendingElision = null;
    }
    // A cut-off last frame (`#3  0x… in jl_safepoin`): the paste ends mid-stack.
    const last = bt.frames.length > 0 ? bt.frames[bt.frames.length - 1]! : null;
    if (last !== null && last.incomplete) {
      bt.truncated = true;
      bt.truncatedBy = 'paste';
    }
    // A Julia task: the thread it ran on, or its own identity when it was parked.
    if (bt.task !== undefined) bt.thread = settleJuliaTask(bt.task, bt.frames);
    const markers = bt.markerLines;
    if (markers !== undefined) {
      for (let i = 1; i < markers.length; i++) {
        if (markers[i]! < markers[i - 1]!) {
          markers.sort((a, b) => a - b);
          break;
        }
      }
    }
    this.cur = null;
    this.lastLevel = -1;
    this.lastWasFrame = false;
    const fromSwitch = this.curFromSwitch;
    const firstLine = this.curFirstLine;
    this.curFromSwitch = false;
    this.curFirstLine = null;
    const gdbId = bt.thread?.gdbId;
    if (gdbId !== undefined && gdbId !== '') {
      const echo = this.echoes.get(gdbId);
      if (echo !== undefined) {
        this.echoes.delete(gdbId);
        const shown = echo.frames[0]!;
        if (bt.frames.some((f) => f.level === shown.level && f.function === shown.function)) echo.source = 'selected-frame';
        this.emit(echo);
      }
      if (fromSwitch && firstLine !== null && bt.frames.length === 1 && bt.gaps.length === 0) {
        this.echoes.set(gdbId, bt);
        return;
      }
    }
    this.emit(bt);
  }

  /** Hands a finished backtrace out (and drops its frames when asked to). */
  private emit(bt: Backtrace): void {
    if (bt.thread !== null) this.seenThreads.push(bt.thread.gdbId);
    const index = this.emitted++;
    this.backtraces.push(bt);
    this.options.onBacktrace?.(bt, index);
    if (this.options.keepFrames === false) {
      // One shared empty array for every dropped list (100,000 backtraces would each hold two).
      bt.frames = NO_FRAMES;
      if (bt.gaps.length === 0) bt.gaps = NO_GAPS;
      if (bt.markerLines !== undefined) bt.markerLines = NO_LINES;
      // What stays must not pin the input chunk it was sliced from (memory would grow with input).
      // ThreadInfo strings are detached where they are read (thread-header.ts, lines.ts, lldb.ts).
      if (bt.stopReason !== null) bt.stopReason = detach(bt.stopReason);
    }
  }

  /** End of input: a frame on the last, unterminated line was cut by the paste. */
  end(endedMidLine: boolean): void {
    if (endedMidLine && this.lastWasFrame && this.cur !== null) {
      this.cur.truncated = true;
      this.cur.truncatedBy ??= 'paste';
    }
    this.finish();
    for (const echo of this.echoes.values()) this.emit(echo);
    this.echoes.clear();
    if (this.rows.length > 0) {
      const seen = new Set(this.seenThreads);
      let byId: Map<string, ThreadInfo[]> | null = null;
      for (const { bt, line } of this.rows) {
        const gdbId = bt.thread!.gdbId;
        if (seen.has(gdbId)) {
          // The row still says who the thread is: its LWP and pthread_t, when the backtrace's header did not (owner LWPs map through them).
          byId ??= threadsById(this.backtraces);
          for (const info of byId.get(gdbId) ?? []) {
            if (info.lwp === null && bt.thread!.lwp !== null) info.lwp = bt.thread!.lwp;
            if (info.ptid === null && bt.thread!.ptid !== null) info.ptid = bt.thread!.ptid;
          }
          this.ignoreLine(line);
          continue;
        }
        this.frameCount += bt.frames.length;
        this.emit(bt);
        seen.add(gdbId);
      }
    }
    this.rows = [];
  }

  ignoreRaw(line: number, text: string): void {
    this.ignored.push({ line, text });
  }

  toDump(lines: number): Dump {
    // Held backtraces (echoed frames, `info threads` rows) are handed out after later ones; the
    // Dump lists every backtrace in input order.
    for (let i = 1; i < this.backtraces.length; i++) {
      if (this.backtraces[i]!.startLine < this.backtraces[i - 1]!.startLine) {
        this.backtraces.sort((a, b) => a.startLine - b.startLine);
        break;
      }
    }
    // Noise seen while a multi-line value was still open can arrive before that value's lines.
    for (let i = 1; i < this.ignored.length; i++) {
      if (this.ignored[i]!.line < this.ignored[i - 1]!.line) {
        this.ignored.sort((a, b) => a.line - b.line);
        break;
      }
    }
    const dump: Dump = {
      schemaVersion: 1,
      backtraces: this.backtraces,
      ownerHints: this.ownerHints,
      ignored: this.ignored,
      stats: { lines, backtraces: this.backtraces.length, frames: this.frameCount, ignoredLines: this.ignored.length },
    };
    if (this.signals.length > 0) dump.signals = this.signals;
    if (this.process !== null) dump.process = this.process;
    return dump;
  }

  private lastFrame(): Frame | null {
    const bt = this.cur;
    if (bt === null || bt.frames.length === 0 || this.pendingElision !== null) return null;
    return bt.frames[bt.frames.length - 1]!;
  }

  private ignoreLine(line: LogicalLine): void {
    if (line.parts !== null && line.extra !== null) {
      this.ignored.push({ line: line.line, text: detach(line.parts[0] ?? '') });
      for (let i = 0; i < line.extra.length; i++) this.ignored.push({ line: line.extra[i]!, text: detach(line.parts[i + 1] ?? '') });
      return;
    }
    this.ignored.push({ line: line.line, text: detach(line.text) });
    if (line.extra) for (const extra of line.extra) this.ignored.push({ line: extra, text: '' });
  }
}

/**
 * A fresh array for a backtrace's frames or gaps. Not written inline in the Backtrace literal on
 * purpose: backtraces live to the end, so V8 soon allocates that literal (and arrays nested in
 * it) straight in the old generation; young frames pushed into an old array then outlive their
 * backtrace in every minor GC until the next full one, which made GC most of the parse time on
 * big dumps. An array from its own allocation site stays young while it is short-lived.
 */
function newList<T>(): T[] {
  return [];
}

/**
 * The frames and gaps of a backtrace whose frames were dropped (keepFrames false). Frozen: nothing
 * may add to a list every such backtrace shares.
 */
const NO_FRAMES: Frame[] = Object.freeze([]) as unknown as Frame[];
const NO_GAPS: Backtrace['gaps'] = Object.freeze([]) as unknown as Backtrace['gaps'];
const NO_LINES: number[] = Object.freeze([]) as unknown as number[];

/** Records a marker line (a trailer, `No locals.`, an elision) and its continuation lines. */
function addMarker(bt: Backtrace, line: LogicalLine): void {
  const markers = (bt.markerLines ??= []);
  markers.push(line.line);
  if (line.extra !== null) for (let i = 0; i < line.extra.length; i++) markers.push(line.extra[i]!);
}

/** Records only the continuation lines of a line whose first line the backtrace already names. */
function addMarkerExtras(bt: Backtrace, line: LogicalLine): void {
  const markers = (bt.markerLines ??= []);
  for (let i = 0; i < line.extra!.length; i++) markers.push(line.extra![i]!);
}

function lastLineOf(line: LogicalLine): number {
  return line.extra !== null && line.extra.length > 0 ? line.extra[line.extra.length - 1]! : line.line;
}

/** The ThreadInfo of every backtrace, by gdb thread id. */
function threadsById(backtraces: readonly Backtrace[]): Map<string, ThreadInfo[]> {
  const map = new Map<string, ThreadInfo[]>();
  for (const bt of backtraces) {
    if (bt.thread === null) continue;
    const list = map.get(bt.thread.gdbId);
    if (list) list.push(bt.thread);
    else map.set(bt.thread.gdbId, [bt.thread]);
  }
  return map;
}
