/**
 * Per-backtrace stage of the analysis: runs the thread rules on one backtrace and keeps a small
 * summary (rule hits with their sites and captured arguments, the top frame names for merging,
 * the acquire site). Nothing here looks at other backtraces, so backtraces can be summarised as
 * they stream out of the parser and their frames dropped afterwards.
 */
import type { FrameRef } from '../model/analysis.js';
import type { Backtrace, Frame, ThreadInfo } from '../model/dump.js';
import { frameMatches, matchBacktrace, prepareStack, type PreparedStack } from '../rules/match.js';
import type { ParsedArgValue } from '../rules/normalize.js';
import type { LoadedRules } from '../rules/types.js';
import { keep } from './keep.js';

/** How many top frames are kept to merge a headerless `bt` into its thread. */
export const MERGE_FRAMES = 6;

export interface SummaryAlternative {
  site: FrameRef | null;
  captures: Record<string, ParsedArgValue>;
  pendingProcess: number[];
}

export interface SummaryHit {
  ruleId: string;
  alternatives: SummaryAlternative[];
}

export interface BacktraceSummary {
  index: number;
  thread: ThreadInfo | null;
  startLine: number;
  frameCount: number;
  /** Normalised names of the first frames, with their levels. Shared between summaries: read only. */
  top: Array<{ level: number; name: string }>;
  hits: SummaryHit[];
  blocked: boolean;
  truncated: boolean;
  acquireSite: FrameRef | null;
  /** Normalised function name of the acquire site (signatures use it). */
  acquireName: string | null;
}

export function frameRef(backtrace: number, frame: Frame): FrameRef {
  // Summaries outlive their backtrace: keep() detaches the strings from the input text.
  return { backtrace, level: frame.level, function: keep(frame.function), file: keep(frame.file), line: frame.line, sourceLine: frame.sourceLine };
}

/*
 * Summaries are what the analysis holds for every backtrace until the cross-thread stage, so
 * their size sets the peak memory of a huge dump (issue 7, figure 3: 100,000 threads). What many
 * summaries would hold alike is shared instead of copied: the `top` arrays (thousands of threads
 * run the same few loops), empty captures and pending lists, and the FrameRef of a frame that
 * several hits of one backtrace point at. Shared values are frozen: a reader that wrote to one
 * would change other threads' summaries, so it fails loudly instead.
 */
const NO_CAPTURES: Record<string, ParsedArgValue> = Object.freeze({}) as Record<string, ParsedArgValue>;
const NO_PENDING = Object.freeze([]) as unknown as number[];
const NO_HITS = Object.freeze([]) as unknown as SummaryHit[];

type TopFrames = BacktraceSummary['top'];
/** Top-frame lists by their names joined with NUL; a key holds every list seen with those names. */
const topPool = new Map<string, TopFrames[]>();
/** Enough for the distinct stack tops of a huge dump; beyond it lists are still made, not shared. */
const MAX_TOPS = 50_000;
/** Lists kept under one key (same names, other levels): bounds the search, whatever the input. */
const MAX_PER_KEY = 8;

/** The top frames of `frames` (normalised `names`), shared with an earlier equal list. */
function sharedTop(frames: readonly Frame[], names: readonly string[]): TopFrames {
  const n = Math.min(MERGE_FRAMES, frames.length);
  if (n === 0) return NO_TOP;
  let key = names[0] as string;
  for (let i = 1; i < n; i++) key += `\0${names[i] as string}`;
  const candidates = topPool.get(key);
  if (candidates !== undefined) {
    for (const top of candidates) if (sameTop(top, frames, names, n)) return top;
  }
  const top: TopFrames = new Array(n);
  for (let i = 0; i < n; i++) top[i] = Object.freeze({ level: (frames[i] as Frame).level, name: keep(names[i] as string) });
  Object.freeze(top);
  if (candidates !== undefined) {
    if (candidates.length < MAX_PER_KEY) candidates.push(top);
  }
  else if (topPool.size < MAX_TOPS) topPool.set(key, [top]);
  return top;
}
const NO_TOP = Object.freeze([]) as unknown as TopFrames;

function sameTop(top: TopFrames, frames: readonly Frame[], names: readonly string[], n: number): boolean {
  if (top.length !== n) return false;
  for (let i = 0; i < n; i++) {
    const t = top[i] as TopFrames[number];
    if (t.level !== (frames[i] as Frame).level || t.name !== names[i]) return false;
  }
  return true;
}

/** One packed slot: frame data of a site, or a part of a hit. */
type Slot = string | number | null | Record<string, ParsedArgValue> | number[];
/**
 * A summary kept small, with the BacktraceSummary interface read through getters:
 * - `thread`, `startLine` and `truncated` come from the backtrace, not copies: with frames
 *   dropped the parser swaps the backtrace's ThreadInfo for a detached copy after this stage, and
 *   the summary then shares that copy (one ThreadInfo a thread, not two). The frames are not kept
 *   through it: the parser empties them.
 * - the sites and the hits live in one flat array: the frames sites point at (5 slots each:
 *   level, function, file, line, sourceLine), then per hit its rule id, its number of alternatives and per alternative the slot of
 *   its site frame (-1: none), its captures and its pending process conditions. `hits` and
 *   `acquireSite` build their objects when read; the cross-thread stage reads them once per
 *   backtrace, and only the FrameRefs of the rules that fire outlive it (in edges). Objects for
 *   every alternative of every hit cost ~400 bytes a thread more (issue 7, figure 3).
 */
