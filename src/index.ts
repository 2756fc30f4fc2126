/**
 * waitgraph as a library: parse gdb text, analyse it with the built-in (and your) rules, render a
 * report. Never touches `process`.
 *
 *   import { analyzeText, reporters } from 'waitgraph';
 *   const analysis = analyzeText(gdbOutput);
 *   console.log(reporters.text(analysis, { chalk: new Chalk({ level: 0 }) }));
 */
export { parseDump, parseDumpStream, DumpParser, type ParseOptions } from './parse/index.js';
export {
  analyze,
  analyzeText,
  analyzeStream,
  createAnalyzer,
  openOwnerQueries,
  type AnalyzeOptions,
  type Analyzer,
  type OwnerQuery,
  type StreamOptions,
} from './analyze/index.js';
export { loadRules, builtinRulesDir, normalizeFunctionName, type LoadedRules, type LoadRulesOptions } from './rules/index.js';
export { reporters, FORMATS, isFormat, createChalk, renderText, renderJson, toJsonReport, type Format, type Reporter, type ReportOptions, type JsonReport } from './report/index.js';
export { WaitgraphError, UsageError, InputError, RuleError, GdbError, type ErrorCode } from './errors.js';
export type * from './model/dump.js';
export type * from './model/analysis.js';
