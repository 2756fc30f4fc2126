/**
 * A big input analysed on two threads (issue 7, figures 1 and 2: the machine has two cores). The
 * input is cut at a record seam (parse/seam.ts: a line that starts with a thread header); a worker
 * parses and summarises the text from the seam on (split-part.ts) while this thread does the text
 * before it; then the worker's part is appended and the cross-thread analysis runs here on the
 * whole.
 *
 * The result is the one a single pass gives, always. The part is appended only when nothing of the
 * parse crosses the seam: DumpParser.endAtSeam (no held line, no echoed frame waiting for its
 * backtrace, no `info threads` row) and PartResult.appendable (no rows, no limit notes). Anything
 * else — or a worker that failed — and this thread parses the text from the seam itself, as one
 * pass would have: correct, only slower. What does cross the seam legitimately is all in the
 * cross-thread stage, which runs on the joined summaries: a thread seen in both parts ("appears
 * again"), a headerless `bt` merged into a thread of the other part, process-wide conditions.
 */
import type { Analysis } from '../model/analysis.js';
import type { Dump } from '../model/dump.js';
import { DumpParser } from '../parse/index.js';
import { isRecordSeamLine } from '../parse/seam.js';
import { loadBuiltinRules } from '../rules/builtin.js';
import { createAnalyzer, type AnalyzeOptions } from './analyzer.js';
import { rulesKeyOf, type PartResult } from './split-part.js';
import { summariesFromTransfer } from './summary.js';

export type { PartResult } from './split-part.js';

export interface SplitInput {
  /** The text before the seam (it ends with a line end). */
  head: AsyncIterable<string>;
  /** The first physical line after the seam, without its line end. */
  seamLine: string;
  /** The worker's analysis of the text from the seam on (analyzePart); null when it failed. */
  part: Promise<PartResult | null>;
  /** The text from the seam on, for when the part cannot be used. */
  tail: () => AsyncIterable<string>;
  /** Called when the part will not be used or has been taken (stop the worker). */
  release?: () => void;
}

/** How a split analysis went (for tests and measurements). */
export type SplitOutcome = 'appended' | 'parsed-here';

/**
 * The analysis of head + tail with frames dropped (keepFrames false: a part's frames are never
 * sent), the same as analyzeStream gives for the whole text.
 */
export async function analyzeSplit(input: SplitInput, options: AnalyzeOptions = {}, outcome?: (how: SplitOutcome) => void): Promise<Analysis> {
  const rules = options.rules ?? loadBuiltinRules();
  const analyzer = createAnalyzer({ ...options, rules });
  const parser = new DumpParser({ onBacktrace: (bt, i) => analyzer.addBacktrace(bt, i), keepFrames: false });
  let part: PartResult | null = null;
  try {
    for await (const chunk of input.head) parser.push(chunk);
    // endAtSeam only where the next line is a seam: it then leaves the parser as that line would.
    if (isRecordSeamLine(input.seamLine) && parser.endAtSeam()) part = await input.part;
  } finally {
    input.release?.();
  }
  if (part !== null && part.appendable && part.rulesKey === rulesKeyOf(rules)) {
    const dump = parser.end();
    const indexOffset = dump.backtraces.length;
    appendDump(dump, part.dump);
    analyzer.addSummaries(summariesFromTransfer(part.summaries, indexOffset), part.processFlags);
    outcome?.('appended');
    return analyzer.finish(dump);
  }
  for await (const chunk of input.tail()) parser.push(chunk);
  outcome?.('parsed-here');
  return analyzer.finish(parser.end());
}

/**
 * Appends a part's Dump (line numbers from 1) to the Dump of the text before it, as one parse of
 * both would have built it: the part's lines come after `dump.stats.lines`, its backtraces after
 * the head's (each part is in input order, and every line of the part comes after the head's, so
 * the joined lists are in order too).
 */
function appendDump(dump: Dump, part: Dump): void {
  const shift = dump.stats.lines;
  const shifted = new Set<number[]>();
  const shiftLines = (lines: number[] | undefined): void => {
    // Lists may be shared (a structured clone keeps the parser's shared empties shared).
    if (lines === undefined || lines.length === 0 || shifted.has(lines)) return;
    shifted.add(lines);
    for (let i = 0; i < lines.length; i++) lines[i] = (lines[i] as number) + shift;
  };
  for (const bt of part.backtraces) {
    bt.startLine += shift;
    bt.endLine += shift;
    for (const gap of bt.gaps) gap.sourceLine += shift;
    shiftLines(bt.markerLines);
    dump.backtraces.push(bt);
  }
  for (const hint of part.ownerHints) {
    hint.sourceLine += shift;
    shiftLines(hint.continuationLines);
    dump.ownerHints.push(hint);
  }
  for (const line of part.ignored) {
    line.line += shift;
    dump.ignored.push(line);
  }
  dump.stats = {
    lines: shift + part.stats.lines,
    backtraces: dump.backtraces.length,
    frames: dump.stats.frames + part.stats.frames,
    ignoredLines: dump.ignored.length,
  };
}
