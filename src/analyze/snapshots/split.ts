/**
 * One parsed input holding several `thread apply all bt` of one process, cut into one dump per
 * snapshot. Two ways to see the cuts:
 *
 * - the lines `waitgraph attach --samples N --save-dump` writes between snapshots, after gdb's own
 *   detach line, which also carry when each was taken:
 *     [Inferior 1 (process 25660) detached]
 *     waitgraph: snapshot 2 of 3, 1.002 s after the first
 * - otherwise a thread number seen again in the same pass starts the next snapshot, and the cut is
 *   kept only when the pieces look like snapshots of one process (motion.ts looksLikeSnapshots):
 *   a `thread N` + `bt` after `thread apply all bt` repeats one thread, which stays today's merge.
 *   Headers without frames (the answers of `thread apply N print …`) are not counted.
 */
import type { Backtrace, Dump } from '../../model/dump.js';
import { looksLikeSnapshots, snapshotThreads } from './motion.js';

/** Sample: `waitgraph: snapshot 2 of 3, 1.002 s after the first` */
const MARKER = /^waitgraph: snapshot (\d+) of (\d+), (\d+(?:\.\d+)?) s after the first$/;

export function markerLine(index: number, count: number, secondsAfterFirst: number): string {
  return `waitgraph: snapshot ${index} of ${count}, ${secondsAfterFirst.toFixed(3)} s after the first`;
}

export interface SplitDump {
  snapshots: Dump[];
  /** Seconds from each snapshot to the next, when the input says (saved by attach); else null. */
  times: number[] | null;
  /** `markers`: the lines attach writes; `repeats`: thread numbers seen again. */
  how: 'markers' | 'repeats';
}

/** The snapshots one dump holds, or null when it is one snapshot. */
export function splitDump(dump: Dump): SplitDump | null {
  const markers = dump.ignored.flatMap((l) => {
    const m = MARKER.exec(l.text.trim());
    return m ? [{ line: l.line, at: Number(m[3]) }] : [];
  });
  if (markers.length > 0) {
    const snapshots = cutAt(dump, markers.map((m) => m.line));
    if (snapshots.every((s) => s.backtraces.length > 0)) {
      const at = [0, ...markers.map((m) => m.at)];
      return { snapshots, times: at.slice(1).map((t, i) => round3(t - (at[i] as number))), how: 'markers' };
    }
  }
  const cuts: number[] = [];
  let current = new Set<string>();
  let previous: Backtrace | null = null;
  for (const bt of dump.backtraces) {
    // A lone header is not a backtrace: `thread apply 2 print *m` prints the thread's header above
    // its answer, and the owner loop appends such answers to the dump. (Frames may have been
    // dropped, keepFrames false; the lines they took remain.)
    if (bt.thread !== null && bt.source === undefined && bt.task === undefined && (bt.frames.length > 0 || bt.endLine > bt.startLine)) {
      if (current.has(bt.thread.gdbId) && previous !== null) {
        cuts.push(previous.endLine + 1);
        current = new Set();
      }
      current.add(bt.thread.gdbId);
    }
    previous = bt;
  }
  if (cuts.length === 0) return null;
  const snapshots = cutAt(dump, cuts);
  for (let i = 1; i < snapshots.length; i++) {
    if (!looksLikeSnapshots(snapshotThreads(snapshots[i - 1] as Dump), snapshotThreads(snapshots[i] as Dump))) return null;
  }
  return { snapshots, times: null, how: 'repeats' };
}

/** The dump cut before each of `lines` (1-based, ascending): everything of each piece goes with it. */
function cutAt(dump: Dump, lines: number[]): Dump[] {
  const bounds = [1, ...lines, dump.stats.lines + 1];
  const pieces: Dump[] = [];
  for (let i = 0; i + 1 < bounds.length; i++) {
    const lo = bounds[i] as number;
    const hi = (bounds[i + 1] as number) - 1;
    const inside = (line: number): boolean => line >= lo && line <= hi;
    const backtraces = dump.backtraces.filter((bt) => inside(bt.startLine));
    const ignored = dump.ignored.filter((l) => inside(l.line));
    const piece: Dump = {
      schemaVersion: 1,
      backtraces,
      ownerHints: dump.ownerHints.filter((h) => inside(h.sourceLine)),
      ignored,
      stats: { lines: Math.max(0, hi - lo + 1), backtraces: backtraces.length, frames: backtraces.reduce((n, bt) => n + bt.frames.length, 0), ignoredLines: ignored.length },
    };
    const signals = dump.signals?.filter((s) => inside(s.sourceLine));
    if (signals !== undefined && signals.length > 0) piece.signals = signals;
    if (dump.process !== undefined) piece.process = dump.process;
    if (i === bounds.length - 2 && dump.capped !== undefined) piece.capped = dump.capped;
    pieces.push(piece);
  }
  return pieces;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}
