/**
 * panicparse-style buckets: threads whose stacks are alike are shown once, as
 * "5 threads parked at a GC safepoint: 1, 3, 4, 5, 6" with the shared stack under it. Used by the
 * text and Markdown reports.
 *
 * How alike two stacks must be:
 * - `exact`: the same frames: function, file:line and library of every frame, in order. Argument
 *   values and pcs are ignored, because they hold per-thread pointers (panicparse's default,
 *   "AnyPointer", makes the same choice).
 * - `functions`: the same function names in order (file, line and library may differ, e.g. two
 *   builds of one library).
 *
 * Both modes also require the same analysed state, so a bucket's label is true of every member.
 * A truncated stack (a paste cut mid-frame, `(More stack frames follow...)`) joins a bucket whose
 * stack starts with everything it shows, a cut-off last function name matching as a prefix: thread
 * 1 of the founding dump, cut at `jl_safepoin`, is parked exactly like threads 3–6.
 */
import type { Backtrace, Dump, Frame } from '../model/dump.js';
import type { Analysis, ThreadAnalysis, ThreadKey } from '../model/analysis.js';
import { compareThreadKeys } from '../model/ids.js';

export type GroupMode = 'exact' | 'functions';
export const GROUP_MODES: readonly GroupMode[] = ['exact', 'functions'];

export interface ThreadGroup {
  /** Members, sorted by thread number; never empty. */
  threads: ThreadKey[];
  state: string;
  stateText: string;
  /** The member whose stack is shown: the one with the most frames (lowest number on ties). */
  representative: ThreadKey;
  /** The shown stack: the representative's backtrace (and the backtraces merged into it). */
  backtraces: Backtrace[];
}

/** Frames the stack is compared on: the thread's backtrace followed by merged headerless ones. */
export function threadFrames(dump: Dump, thread: ThreadAnalysis): Frame[] {
  return threadBacktraces(dump, thread).flatMap((bt) => bt.frames);
}

export function threadBacktraces(dump: Dump, thread: ThreadAnalysis): Backtrace[] {
  return threadBacktraceIndexes(dump, thread).map((index) => dump.backtraces[index]!);
}

/** Indexes in `Dump.backtraces` of the thread's backtrace and the headerless ones merged into it. */
export function threadBacktraceIndexes(dump: Dump, thread: ThreadAnalysis): number[] {
  return [thread.backtrace, ...thread.merged].filter((index) => dump.backtraces[index] !== undefined);
}

function frameKey(frame: Frame, mode: GroupMode): string {
  if (mode === 'functions') return frame.function;
  return [frame.function, frame.file ?? '', frame.line ?? '', frame.library ?? '', frame.kind].join('\u0001');
}

interface Candidate {
  thread: ThreadAnalysis;
  frames: Frame[];
  truncated: boolean;
}

/**
 * Groups every thread of the analysis. Groups are ordered by their lowest member, so the order
 * follows the thread numbers the reader knows from the dump.
 */