class Summary implements BacktraceSummary {
  constructor(
    private readonly bt: Backtrace,
    readonly index: number,
    readonly frameCount: number,
    readonly top: TopFrames,
    readonly blocked: boolean,
    readonly acquireName: string | null,
    private readonly packed: readonly Slot[],
    /** Slot of the acquire frame, -1 when there is none. */
    private readonly acquireAt: number,
    /** Slot where the hits start. */
    private readonly hitsAt: number,
  ) {}
  get thread(): ThreadInfo | null {
    return this.bt.thread;
  }
  get startLine(): number {
    return this.bt.startLine;
  }
  get truncated(): boolean {
    return this.bt.truncated;
  }
  get acquireSite(): FrameRef | null {
    return this.acquireAt < 0 ? null : this.siteAt(this.acquireAt);
  }
  get hits(): SummaryHit[] {
    const p = this.packed;
    if (this.hitsAt === p.length) return NO_HITS;
    const hits: SummaryHit[] = [];
    for (let at = this.hitsAt; at < p.length; ) {
      const ruleId = p[at] as string;
      const count = p[at + 1] as number;
      at += 2;
      const alternatives: SummaryAlternative[] = new Array(count);
      for (let i = 0; i < count; i++, at += 3) {
        const site = p[at] as number;
        alternatives[i] = { site: site < 0 ? null : this.siteAt(site), captures: p[at + 1] as Record<string, ParsedArgValue>, pendingProcess: p[at + 2] as number[] };
      }
      hits.push({ ruleId, alternatives });
    }
    return hits;
  }
  private siteAt(at: number): FrameRef {
    const p = this.packed;
    return { backtrace: this.index, level: p[at] as number, function: p[at + 1] as string, file: p[at + 2] as string | null, line: p[at + 3] as number | null, sourceLine: p[at + 4] as number };
  }
}

export function summarizeBacktrace(rules: LoadedRules, bt: Backtrace, index: number, stack?: PreparedStack): BacktraceSummary {
  const prepared = stack ?? prepareStack(bt, rules.primitives);
  const packed: Slot[] = [];
  // The slot of each frame sites point at, whichever hits share it.
  const slots = new Map<number, number>();
  const slotOf = (frameIndex: number): number => {
    const known = slots.get(frameIndex);
    if (known !== undefined) return known;
    const frame = bt.frames[frameIndex];
    if (frame === undefined) return -1;
    const at = packed.length;
    // keep() detaches the strings from the input text: summaries outlive their backtrace.
    packed.push(frame.level, keep(frame.function), keep(frame.file), frame.line, frame.sourceLine);
    slots.set(frameIndex, at);
    return at;
  };
  const acquireAt = slotOf(prepared.acquireIndex);
  const matched = matchBacktrace(rules, prepared);
  // settleRules takes the first alternative whose pending conditions all hold: one with none
  // pending always does, so the alternatives after it can never be taken and are not kept.
  const kept = matched.map((hit) => {
    const always = hit.alternatives.findIndex((alt) => alt.pendingProcess.length === 0);
    return always < 0 ? hit.alternatives : hit.alternatives.slice(0, always + 1);
  });
  const sites = kept.map((alternatives) => alternatives.map((alt) => slotOf(alt.siteIndex)));
  const hitsAt = packed.length;
  matched.forEach((hit, h) => {
    const alternatives = kept[h] as typeof hit.alternatives;
    packed.push(hit.ruleId, alternatives.length);
    alternatives.forEach((alt, i) => {
      packed.push((sites[h] as number[])[i] as number, keepCaptures(alt.captures), alt.pendingProcess.length === 0 ? NO_PENDING : alt.pendingProcess);
    });
  });
  return new Summary(
    bt,
    index,
    bt.frames.length,
    sharedTop(bt.frames, prepared.names),
    prepared.blocked,
    acquireAt < 0 ? null : keep(prepared.names[prepared.acquireIndex] as string),
    // An exact-size copy: the array grown by push has spare room.
    packed.slice(),
    acquireAt,
    hitsAt,
  );
}

/** Captured argument values, detached from the input text (they live as long as the analysis). */
function keepCaptures(captures: Record<string, ParsedArgValue>): Record<string, ParsedArgValue> {
  let out: Record<string, ParsedArgValue> | null = null;
  for (const name of Object.keys(captures)) {
    const v = captures[name] as ParsedArgValue;
    out ??= {};
    out[name] = { ...v, value: keep(v.value), address: keep(v.address), symbol: keep(v.symbol) };
  }
  return out ?? NO_CAPTURES;
}

/** Marks the process-wide conditions (`processHas`) this backtrace satisfies. */
export function updateProcessFlags(rules: LoadedRules, stack: PreparedStack, flags: boolean[]): void {
  rules.processConditions.forEach((cond, i) => {
    if (flags[i]) return;
    for (let f = 0; f < stack.frames.length; f++) {
      if (frameMatches(cond, stack, f)) {
        flags[i] = true;
        return;
      }
    }
  });
}
