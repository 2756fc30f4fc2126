/**
 * V8 lets a big heap grow up to ~4x what the last full collection kept before it collects again:
 * a 300 MB dump whose analysis keeps ~300 MB peaked at 750 MiB-1.1 GiB, mostly garbage not yet
 * collected. A growing factor of 1.25x keeps the peak near what is live (issue 15, figures 8-11).
 * On the 292 MB wait-zoo dump (176,000 threads; live ~300 MB at its peak), two runs of text and
 * JSON each: 1.5x gave 514-527 MiB peak RSS at ~24 s CPU, 1.3x 496-504 MiB, 1.25x 475-504 MiB at
 * ~26 s CPU.
 *
 * Only big inputs get it, once they are seen to be big: a V8 flag set before the build's own run
 * ends is part of the code cache's flag hash (run-bundle.ts), and a cache written with it is
 * rejected by every start without it. Small inputs never grow the heap far, so they lose nothing.
 * V8 reads the factor at each full collection, so setting it while the input is read takes effect.
 */
import { createRequire } from 'node:module';
import { runInNewContext } from 'node:vm';

/** From this many bytes of input on, the heap grows slowly. */
export const BIG_INPUT_BYTES = 32 * 1024 * 1024;

/** Below this much heap in use, a collection at a stage end is not worth its time. */
const COLLECT_ABOVE_BYTES = 128 * 1024 * 1024;

export function growHeapSlowly(): void {
  // Required here, not imported: node:v8 is ~2 ms of every start (issue 18, figure 4), and only big inputs need it.
  const { setFlagsFromString } = createRequire(import.meta.url)('node:v8') as typeof import('node:v8');
  setFlagsFromString('--heap-growing-percent=25');
  // For collectAtStageEnd: a context made after this flag has V8's `gc` function.
  setFlagsFromString('--expose-gc');
}

/**
 * A full collection where an analysis stage's work has just become garbage
 * (AnalyzeOptions.atStageEnd), on big inputs only. V8 collects when the heap reaches the limit it
 * set at its last collection, 1.25x what was live then, however much has died since: the verdict
 * stage grew the heap ~200 MB past what was live on a 300 MB dump of 176,000 threads before the
 * next collection. Collecting at the three stage ends (with the 1.25x factor) lowered the peak RSS
 * of the bench's 301 MB wait-zoo dump (181,000 threads) from 714 to 483-493 MiB; each is one
 * collection (~0.3-0.6 s there) V8 would have made soon after anyway.
 */
export function collectAtStageEnd(): void {
  if (process.memoryUsage().heapUsed < COLLECT_ABOVE_BYTES) return;
  const gc: unknown = runInNewContext('typeof gc === "function" ? gc : null');
  if (typeof gc === 'function') gc();
}