export function groupThreads(analysis: Analysis, mode: GroupMode): ThreadGroup[] {
  const candidates: Candidate[] = [...analysis.threads]
    .sort((a, b) => compareThreadKeys(a.key, b.key))
    .map((thread) => {
      const backtraces = threadBacktraces(analysis.dump, thread);
      return {
        thread,
        frames: backtraces.flatMap((bt) => bt.frames),
        truncated: backtraces.some((bt) => bt.truncated || bt.frames.some((f) => f.incomplete)),
      };
    });

  // 1. Exact-key buckets.
  const buckets = new Map<string, Candidate[]>();
  for (const candidate of candidates) {
    const key = `${candidate.thread.state}\u0002${candidate.frames.map((f) => frameKey(f, mode)).join('\u0002')}`;
    const bucket = buckets.get(key);
    if (bucket) bucket.push(candidate);
    else buckets.set(key, [candidate]);
  }

  // 2. A truncated stack with a bucket of its own joins the largest bucket it is a prefix of.
  //    Buckets are indexed by a rolling hash of each prefix of their stack (state included), so
  //    finding the candidates is one lookup, not a scan: linear in the frames, not quadratic in
  //    the threads. Hash hits are confirmed frame by frame.
  const entries = [...buckets.values()];
  const truncatedLengths = entries.filter((b) => b[0]!.truncated).map((b) => b[0]!.frames.length);
  let longestSample = 0;
  for (const length of truncatedLengths) longestSample = Math.max(longestSample, length);
  const byPrefix = new Map<string, Candidate[][]>();
  for (const bucket of entries) {
    const frames = bucket[0]!.frames;
    const hash = new PrefixHash(bucket[0]!.thread.state);
    // Prefixes strictly shorter than the stack: a target must show more than the sample.
    for (let length = 0; length < frames.length && length <= longestSample; length++) {
      const key = hash.key(length);
      const list = byPrefix.get(key);
      if (list) list.push(bucket);
      else byPrefix.set(key, [bucket]);
      hash.add(frameKey(frames[length]!, mode));
    }
  }
  const target = new Map<Candidate[], Candidate[]>();
  for (const bucket of entries) {
    const sample = bucket[0]!;
    if (!sample.truncated) continue;
    const frames = sample.frames;
    // A cut-off last frame is compared by name prefix, so look up the prefix before it.
    const cut = frames.length > 0 && frames[frames.length - 1]!.incomplete;
    const hash = new PrefixHash(sample.thread.state);
    const exactLength = cut ? frames.length - 1 : frames.length;
    for (let i = 0; i < exactLength; i++) hash.add(frameKey(frames[i]!, mode));
    let best: Candidate[] | null = null;
    for (const other of byPrefix.get(hash.key(exactLength)) ?? []) {
      if (other === bucket) continue;
      const candidate = other[0]!;
      if (candidate.thread.state !== sample.thread.state || candidate.frames.length <= frames.length) continue;
      if (!isPrefixStack(frames, candidate.frames, mode)) continue;
      if (!best || other.length > best.length) best = other;
    }
    if (best) target.set(bucket, best);
  }
  // Targets have strictly longer stacks, so following them ends; members move to the last one.
  const finalTarget = (bucket: Candidate[]): Candidate[] => {
    let current = bucket;
    for (let next = target.get(current); next; next = target.get(current)) current = next;
    return current;
  };
  const merged = new Set<Candidate[]>();
  for (const bucket of entries) {
    if (!target.has(bucket)) continue;
    const into = finalTarget(bucket);
    for (const member of bucket) into.push(member); // no spread: a bucket can hold 100,000 threads
    merged.add(bucket);
  }

  const groups = entries
    .filter((bucket) => !merged.has(bucket))
    .map((bucket): ThreadGroup => {
      const members = [...bucket].sort((a, b) => compareThreadKeys(a.thread.key, b.thread.key));
      const representative = members.reduce((best, c) => (c.frames.length > best.frames.length ? c : best), members[0]!);
      return {
        threads: members.map((c) => c.thread.key),
        state: representative.thread.state,
        stateText: representative.thread.stateText,
        representative: representative.thread.key,
        backtraces: threadBacktraces(analysis.dump, representative.thread),
      };
    });
  return groups.sort((a, b) => compareThreadKeys(a.threads[0]!, b.threads[0]!));
}

/**
 * Rolling hash of a stack prefix (two 32-bit FNV-style lanes), keyed with the state and the
 * prefix length so different lengths never share a slot.
 */
class PrefixHash {
  private a = 0x811c9dc5;
  private b = 0x01000193;
  private readonly state: string;
  constructor(state: string) {
    this.state = state;
  }
  add(text: string): void {
    for (let i = 0; i < text.length; i++) {
      const c = text.charCodeAt(i);
      this.a = Math.imul(this.a ^ c, 0x01000193);
      this.b = Math.imul(this.b + c, 0x5bd1e995) ^ (this.b >>> 13);
    }
    this.a = Math.imul(this.a ^ 0x2, 0x01000193);
    this.b = Math.imul(this.b + 0x2, 0x5bd1e995) ^ (this.b >>> 13);
  }
  key(length: number): string {
    return `${this.state}\u0000${length}\u0000${this.a >>> 0}:${this.b >>> 0}`;
  }
}

/** True when `short` shows a leading part of `long`; a cut-off last frame matches by name prefix. */
function isPrefixStack(short: Frame[], long: Frame[], mode: GroupMode): boolean {
  for (let i = 0; i < short.length; i++) {
    const a = short[i]!;
    const b = long[i]!;
    if (a.incomplete) {
      // The cut may fall anywhere in the line, so only the name is comparable.
      if (!b.function.startsWith(a.function) || a.function.length === 0) return false;
      return i === short.length - 1;
    }
    if (frameKey(a, mode) !== frameKey(b, mode)) return false;
  }
  return true;
}

/**
 * One frame as gdb would print it (`#2  0x… in uv_cond_wait (cond=0x…) at src/unix/thread.c:883`),
 * rebuilt from the model so a grouped stack reads like the dump.
 */
export function formatFrame(frame: Frame): string {
  const { before, name, after } = frameParts(frame);
  return `${before}${name}${after}`;
}

/** A frame's printed line in three parts, so a report can mark the function name (HTML bolds it). */
export function frameParts(frame: Frame): { before: string; name: string; after: string } {
  let before = `#${frame.level}`.padEnd(3) + ' ';
  if (frame.pc) before += `${frame.pc} in `;
  let after = '';
  if (frame.kind === 'normal') {
    after += ` (${frame.args.map((a) => `${a.name}${a.entry === 'only' ? '@entry' : ''}=${a.value}`).join(', ')})`;
    if (frame.incomplete) after = after.slice(0, -1) + '…';
  }
  if (frame.file) after += ` at ${frame.file}${frame.line !== null ? `:${frame.line}` : ''}`;
  else if (frame.library) after += ` from ${frame.library}`;
  return { before, name: frame.function, after };
}

