/**
 * Where a dump can be cut in two and each part parsed on its own (analyze/parallel.ts): before a
 * line that starts with a thread header, `Thread 12 (Thread 0x7840dfe006c0 (LWP 45441) "julia"):`.
 * Such a line is never joined to the line before it (lines.ts startsRecord: not a frame's wrapped
 * tail, not a value's next line, it ends a pager-cut line), and a header starts a new record
 * (index.ts), so the parse of what follows does not depend on what came before — except for what
 * the builder holds across records, which DumpParser.endAtSeam reports.
 */
import { cleanLine, PagerEffect } from './normalize.js';
import { parseThreadHeader } from './thread-header.js';

/** `Thread 12 (` at the very start of a line: the bytes a seam candidate starts with. */
export const SEAM_START = /^Thread \d+(?:\.\d+)? \(/;

/**
 * True when the physical line `raw` (without its line end) is a record seam: after normalising
 * (lines.ts physical) it still starts with `Thread N (` at column 0, no pager prompt cuts or
 * replaces it, and it reads as a thread header (lines.ts classify gives Kind.Header).
 */
export function isRecordSeamLine(raw: string): boolean {
  if (!SEAM_START.test(raw)) return false;
  const clean = cleanLine(raw);
  if (clean.pager !== PagerEffect.None || !SEAM_START.test(clean.text)) return false;
  return parseThreadHeader(clean.text) !== null;
}
