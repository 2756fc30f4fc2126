/**
 * The analysis pipeline's public face: `analyze(dump)` for a parsed dump, `createAnalyzer()` to
 * analyse backtraces as the parser streams them, `openOwnerQueries()` for live mode.
 */
export { analyze, createAnalyzer, normalizeResourceId, type AnalyzeOptions, type Analyzer } from './analyze/analyzer.js';
export { openOwnerQueries, type OwnerQuery } from './analyze/owner-queries.js';
