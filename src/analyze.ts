/**
 * The analysis pipeline's public face: `analyze(dump)` for a parsed dump, `analyzeText(text)` and
 * `analyzeStream(chunks)` from gdb text (the dump is analysed backtrace by backtrace as the parser
 * produces them), `createAnalyzer()` for callers that drive the parser themselves, and
 * `openOwnerQueries()` for live mode.
 */
import type { Analysis } from './model/analysis.js';
import { parseDumpStream, DumpParser } from './parse/index.js';
import { createAnalyzer, type AnalyzeOptions } from './analyze/analyzer.js';

export { analyze, createAnalyzer, normalizeResourceId, type AnalyzeOptions, type Analyzer } from './analyze/analyzer.js';
export { openOwnerQueries, type OwnerQuery } from './analyze/owner-queries.js';

export interface StreamOptions extends AnalyzeOptions {
  /** Keep every frame in `Analysis.dump` (default true; reports that print stacks need them). */
  keepFrames?: boolean;
}

/** Parses and analyses gdb text in one pass. Never throws on odd input. */
export function analyzeText(text: string, options: StreamOptions = {}): Analysis {
  const analyzer = createAnalyzer(options);
  const parser = new DumpParser({ onBacktrace: (bt, i) => analyzer.addBacktrace(bt, i), keepFrames: options.keepFrames ?? true });
  parser.push(text);
  return analyzer.finish(parser.end());
}

/** Like analyzeText for a stream of chunks (stdin, a file read in pieces). */
export async function analyzeStream(chunks: AsyncIterable<string | Buffer>, options: StreamOptions = {}): Promise<Analysis> {
  const analyzer = createAnalyzer(options);
  const dump = await parseDumpStream(chunks, { onBacktrace: (bt, i) => analyzer.addBacktrace(bt, i), keepFrames: options.keepFrames ?? true });
  return analyzer.finish(dump);
}
