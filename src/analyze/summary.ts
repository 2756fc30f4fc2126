/**
 * Per-backtrace stage of the analysis: runs the thread rules on one backtrace and keeps a small
 * summary (rule hits with their sites and captured arguments, the top frame names for merging,
 * the acquire site). Nothing here looks at other backtraces, so backtraces can be summarised as
 * they stream out of the parser and their frames dropped afterwards.
 */
import type { FrameRef } from '../model/analysis.js';
import type { Backtrace, Frame, ThreadInfo } from '../model/dump.js';
import type { HitAlternative, Matcher, PreparedStack, RuleHit } from '../rules/match.js';
import type { ParsedArgValue } from '../rules/arg-values.js';
import { StringPool } from './keep.js';

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
  /** Built when read (a fresh list each time): read it once per use. */
  hits: SummaryHit[];
  blocked: boolean;
  truncated: boolean;
  /**
   * Where the thread waits, as reports show it: the first frame after the wait primitives that is
   * not a lock or runtime library wrapper (LoadedRules.lockWrappers), e.g. `take_a_then_b at abba.c:17`.
   */
  acquireSite: FrameRef | null;
  /** Normalised function name of the first frame after the wait primitives (signatures use it). */
  acquireName: string | null;
  /** A Julia task that was parked, not running on a thread, when printed (Backtrace.task). */
  parkedTask: boolean;
  /** A row of an `info threads` table, not a backtrace (Backtrace.source). */
  infoThreadsRow: boolean;
}

/*
 * Summaries are what the analysis holds for every backtrace until the cross-thread stage, so
 * their size sets the peak memory of a huge dump (issue 7, figure 3: 100,000 threads). What many
 * summaries would hold alike is shared instead of copied: the `top` lists (thousands of threads
 * run the same few loops), empty captures and pending lists, and whole Shapes (below). Shared
 * values are frozen: a reader that wrote to one would change other threads' summaries, so it
 * fails loudly instead. The pools belong to a Summarizer, which an analysis session owns.
 */
const NO_CAPTURES: Record<string, ParsedArgValue> = Object.freeze({}) as Record<string, ParsedArgValue>;
const NO_PENDING = Object.freeze([]) as unknown as number[];
const NO_HITS = Object.freeze([]) as unknown as SummaryHit[];

type TopFrames = BacktraceSummary['top'];
/** Enough for the distinct stack tops of a huge dump; beyond it lists are still made, not shared. */
const MAX_TOPS = 50_000;
/** Lists kept under one hash (collisions): bounds the search, whatever the input. */
const MAX_PER_KEY = 8;

/** One step of FNV-1a over 32-bit numbers: the pools' hashes. */
const mix = (h: number, x: number): number => Math.imul(h ^ x, 0x01000193);
const FNV_START = 0x811c9dc5;

const NO_TOP = Object.freeze([]) as unknown as TopFrames;

function sameTop(top: TopFrames, frames: readonly Frame[], names: readonly string[], n: number): boolean {
  if (top.length !== n) return false;
  for (let i = 0; i < n; i++) {
    const t = top[i] as TopFrames[number];
    if (t.level !== (frames[i] as Frame).level || t.name !== names[i]) return false;
  }
  return true;
}

/** One slot of a shape's data: frame data of a site, or a part of a hit. */
type Slot = string | number | null | readonly number[];

/**
 * What backtraces of the same shape have in common — everything in a summary but its backtrace,
 * its index and its captured values. A 100,000-thread dump had ~900 shapes, so summaries share
 * them (issue 7, figure 3: ~300 bytes a thread less than one packed array each).
 *
 * `data` holds the frames sites point at (5 slots each: level, function, file, line, and the
 * sourceLine as an offset from the backtrace's start line, alike in alike stacks), then per hit
 * its rule id, its number of alternatives and per alternative the slot of its site frame (-1:
 * none) and its pending process conditions. Read only: shared.
 */
interface Shape {
  frameCount: number;
  blocked: boolean;
  top: TopFrames;
  acquireName: string | null;
  /** Slot of the acquire frame, -1 when there is none. */
  acquireAt: number;
  /** Slot where the hits start. */
  hitsAt: number;
  data: readonly Slot[];
}

const MAX_SHAPES = 50_000;
const MAX_STRING_IDS = 200_000;

