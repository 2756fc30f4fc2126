/**
 * The analysis pipeline's public face: `analyze(dump)` for a parsed dump, `analyzeText(text)` and
 * `analyzeStream(chunks)` from gdb text (the dump is analysed backtrace by backtrace as the parser
 * produces them), `createAnalyzer()` for callers that drive the parser themselves, and
 * `openOwnerQueries()` and `createLiveAnalyzer()` for live mode.
 */
import type { LiveAnalyzer } from '../live/investigate.js';
import type { Analysis } from '../model/analysis.js';
import { parseDump } from '../parse/index.js';
import { backtraceParser } from '../parse/parser.js';
import type { LoadedRules } from '../rules/types.js';
import { analyze, createAnalyzer, type AnalysisSink, type AnalyzeOptions, type StreamOptions } from './analyzer.js';
import type { SourceReader } from '../source/index.js';
import { analyzeSeries } from './snapshots/index.js';

export { analyze, createAnalyzer, normalizeResourceId, type AnalyzeOptions, type Analyzer, type AnalysisSink, type DumpAnalysis, type StreamOptions } from './analyzer.js';
export { openOwnerQueries, type OwnerQuery } from './owner-queries.js';
/** The first stage alone, for `waitgraph parse` (the parsed model as JSON). */
export { parseDumpStream } from '../parse/index.js';
/** The whole text parsed, every frame kept (snapshots read a dump again with its frames). */
export { parseDump };
export { isFinding } from './crash.js';

/**
 * Parses and analyses text pushed in pieces (e.g. while gdb prints it), backtrace by backtrace;
 * `end()` gives what analyzeText would give for the whole text. A session of its own.
 */
export function createAnalysisSink(options: StreamOptions = {}): AnalysisSink {
  return createAnalyzer(options).sink();
}

/** Parses and analyses gdb text in one pass, in a session of its own. Never throws on odd input. */
export function analyzeText(text: string, options: StreamOptions = {}): Analysis {
  return createAnalyzer(options).analyzeText(text);
}

/** Like analyzeText for a stream of chunks (stdin, a file read in pieces), in a session of its own. */
export function analyzeStream(chunks: AsyncIterable<string | Buffer>, options: StreamOptions = {}): Promise<Analysis> {
  return createAnalyzer(options).analyzeStream(chunks);
}

/**
 * The parser and analyser `attach` and `core` hand to the live investigation (live/investigate.ts),
 * with `rules`. Chevrotain builds its parser on first use (tens of ms): it is built here, while
 * gdb attaches.
 */
export function createLiveAnalyzer(rules: LoadedRules, source?: SourceReader): LiveAnalyzer {
  backtraceParser();
  const extra = source !== undefined ? { source } : {};
  return {
    parse: parseDump,
    analyze: (dump, facts) => analyze(dump, { rules, facts, ...extra }),
    // The same parse and analysis, backtrace by backtrace while gdb prints (as analyzeText does).
    stream: () => createAnalysisSink({ rules, ...extra }),
    // attach --samples: the samples as snapshots of one process (analyze/snapshots/).
    series: (samples, times) =>
      analyzeSeries(
        samples.map((s) => s.dump),
        (dump) => analyze(dump, { rules, ...extra }),
        { times, how: 'given' },
        samples.map((s) => s.analysis),
      ),
  };
}

export interface OpenSourceOptions {
  /** The `--source` folders. */
  dirs: readonly string[];
  cwd: string;
  /** The `--rules` files and folders: their packs' source-locks.yaml add to the built-in vocabulary. */
  rules?: readonly string[];
  /**
   * Load every grammar before returning, for callers that analyse synchronously (analyzeText,
   * createAnalysisSink, live mode). analyzeStream loads only what the frames' files need.
   */
  allGrammars?: boolean;
}

/**
 * `--source DIR…`: the source reader the analysis takes as `source` (AnalyzeOptions). A folder that
 * does not exist is an InputError (one line, exit 2). The reader, its grammars (WebAssembly) and
 * the lock vocabulary are loaded only here, so a run without `--source` never loads them; the
 * grammars start loading now, while the dump is read.
 */
export async function openSource(options: OpenSourceOptions): Promise<SourceReader> {
  const { openSourceReader, sourceRoots } = await import('../source/index.js');
  sourceRoots(options.dirs, options.cwd);
  const { loadSourceLocks } = await import('../rules/source-locks.js');
  const vocabulary = loadSourceLocks({ cwd: options.cwd, ...(options.rules ? { extraFiles: options.rules } : {}) });
  const reader = await openSourceReader({ dirs: options.dirs, cwd: options.cwd, vocabulary });
  if (options.allGrammars === true) await reader.prepare();
  return reader;
}

export type { SourceReader } from '../source/index.js';
