/**
 * V8 lets a big heap grow up to ~4x what the last full collection kept before it collects again:
 * a 300 MB dump whose analysis keeps ~300 MB peaked at 750 MiB-1.1 GiB, mostly garbage not yet
 * collected. A growing factor of 1.5x keeps the peak near what is live for ~10-15% more CPU on
 * such a dump (issue 15, figures 8-11).
 *
 * Only big inputs get it, once they are seen to be big: a V8 flag set before the build's own run
 * ends is part of the code cache's flag hash (run-bundle.ts), and a cache written with it is
 * rejected by every start without it. Small inputs never grow the heap far, so they lose nothing.
 * V8 reads the factor at each full collection, so setting it while the input is read takes effect.
 */
import { setFlagsFromString } from 'node:v8';

/** From this many bytes of input on, the heap grows slowly. */
export const BIG_INPUT_BYTES = 32 * 1024 * 1024;

export function growHeapSlowly(): void {
  setFlagsFromString('--heap-growing-percent=50');
}
