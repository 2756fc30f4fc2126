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
  if (candidates !== undefined) candidates.push(top);
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

/**
 * A summary that reads `thread`, `startLine` and `truncated` from its backtrace instead of
 * copying them: with frames dropped the parser swaps the backtrace's ThreadInfo for a detached
 * copy after this stage, and the summary then shares that copy instead of keeping the first one
 * (one ThreadInfo a thread, not two). The backtrace's frames are not kept through it: the parser
 * empties them.
 */
class Summary implements BacktraceSummary {
  constructor(
    private readonly bt: Backtrace,
    readonly index: number,
    readonly frameCount: number,
    readonly top: TopFrames,
    readonly hits: SummaryHit[],
    readonly blocked: boolean,
    readonly acquireSite: FrameRef | null,
    readonly acquireName: string | null,
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
}

export function summarizeBacktrace(rules: LoadedRules, bt: Backtrace, index: number, stack?: PreparedStack): BacktraceSummary {
  const prepared = stack ?? prepareStack(bt, rules.primitives);
  // One FrameRef per frame that sites point at, whichever hits share it.
  const refs = new Map<number, FrameRef>();
  const refAt = (frameIndex: number): FrameRef | null => {
    const known = refs.get(frameIndex);
    if (known !== undefined) return known;
    const frame = bt.frames[frameIndex];
    if (frame === undefined) return null;
    const ref = frameRef(index, frame);
    refs.set(frameIndex, ref);
    return ref;
  };
  const matched = matchBacktrace(rules, prepared);
  const hits =
    matched.length === 0
      ? NO_HITS
      : matched.map((hit) => ({
          ruleId: hit.ruleId,
          alternatives: hit.alternatives.map((alt) => ({
            site: refAt(alt.siteIndex),
            captures: keepCaptures(alt.captures),
            pendingProcess: alt.pendingProcess.length === 0 ? NO_PENDING : alt.pendingProcess,
          })),
        }));
  const acquireSite = refAt(prepared.acquireIndex);
  return new Summary(
    bt,
    index,
    bt.frames.length,
    sharedTop(bt.frames, prepared.names),
    hits,
    prepared.blocked,
    acquireSite,
    acquireSite ? keep(prepared.names[prepared.acquireIndex] as string) : null,
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