function sameShape(a: Shape, b: Shape): boolean {
  if (a.frameCount !== b.frameCount || a.blocked !== b.blocked || a.acquireName !== b.acquireName || a.acquireAt !== b.acquireAt || a.hitsAt !== b.hitsAt) return false;
  const x = a.data;
  const y = b.data;
  if (x.length !== y.length) return false;
  for (let i = 0; i < x.length; i++) {
    const u = x[i];
    const v = y[i];
    if (u === v) continue;
    if (!Array.isArray(u) || !Array.isArray(v) || u.length !== v.length) return false;
    for (let k = 0; k < u.length; k++) if (u[k] !== v[k]) return false;
  }
  return true;
}

/**
 * A summary kept small, with the BacktraceSummary interface read through getters:
 * - `thread`, `startLine` and `truncated` come from the backtrace, not copies: with frames
 *   dropped the parser swaps the backtrace's ThreadInfo for a detached copy after this stage, and
 *   the summary then shares that copy (one ThreadInfo a thread, not two). The frames are not kept
 *   through it: the parser empties them.
 * - the rest is a shared Shape, plus the captured values of the thread's alternatives (null when
 *   none captured anything). `hits` and `acquireSite` build their objects when read; the
 *   cross-thread stage reads them once per backtrace, and only the FrameRefs of the rules that
 *   fire outlive it (in edges).
 */
class Summary implements BacktraceSummary {
  constructor(
    private readonly bt: Backtrace,
    readonly index: number,
    private readonly shape: Shape,
    /** Captures per alternative, in the order of the shape's alternatives; null when all are empty. */
    private readonly captures: ReadonlyArray<Record<string, ParsedArgValue>> | null,
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
  get parkedTask(): boolean {
    return this.bt.task !== undefined && !this.bt.task.running;
  }
  get infoThreadsRow(): boolean {
    return this.bt.source === 'info-threads';
  }
  get frameCount(): number {
    return this.shape.frameCount;
  }
  get top(): TopFrames {
    return this.shape.top;
  }
  get blocked(): boolean {
    return this.shape.blocked;
  }
  get acquireName(): string | null {
    return this.shape.acquireName;
  }
  get acquireSite(): FrameRef | null {
    return this.shape.acquireAt < 0 ? null : this.siteAt(this.shape.acquireAt);
  }
  get hits(): SummaryHit[] {
    const p = this.shape.data;
    if (this.shape.hitsAt === p.length) return NO_HITS;
    const hits: SummaryHit[] = [];
    let k = 0;
    for (let at = this.shape.hitsAt; at < p.length; ) {
      const ruleId = p[at] as string;
      const count = p[at + 1] as number;
      at += 2;
      const alternatives: SummaryAlternative[] = new Array(count);
      for (let i = 0; i < count; i++, at += 2, k++) {
        const site = p[at] as number;
        alternatives[i] = { site: site < 0 ? null : this.siteAt(site), captures: this.captures?.[k] ?? NO_CAPTURES, pendingProcess: p[at + 1] as number[] };
      }
      hits.push({ ruleId, alternatives });
    }
    return hits;
  }
  private siteAt(at: number): FrameRef {
    const p = this.shape.data;
    return {
      backtrace: this.index,
      level: p[at] as number,
      function: p[at + 1] as string,
      file: p[at + 2] as string | null,
      line: p[at + 3] as number | null,
      sourceLine: this.bt.startLine + (p[at + 4] as number),
    };
  }
}

/**
 * What the analysis remembers per stack fingerprint (the matcher's `Fingerprint.memo` slot) of
 * the last stack summarised under it: its pooled shape and the frame index of each of the shape's
 * site slots. The fingerprint fixes which rules hit, at which frames, with which pending
 * conditions; the shape then depends on nothing but the frame data of those slots and the levels
 * of the top frames.
 */
export interface StackMemo {
  shape: Shape;
  slotFrames: number[];
}

/** True when `bt` would give `memo.shape` again: its site frames and top levels are the same. */
function fitsMemoShape(memo: StackMemo, bt: Backtrace): boolean {
  const frames = bt.frames;
  const data = memo.shape.data;
  const slotFrames = memo.slotFrames;
  for (let k = 0, at = 0; k < slotFrames.length; k++, at += 5) {
    const frame = frames[slotFrames[k] as number] as Frame;
    if (data[at] !== frame.level || data[at + 1] !== frame.function || data[at + 2] !== frame.file || data[at + 3] !== frame.line || data[at + 4] !== frame.sourceLine - bt.startLine) return false;
  }
  const top = memo.shape.top;
  for (let i = 0; i < top.length; i++) if ((top[i] as TopFrames[number]).level !== (frames[i] as Frame).level) return false;
  return true;
}


/** Pools and memos of the per-backtrace stage, for one analysis session. */
export class Summarizer {
  private readonly strings = new StringPool();
  /** Top-frame lists by a hash of their levels and names; a hash holds the lists seen with it. */
  private readonly topPool = new Map<number, TopFrames[]>();
  /** The lists sharedTop handed out from its pool (and the empty one): shapes are pooled by them. */
  private readonly pooledTops = new WeakSet<TopFrames>([NO_TOP]);
  /**
   * Shapes by their (shared) top-frame list, then by a hash of their data: threads of one pool share
   * a top but differ deeper (140 shapes under one top in the 10,000-thread bench dump).
   */
  private readonly shapePool = new Map<TopFrames, Map<number, Shape[]>>();
  private pooledShapes = 0;
  /**
   * Small numbers for the strings of shapes, so hashing one costs a lookup per string: the strings
   * are keep()'s shared copies and rule ids, whose hashes V8 has cached. Past the limit every new
   * string gets the same number (more collisions, which sameShape settles).
   */
  private readonly stringIds = new Map<string, number>();

