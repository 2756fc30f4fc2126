/** Shared by the parse tests: the fixture files, golden paths and the line-accounting check. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Dump } from '../../src/model/dump.js';
import { FIXTURES, FOUNDING } from '../helpers/paths.js';

export const SHAPES_DIR = join(FIXTURES, 'parse', 'shapes');
export const FOUNDING_GOLDEN = join(FIXTURES, 'parse', 'enzyme-autodiff-deferred.json');
export const UPDATE_GOLDEN = process.env.UPDATE_GOLDEN === '1';

/** Every shape fixture as [name, text path, golden path]. */
export function shapeFixtures(): Array<{ name: string; txt: string; json: string }> {
  return readdirSync(SHAPES_DIR)
    .filter((f) => f.endsWith('.txt'))
    .sort()
    .map((f) => ({ name: f.slice(0, -4), txt: join(SHAPES_DIR, f), json: join(SHAPES_DIR, `${f.slice(0, -4)}.json`) }));
}

export { FOUNDING };

/** The golden form of a Dump: two-space JSON and a final newline, as `waitgraph parse` prints it. */
export function goldenText(dump: Dump): string {
  return `${JSON.stringify(dump, null, 2)}\n`;
}

/** Number of lines as the parser counts them: a last line without `\n` counts; CR-only files count CRs. */
export function countLines(text: string): number {
  if (text.length === 0) return 0;
  const sep = text.includes('\n') ? '\n' : text.includes('\r') ? '\r' : '\n';
  const parts = text.split(sep);
  return parts.length - (text.endsWith(sep) ? 1 : 0);
}

/**
 * Lines no part of the Dump accounts for. A line is accounted for when it is ignored, or is a
 * frame's line or continuation, a local's, an owner hint's, or lies inside a backtrace's
 * [startLine, endLine] (its header, trailer, locals markers, elision markers).
 */
export function unaccountedLines(dump: Dump): number[] {
  const seen = new Uint8Array(dump.stats.lines + 2);
  const mark = (line: number) => {
    if (line >= 1 && line <= dump.stats.lines) seen[line] = 1;
  };
  for (const i of dump.ignored) mark(i.line);
  for (const bt of dump.backtraces) {
    for (let l = bt.startLine; l <= bt.endLine; l++) mark(l);
    for (const f of bt.frames) {
      mark(f.sourceLine);
      for (const c of f.continuationLines ?? []) mark(c);
      for (const local of f.locals ?? []) {
        mark(local.sourceLine);
        for (const c of local.continuationLines ?? []) mark(c);
      }
    }
  }
  for (const h of dump.ownerHints) {
    mark(h.sourceLine);
    for (const c of h.continuationLines ?? []) mark(c);
  }
  const missing: number[] = [];
  for (let l = 1; l <= dump.stats.lines; l++) if (seen[l] === 0) missing.push(l);
  return missing;
}
