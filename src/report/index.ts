/**
 * The reporters, one module a format. Each takes an Analysis and returns the whole report as a
 * string; colour comes in as a chalk instance (level 0 in tests and when piped), so reporters stay
 * pure. The CLI builds `--format`'s choices from this registry.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { Analysis } from '../model/analysis.js';
import { renderJson } from './json.js';
import { renderText } from './text.js';
import type { GroupMode } from './group.js';

export interface ReportOptions {
  chalk: ChalkInstance;
  /** How alike stacks must be to be shown once (text, Markdown, HTML); each reporter has its default. */
  group?: GroupMode;
  /** The dump's path as the user named it (SARIF points at its lines); absent for stdin. */
  input?: string;
  /** waitgraph's version (SARIF `tool.driver.version`). */
  version?: string;
  /** Text: the columns to wrap at (the terminal's width); 100 when absent. */
  width?: number;
  /** Text: at most this many thread numbers per listed group (`--limit`); all when absent. */
  limit?: number;
  /** SARIF: the absolute folder artifact URIs are relative to (`--sarif-root`); see sarif.ts. */
  sarifRoot?: string;
}

/** Returns the whole report; SVG is async (Graphviz in WebAssembly), the CLI awaits every format. */
export type Reporter = (analysis: Analysis, options: ReportOptions) => string | Promise<string>;

export type Format = 'text' | 'json' | 'markdown' | 'mermaid' | 'dot' | 'svg' | 'sarif' | 'html' | 'github';

export const reporters = {
  text: renderText,
  json: renderJson,
  // The other formats' modules are imported when first used: a start loads only the chosen one
  // (text and JSON stay synchronous for library callers; issue 7, figure 4).
  markdown: async (analysis, options) => (await import('./markdown.js')).renderMarkdown(analysis, options.group ? { group: options.group } : {}),
  mermaid: async (analysis) => (await import('./mermaid.js')).renderMermaid(analysis),
  dot: async (analysis) => (await import('./dot.js')).renderDot(analysis),
  svg: async (analysis) => (await import('./svg.js')).renderSvg(analysis),
  sarif: async (analysis, options) =>
    (await import('./sarif.js')).renderSarif(analysis, {
      ...(options.version ? { version: options.version } : {}),
      ...(options.input && options.input !== '-' ? { inputUri: options.input } : {}),
      ...(options.sarifRoot ? { root: options.sarifRoot } : {}),
    }),
  html: async (analysis, options) => (await import('./html/index.js')).renderHtml(analysis, options.group ? { group: options.group } : {}),
  github: async (analysis, options) => (await import('./github.js')).renderGithub(analysis, options.input ? { file: options.input } : {}),
} satisfies Record<Format, Reporter>;

export const FORMATS = Object.keys(reporters) as Format[];

export function isFormat(value: string): value is Format {
  return Object.prototype.hasOwnProperty.call(reporters, value);
}

/**
 * Colour for a stream: `--color` / `--no-color` (`flag`) win; then NO_COLOR (any non-empty value)
 * turns it off, FORCE_COLOR=0..3 forces a level; else colour only on a terminal.
 */
export function createChalk(stream: { isTTY: boolean; env: Readonly<Record<string, string | undefined>>; flag?: boolean }): ChalkInstance {
  const { env } = stream;
  const forced = env['FORCE_COLOR'];
  const forcedLevel = forced !== undefined && /^[0-3]$/.test(forced) ? (Number(forced) as 0 | 1 | 2 | 3) : null;
  if (stream.flag === false) return new Chalk({ level: 0 });
  if (stream.flag === true) return new Chalk({ level: forcedLevel !== null && forcedLevel > 0 ? forcedLevel : 1 });
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return new Chalk({ level: 0 });
  if (forcedLevel !== null) return new Chalk({ level: forcedLevel });
  return new Chalk({ level: stream.isTTY ? 1 : 0 });
}

export { renderJson, renderText };
export { toJsonReport, type JsonReport } from './json.js';