  constructor(private readonly matcher: Matcher<StackMemo>) {}

  /** The summary of one backtrace, `stack` being the matcher's preparation of it. */
  summarize(bt: Backtrace, index: number, stack: PreparedStack<StackMemo>): BacktraceSummary {
    const matcher = this.matcher;
    // A stack of a fingerprint seen before: most backtraces of a big dump. When its site frames and
    // top levels match the last one's, so does its whole shape (the pooled one the search below
    // would find), and only the Summary (and the captured values, if any) is new.
    const fingerprint = stack.fingerprint;
    const memo = fingerprint.memo;
    if (memo !== null && fitsMemoShape(memo, bt)) {
      // The shape does not depend on captured values: hits that capture are read for those alone.
      const captures = fingerprint.hits !== null ? null : this.capturesOfKept(matcher.match(stack));
      return new Summary(bt, index, memo.shape, captures);
    }
    const data: Slot[] = [];
    const slotFrames: number[] = [];
    // The slot of each frame sites point at, whichever hits share it.
    const slots = new Map<number, number>();
    const slotOf = (frameIndex: number): number => {
      const known = slots.get(frameIndex);
      if (known !== undefined) return known;
      const frame = bt.frames[frameIndex];
      if (frame === undefined) return -1;
      const at = data.length;
      // keep() detaches the strings from the input text: summaries outlive their backtrace.
      data.push(frame.level, this.strings.keep(frame.function), this.strings.keep(frame.file), frame.line, frame.sourceLine - bt.startLine);
      slots.set(frameIndex, at);
      slotFrames.push(frameIndex);
      return at;
    };
    const acquireAt = slotOf(fingerprint.waitSite);
    const matched = matcher.match(stack);
    const kept = keptAlternatives(matched);
    const sites = kept.map((alternatives) => alternatives.map((alt) => slotOf(alt.siteIndex)));
    const hitsAt = data.length;
    matched.forEach((hit, h) => {
      const alternatives = kept[h] as typeof hit.alternatives;
      data.push(hit.ruleId, alternatives.length);
      alternatives.forEach((alt, i) => data.push((sites[h] as number[])[i] as number, alt.pendingProcess.length === 0 ? NO_PENDING : alt.pendingProcess));
    });
    const captures = this.capturesOfKept(matched);
    const made: Shape = {
      frameCount: bt.frames.length,
      blocked: stack.blocked,
      top: this.sharedTop(bt.frames, stack.names),
      acquireName: acquireAt < 0 ? null : this.strings.keep(stack.names[stack.acquireIndex] as string),
      acquireAt,
      hitsAt,
      data,
    };
    const shape = this.sharedShape(made);
    // Remembered only when pooled (sharedShape gave another object than `made`), so the fast path
    // above returns what this would.
    if (shape !== made) fingerprint.memo = { shape, slotFrames };
    return new Summary(bt, index, shape, captures);
  }

  /** The top frames of `frames` (normalised `names`), shared with an earlier equal list. */
  private sharedTop(frames: readonly Frame[], names: readonly string[]): TopFrames {
    const n = Math.min(MERGE_FRAMES, frames.length);
    if (n === 0) return NO_TOP;
    let key = mix(FNV_START, n);
    for (let i = 0; i < n; i++) key = mix(mix(key, (frames[i] as Frame).level), this.stringId(names[i] as string));
    const candidates = this.topPool.get(key);
    if (candidates !== undefined) {
      for (const top of candidates) if (sameTop(top, frames, names, n)) return top;
    }
    const top: TopFrames = new Array(n);
    for (let i = 0; i < n; i++) top[i] = Object.freeze({ level: (frames[i] as Frame).level, name: this.strings.keep(names[i] as string) });
    Object.freeze(top);
    if (candidates !== undefined ? candidates.length < MAX_PER_KEY : this.topPool.size < MAX_TOPS) {
      if (candidates !== undefined) candidates.push(top);
      else this.topPool.set(key, [top]);
      this.pooledTops.add(top);
    }
    return top;
  }