/** A display line of a stack: a frame's, or a line between frames (`...`, why the stack ends). */
export interface StackLine {
  text: string;
  /** The frame the line shows, with the index of its backtrace in `Dump.backtraces`; null for other lines. */
  frame: { frame: Frame; backtrace: number } | null;
}

/**
 * A backtrace's lines for display: its frames, gdb's elision `...` where levels jump, and a last
 * line saying why the stack ends early when it does.
 */
export function formatBacktrace(backtrace: Backtrace): string[] {
  return backtraceLines(backtrace, -1).map((line) => line.text);
}

/** formatBacktrace with each frame line's frame; `index` is the backtrace's in `Dump.backtraces`. */
export function backtraceLines(backtrace: Backtrace, index: number): StackLine[] {
  const lines: StackLine[] = [];
  const gapsBefore = new Set(backtrace.gaps.map((gap) => gap.beforeLevel));
  backtrace.frames.forEach((frame, position) => {
    if (position > 0 && gapsBefore.has(frame.level)) lines.push({ text: '...', frame: null });
    lines.push({ text: formatFrame(frame), frame: { frame, backtrace: index } });
  });
  if (backtrace.stopReason) lines.push({ text: `Backtrace stopped: ${backtrace.stopReason}`, frame: null });
  else if (backtrace.truncated) lines.push({ text: '(more frames not in the dump)', frame: null });
  return lines;
}

/** `5 threads parked at a GC safepoint: 1, 3, 4, 5, 6` or `thread 9: runs a GC …`. */
export function groupTitle(group: ThreadGroup): string {
  const list = group.threads.map((key) => (/^\d+$/.test(key) ? key : key.replace(/^bt@/, 'backtrace at line '))).join(', ');
  if (group.threads.length === 1) {
    const key = group.threads[0]!;
    const name = /^\d+$/.test(key) ? `thread ${key}` : list;
    return `${name}: ${group.stateText}`;
  }
  return `${group.threads.length} threads ${pluralState(group.stateText)}: ${list}`;
}

/**
 * A thread's state phrase made to follow "5 threads": `parked at …` stays, `waits for …` becomes
 * `wait for …`, and a noun phrase (`idle GC worker`) goes in parentheses.
 */
export function pluralState(stateText: string): string {
  const match = /^(\S+)(.*)$/s.exec(stateText);
  if (!match) return stateText;
  const [, word, rest] = match as unknown as [string, string, string];
  if (/^[a-z]+ed$/.test(word)) return stateText;
  if (word === 'is') return `are${rest}`;
  if (word === 'has') return `have${rest}`;
  if (/^[a-z]+(ss|us)$/.test(word) || !/^[a-z]+s$/.test(word)) return `(${stateText})`;
  const singular = /(sh|ch|x|z)es$/.test(word) ? word.slice(0, -2) : word.slice(0, -1);
  return `${singular}${rest}`;
}

/**
 * Groups in reading order: first the ones holding a deadlocked or hung thread (what the reader
 * came for), then the rest, each part by lowest thread number.
 */
export function groupsByImportance(analysis: Analysis, groups: readonly ThreadGroup[]): ThreadGroup[] {
  const important = new Set<ThreadKey>(analysis.hung);
  for (const deadlock of analysis.deadlocks) for (const key of deadlock.threads) important.add(key);
  const first: ThreadGroup[] = [];
  const rest: ThreadGroup[] = [];
  for (const group of groups) (group.threads.some((key) => important.has(key)) ? first : rest).push(group);
  return [...first, ...rest];
}

/** A group's shared stack as display lines: its backtrace, then any headerless `bt` merged into it. */
export function groupStackLines(group: ThreadGroup): string[] {
  return stackLines(group.backtraces, group.backtraces.map(() => -1)).map((line) => line.text);
}

/**
 * The display lines of a thread's backtraces (its own, then the headerless ones merged into it),
 * `indexes[i]` being the index of `backtraces[i]` in `Dump.backtraces`.
 */
export function stackLines(backtraces: readonly Backtrace[], indexes: readonly number[]): StackLine[] {
  const lines: StackLine[] = [];
  backtraces.forEach((backtrace, position) => {
    if (position > 0) {
      lines.push({ text: '', frame: null });
      lines.push({ text: `(gdb) bt    # headerless backtrace at line ${backtrace.startLine}, merged into this thread`, frame: null });
    }
    for (const line of backtraceLines(backtrace, indexes[position] ?? -1)) lines.push(line);
  });
  return lines;
}

/**
 * The text report's stack section: each group's title, then its shared stack indented, groups in
 * `groupsByImportance` order. Plain lines; the text reporter adds colour.
 */
export function groupedStackSection(analysis: Analysis, mode: GroupMode): Array<{ title: string; stack: string[] }> {
  return groupsByImportance(analysis, groupThreads(analysis, mode)).map((group) => ({ title: groupTitle(group), stack: groupStackLines(group) }));
}

