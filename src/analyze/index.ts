/**
 * The analysis pipeline's public face: `analyze(dump)` for a parsed dump, `analyzeText(text)` and
 * `analyzeStream(chunks)` from gdb text (the dump is analysed backtrace by backtrace as the parser
 * produces them), `createAnalyzer()` for callers that drive the parser themselves, and
 * `openOwnerQueries()` and `createLiveAnalyzer()` for live mode.
 */
import type { LiveAnalyzer } from '../live/investigate.js';
import type { Analysis } from '../model/analysis.js';
import type { Dump } from '../model/dump.js';
import { parseDump, parseDumpStream, DumpParser } from '../parse/index.js';
import { backtraceParser } from '../parse/parser.js';
import type { LoadedRules } from '../rules/types.js';
import { analyze, createAnalyzer, type AnalyzeOptions } from './analyzer.js';
import type { SourceReader } from '../source/index.js';

export { analyze, createAnalyzer, normalizeResourceId, type AnalyzeOptions, type Analyzer } from './analyzer.js';
export { openOwnerQueries, type OwnerQuery } from './owner-queries.js';
/** The first stage alone, for `waitgraph parse` (the parsed model as JSON). */
export { parseDumpStream } from '../parse/index.js';
export { isFinding } from './crash.js';

export interface StreamOptions extends AnalyzeOptions {
  /** Keep every frame in `Analysis.dump` (default true; reports that print stacks need them). */
  keepFrames?: boolean;
}

/** Text pushed in as it arrives, the dump and its analysis at the end. */
export interface AnalysisSink {
  push(chunk: string): void;
  end(): { dump: Dump; analysis: Analysis };
}

/**
 * Parses and analyses text pushed in pieces (e.g. while gdb prints it), backtrace by backtrace;
 * `end()` gives what analyzeText would give for the whole text.
 */
export function createAnalysisSink(options: StreamOptions = {}): AnalysisSink {
  const analyzer = createAnalyzer(options);
  const parser = new DumpParser({ onBacktrace: (bt, i) => analyzer.addBacktrace(bt, i), keepFrames: options.keepFrames ?? true });
  return {
    push: (chunk) => parser.push(chunk),
    end: () => {
      const dump = parser.end();
      return { dump, analysis: analyzer.finish(dump) };
    },
  };
}

/** Parses and analyses gdb text in one pass. Never throws on odd input. */
export function analyzeText(text: string, options: StreamOptions = {}): Analysis {
  const sink = createAnalysisSink(options);
  sink.push(text);
  return sink.end().analysis;
}

/** Like analyzeText for a stream of chunks (stdin, a file read in pieces). */
export async function analyzeStream(chunks: AsyncIterable<string | Buffer>, options: StreamOptions = {}): Promise<Analysis> {
  const analyzer = createAnalyzer(options);
  const dump = await parseDumpStream(chunks, { onBacktrace: (bt, i) => analyzer.addBacktrace(bt, i), keepFrames: options.keepFrames ?? true });
  // --source: the grammars the frames' files need (loading since openSource) must be ready.
  if (options.source !== undefined) await options.source.prepare(framePaths(dump));
  return analyzer.finish(dump);
}

/** Every file a frame names, once. */
function framePaths(dump: Dump): string[] {
  const paths = new Set<string>();
  for (const bt of dump.backtraces) for (const frame of bt.frames) if (frame.file !== null) paths.add(frame.file);
  return [...paths];
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
