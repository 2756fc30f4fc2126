/**
 * Strings the analysis keeps past the backtrace they came from (frame names and files of sites,
 * captured argument values), copied out of the parser's input text and shared.
 *
 * Why: the parser's strings are slices, and V8 stores a slice of 13 or more characters as a view
 * into its parent — a whole ~1 MB input chunk. One kept slice per chunk keeps the whole input
 * alive: analysing a 300 MB dump held the input and ran to gigabytes (issue 7, figure 3). Names
 * repeat across threads, so one shared copy per distinct string also keeps the summaries small.
 * The pool belongs to an analysis session (analyzer.ts), not to the module.
 */
import { detach } from '../model/text-hygiene.js';

/** Enough for every distinct name of a huge dump; beyond it strings are still copied, not shared. */
const MAX_POOLED = 100_000;

export class StringPool {
  private readonly pool = new Map<string, string>();

  /** A copy of `s` detached from the input text (shared with earlier equal strings). */
  keep(s: string): string;
  keep(s: string | null): string | null;
  keep(s: string | null): string | null {
    // V8 copies slices shorter than 13 characters anyway.
    if (s === null || s.length < 13) return s;
    const shared = this.pool.get(s);
    if (shared !== undefined) return shared;
    const copy = detach(s);
    if (this.pool.size < MAX_POOLED) this.pool.set(copy, copy);
    return copy;
  }
}
