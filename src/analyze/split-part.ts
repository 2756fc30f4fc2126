/**
 * The worker's side of a split input (analyze/parallel.ts): parses the text from a seam to the end
 * and runs the per-backtrace analysis on it, as the main thread would have, and packs the result
 * as plain data for postMessage. Loads only the parser, the summaries and the rule matcher — not
 * the cross-thread analysis, the graph or the reporters — so a worker starts fast.
 */
import type { Dump } from '../model/dump.js';
import { DumpParser } from '../parse/index.js';
import type { LoadedRules } from '../rules/types.js';
import { analyzeBacktrace, summaryForTransfer, type BacktraceSummary, type SummaryTransfer } from './summary.js';

/** What a worker hands back for the part of the input it analysed. */
export interface PartResult {
  /**
   * True when the part can be appended to the main thread's: no `info threads` rows held for the
   * end (whether they are shown depends on threads of the whole input) and no limit notes (their
   * sentences name line numbers of the part). Otherwise the rest is empty and the main thread
   * parses the part itself.
   */
  appendable: boolean;
  /** The thread rules' ids, in order, joined: the part was analysed with the main thread's rules. */
  rulesKey: string;
  /** The part's Dump, frames dropped; line numbers count from the part's first line (1). */
  dump: Dump;
  /** Per backtrace, in the order the parser handed them out; indices count from 0. */
  summaries: SummaryTransfer[];
  /** The process-wide conditions the part's backtraces meet (rules.processConditions order). */
  processFlags: boolean[];
}

/** The key PartResult.rulesKey is compared with. */
export function rulesKeyOf(rules: LoadedRules): string {
  return rules.threadRules.map((r) => r.id).join('\n') + '\n#' + rules.processConditions.length;
}

/** Parses and summarises `chunks` (text that starts at a record seam) with frames dropped. */
export async function analyzePart(chunks: AsyncIterable<string>, rules: LoadedRules): Promise<PartResult> {
  const summaries: BacktraceSummary[] = [];
  const processFlags = rules.processConditions.map(() => false);
  const parser = new DumpParser({ onBacktrace: (bt, index) => summaries.push(analyzeBacktrace(rules, bt, index, processFlags)), keepFrames: false });
  for await (const chunk of chunks) parser.push(chunk);
  const rows = parser.held().rows;
  const dump = parser.end();
  const appendable = rows === 0 && dump.capped === undefined;
  return {
    appendable,
    rulesKey: rulesKeyOf(rules),
    dump: appendable ? dump : { ...dump, backtraces: [], ownerHints: [], ignored: [] },
    summaries: appendable ? summaries.map(summaryForTransfer) : [],
    processFlags,
  };
}
