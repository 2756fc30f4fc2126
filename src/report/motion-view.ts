/**
 * What every report says of snapshots (Analysis.snapshots): per thread, whether it moved, in
 * words (`stuck for 2.0 s across 3 snapshots`), and the series in one line.
 */
import type { Analysis, SnapshotSeries, ThreadKey, ThreadMotionRecord } from '../model/analysis.js';

/** `stuck for 2.0 s across 3 snapshots`, `moved between snapshots 1 and 2`, `new in snapshot 2`, `gone after snapshot 1`. */
export function motionWords(r: ThreadMotionRecord, count: number): string {
  switch (r.motion) {
    case 'stuck':
      return r.stuckSeconds !== undefined ? `stuck for ${r.stuckSeconds.toFixed(1)} s across ${r.seen} snapshots` : `stuck across ${r.seen} snapshots`;
    case 'moved':
      return r.movedBetween ? `moved between snapshots ${r.movedBetween[0]} and ${r.movedBetween[1]}` : 'moved';
    case 'new':
      return `new in snapshot ${r.first}${r.last < count ? `, gone after snapshot ${r.last}` : ''}`;
    case 'gone':
      return `gone after snapshot ${r.last}`;
  }
}

/** `3 snapshots, 1.0 s apart, threads matched by LWP`. */
export function seriesLine(s: SnapshotSeries): string {
  const apart = s.interval !== null ? `, ${s.interval.toFixed(1)} s apart` : '';
  const by = s.matchedBy === 'lwp' ? 'LWP' : s.matchedBy === 'ptid' ? 'pthread address' : 'thread number';
  return `${s.count} snapshots${apart}, threads matched by ${by}`;
}

export interface MotionRow {
  key: ThreadKey;
  record: ThreadMotionRecord;
  words: string;
}

/** One row per thread, in the series' key order. */
export function motionRows(analysis: Pick<Analysis, 'snapshots'>): MotionRow[] {
  const s = analysis.snapshots;
  if (s === undefined) return [];
  return Object.entries(s.threads).map(([key, record]) => ({ key, record, words: motionWords(record, s.count) }));
}
