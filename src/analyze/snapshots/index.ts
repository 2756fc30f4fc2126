/**
 * Several snapshots of one process analysed as one: each snapshot's dump on its own, then the
 * verdict over time (over-time.ts) from what moved (motion.ts). Cutting one input into snapshots
 * is split.ts.
 */
import type { Analysis, SnapshotSeries } from '../../model/analysis.js';
import type { Dump } from '../../model/dump.js';
import { computeMotion, snapshotThreads } from './motion.js';
import { verdictOverTime } from './over-time.js';

export { splitDump, markerLine, type SplitDump } from './split.js';
export { computeMotion, differentProcess, looksLikeSnapshots, snapshotThreads, type SnapshotMotion, type ThreadMotion } from './motion.js';

export interface SeriesOptions {
  /** Seconds from each snapshot to the next, when known. */
  times: number[] | null;
  how: SnapshotSeries['how'];
}

/**
 * The analysis of `dumps` as snapshots in the order taken (frames kept). `analyses`, when given,
 * are the snapshots' own analyses (live mode made them, the last with gdb's owner answers);
 * otherwise each dump is analysed with `analyze`.
 */
export function analyzeSeries(dumps: readonly Dump[], analyze: (dump: Dump) => Analysis, options: SeriesOptions, analyses?: readonly Analysis[]): Analysis {
  const each = analyses ?? dumps.map((d) => analyze(d));
  const motion = computeMotion(dumps.map(snapshotThreads), options.times);
  return verdictOverTime({ last: each[each.length - 1] as Analysis, stats: each.map((a) => a.stats), motion, how: options.how });
}
