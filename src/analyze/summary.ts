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
  /** Normalised names of the first frames, with their levels. */
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

export function summarizeBacktrace(rules: LoadedRules, bt: Backtrace, index: number, stack?: PreparedStack): BacktraceSummary {
  const prepared = stack ?? prepareStack(bt, rules.primitives);
  const hits = matchBacktrace(rules, prepared).map((hit) => ({
    ruleId: hit.ruleId,
    alternatives: hit.alternatives.map((alt) => {
      const frame = bt.frames[alt.siteIndex];
      return { site: frame ? frameRef(index, frame) : null, captures: keepCaptures(alt.captures), pendingProcess: alt.pendingProcess };
    }),
  }));
  const acquire = bt.frames[prepared.acquireIndex];
  return {
    index,
    thread: bt.thread,
    startLine: bt.startLine,
    frameCount: bt.frames.length,
    top: bt.frames.slice(0, MERGE_FRAMES).map((f, i) => ({ level: f.level, name: keep(prepared.names[i] as string) })),
    hits,
    blocked: prepared.blocked,
    truncated: bt.truncated,
    acquireSite: acquire ? frameRef(index, acquire) : null,
    acquireName: acquire ? keep(prepared.names[prepared.acquireIndex] as string) : null,
  };
}

/** Captured argument values, detached from the input text (they live as long as the analysis). */
function keepCaptures(captures: Record<string, ParsedArgValue>): Record<string, ParsedArgValue> {
  const out: Record<string, ParsedArgValue> = {};
  for (const [name, v] of Object.entries(captures)) out[name] = { ...v, value: keep(v.value), address: keep(v.address), symbol: keep(v.symbol) };
  return out;
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
