/** Shared by the parse tests: the fixture files, golden paths and the line-accounting check. */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Dump } from '../../src/model/dump.js';
import { cleanLine } from '../../src/parse/paste-cleanup.js';
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
  for (const s of dump.signals ?? []) mark(s.sourceLine);
  if (dump.process) mark(dump.process.sourceLine);
  const missing: number[] = [];
  for (let l = 1; l <= dump.stats.lines; l++) if (seen[l] === 0) missing.push(l);
  return missing;
}

/**
 * How often each input line is named by the Dump, by exactly one kind of place: `ignored`; a
 * backtrace's header (its `startLine` when no frame of it starts there); a frame or a local with
 * their continuation lines; a signal line; Julia's process line; an owner hint (one read from a
 * `bt full` local names that local's lines, so it is not counted again; the hints of one print
 * showing several locks name its lines once); a backtrace's `markerLines`. Index 0 and n+1 count names
 * outside 1..n.
 */
export function lineClaims(dump: Dump): Uint32Array {
  const n = dump.stats.lines;
  const counts = new Uint32Array(n + 2);
  const claim = (line: number) => {
    counts[Number.isInteger(line) && line >= 1 && line <= n ? line : line < 1 ? 0 : n + 1]!++;
  };
  for (const i of dump.ignored) claim(i.line);
  const localLines = new Set<number>();
  for (const bt of dump.backtraces) {
    if (!bt.frames.some((f) => f.sourceLine === bt.startLine)) claim(bt.startLine);
    for (const f of bt.frames) {
      claim(f.sourceLine);
      for (const c of f.continuationLines ?? []) claim(c);
      for (const local of f.locals ?? []) {
        localLines.add(local.sourceLine);
        claim(local.sourceLine);
        for (const c of local.continuationLines ?? []) claim(c);
      }
    }
    for (const m of bt.markerLines ?? []) claim(m);
  }
  // One print (or local) showing several locks gives a hint each: together they name its lines once.
  const hintLines = new Set<number>();
  for (const h of dump.ownerHints) {
    if (localLines.has(h.sourceLine) || hintLines.has(h.sourceLine)) continue;
    hintLines.add(h.sourceLine);
    claim(h.sourceLine);
    for (const c of h.continuationLines ?? []) claim(c);
  }
  for (const s of dump.signals ?? []) claim(s.sourceLine);
  if (dump.process) claim(dump.process.sourceLine);
  return counts;
}

/**
 * A physical line on which gdb (or a paste) put several records, each of which names the line:
 * a frame glued after `[Switching to thread …]`, frames glued into an argument (`f (x=#1 g (…`),
 * a GDB/MI console record holding several lines. Markdown may escape the glue: `\]\#0`.
 */
const MULTI_RECORD_LINE = /\\?\]\\?#\d|[=(]#\d+ |^\s*[~@&]".*\\n.*"/;

/**
 * The exact line accounting of `dump` for `text`: every line 1..stats.lines is named exactly once
 * (see lineClaims), except lines holding several records, which are named at least once. Returns
 * the problems found, empty when the partition is exact.
 */
export function exactAccountingProblems(dump: Dump, text: string): string[] {
  const problems: string[] = [];
  const n = dump.stats.lines;
  if (n !== countLines(text)) problems.push(`stats.lines ${n} != ${countLines(text)} input lines`);
  const counts = lineClaims(dump);
  if (counts[0]! > 0 || counts[n + 1]! > 0) problems.push(`${counts[0]! + counts[n + 1]!} names of lines outside 1..${n}`);
  const sep = text.includes('\n') ? '\n' : '\r';
  const raw = text.split(sep);
  for (let line = 1; line <= n && problems.length < 10; line++) {
    const c = counts[line]!;
    if (c === 1) continue;
    const shown = JSON.stringify((raw[line - 1] ?? '').slice(0, 80));
    if (c === 0) problems.push(`line ${line} is named nowhere: ${shown}`);
    // Tested on the line as the parser reads it (colour and hyperlink escapes gone), where the glue is seen.
    else if (!MULTI_RECORD_LINE.test(cleanLine(raw[line - 1] ?? '', false).text)) problems.push(`line ${line} is named ${c} times: ${shown}`);
  }
  return problems;
}
