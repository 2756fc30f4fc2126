/**
 * The reporters, one module a format. Each takes an Analysis and returns the whole report as a
 * string; colour comes in as a chalk instance (level 0 in tests and when piped), so reporters stay
 * pure. The CLI builds `--format`'s choices from this registry.
 */
import { Chalk, type ChalkInstance } from 'chalk';
import type { Analysis } from '../model/analysis.js';
import { renderJson } from './json.js';
import { renderText } from './text.js';

export interface ReportOptions {
  chalk: ChalkInstance;
}

export type Reporter = (analysis: Analysis, options: ReportOptions) => string;

export type Format = 'text' | 'json';

export const reporters = {
  text: renderText,
  json: renderJson,
} satisfies Record<Format, Reporter>;

export const FORMATS = Object.keys(reporters) as Format[];

export function isFormat(value: string): value is Format {
  return Object.prototype.hasOwnProperty.call(reporters, value);
}

/**
 * Colour for a stream: NO_COLOR (any value) turns it off, FORCE_COLOR=0..3 forces a level, else
 * colour only on a terminal.
 */
export function createChalk(stream: { isTTY: boolean; env: Readonly<Record<string, string | undefined>> }): ChalkInstance {
  const { env } = stream;
  if (env['NO_COLOR'] !== undefined && env['NO_COLOR'] !== '') return new Chalk({ level: 0 });
  const forced = env['FORCE_COLOR'];
  if (forced !== undefined && /^[0-3]$/.test(forced)) return new Chalk({ level: Number(forced) as 0 | 1 | 2 | 3 });
  return new Chalk({ level: stream.isTTY ? 1 : 0 });
}

export { renderJson, renderText };
export { toJsonReport, type JsonReport } from './json.js';