  private stringId(s: string): number {
    const ids = this.stringIds;
    const known = ids.get(s);
    if (known !== undefined) return known;
    if (ids.size >= MAX_STRING_IDS) return MAX_STRING_IDS;
    ids.set(s, ids.size);
    return ids.size - 1;
  }

  private shapeHash(shape: Shape): number {
    let h = mix(FNV_START, shape.frameCount);
    h = mix(h, shape.blocked ? 1 : 2);
    h = mix(h, shape.acquireAt);
    h = mix(h, shape.hitsAt);
    h = mix(h, shape.acquireName === null ? -1 : this.stringId(shape.acquireName));
    for (const slot of shape.data) {
      if (typeof slot === 'number') h = mix(h, slot);
      else if (typeof slot === 'string') h = mix(h, this.stringId(slot));
      else if (slot === null) h = mix(h, -1);
      else {
        h = mix(h, -2 - slot.length);
        for (const n of slot) h = mix(h, n);
      }
    }
    return h;
  }

  /** `shape`, or an equal one made earlier. Only shapes of pooled top lists are pooled. */
  private sharedShape(shape: Shape): Shape {
    if (!this.pooledTops.has(shape.top)) return shape;
    let byKey = this.shapePool.get(shape.top);
    const key = this.shapeHash(shape);
    const candidates = byKey?.get(key);
    if (candidates !== undefined) for (const known of candidates) if (sameShape(known, shape)) return known;
    if (this.pooledShapes >= MAX_SHAPES) return shape;
    this.pooledShapes++;
    // Kept and shared from now on: an exact-size copy of the data (the array grown by push has
    // spare room), read only.
    shape = Object.freeze({ ...shape, data: Object.freeze(shape.data.slice()) });
    if (byKey === undefined) this.shapePool.set(shape.top, (byKey = new Map()));
    // Few per hash (collisions are rare), so a search stays short whatever the input.
    if (candidates !== undefined) {
      if (candidates.length < 8) candidates.push(shape);
    } else byKey.set(key, [shape]);
    return shape;
  }

  /**
   * The captured values of the kept alternatives (keptAlternatives), in order, NO_CAPTURES for those
   * that capture nothing; null when none captures. Walks `matched` directly (no kept lists).
   */
  private capturesOfKept(matched: readonly RuleHit[]): Array<Record<string, ParsedArgValue>> | null {
    let captures: Array<Record<string, ParsedArgValue>> | null = null;
    let k = 0;
    for (let h = 0; h < matched.length; h++) {
      const alternatives = (matched[h] as RuleHit).alternatives;
      for (let i = 0; i < alternatives.length; i++) {
        const alt = alternatives[i] as HitAlternative;
        const values = this.keepCaptures(alt.captures);
        if (values !== NO_CAPTURES) {
          captures ??= [];
          while (captures.length < k) captures.push(NO_CAPTURES);
          captures.push(values);
        }
        k++;
        // The first alternative with nothing pending is the last one kept (keptAlternatives).
        if (alt.pendingProcess.length === 0) break;
      }
    }
    // Room for these only, not the 17 a pushed array keeps: one list a thread outlives this stage.
    return captures === null ? null : captures.slice();
  }

  /** Captured argument values, detached from the input text (they live as long as the analysis). */
  private keepCaptures(captures: Record<string, ParsedArgValue>): Record<string, ParsedArgValue> {
    let out: Record<string, ParsedArgValue> | null = null;
    for (const name of Object.keys(captures)) {
      const v = captures[name] as ParsedArgValue;
      out ??= {};
      out[name] = { ...v, value: this.strings.keep(v.value), address: this.strings.keep(v.address), symbol: this.strings.keep(v.symbol) };
    }
    return out ?? NO_CAPTURES;
  }
}

/**
 * settleRules takes the first alternative whose pending conditions all hold: one with none
 * pending always does, so the alternatives after it can never be taken and are not kept.
 */
function keptAlternatives(matched: readonly RuleHit[]): HitAlternative[][] {
  return matched.map((hit) => {
    const always = hit.alternatives.findIndex((alt) => alt.pendingProcess.length === 0);
    return always < 0 ? hit.alternatives : hit.alternatives.slice(0, always + 1);
  });
}
