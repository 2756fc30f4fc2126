/**
 * Per-thread motion across snapshots of one process (pure over parsed dumps): which thread of one
 * dump is which thread of the next, and whether each one moved. A thread is `stuck` when every
 * snapshot that shows it shows the same frames — function, file:line and pc of each — `moved`
 * when they differ, `new` when the first snapshot does not show it, `gone` when the last does not.
 *
 * Threads are matched by LWP, else by pthread address, else by gdb's thread number: the first that
 * every thread of every snapshot shows (separate `gdb -p` runs number threads anew, and a
 * detach/attach in one gdb may too, so the number is the last resort).
 */
import type { ThreadMotionRecord } from '../../model/analysis.js';
import type { Backtrace, Dump } from '../../model/dump.js';

export type Motion = ThreadMotionRecord['motion'];
export type MatchedBy = 'lwp' | 'ptid' | 'thread number';

/** One thread as one snapshot shows it. */
export interface SnapshotThread {
  /** Its key in that snapshot's analysis (gdb's id as printed). */
  key: string;
  lwp: number | null;
  ptid: string | null;
  name: string | null;
  /** Every frame's function, file:line and pc, one line each. */
  frames: string;
}

/** A thread's motion as the report records it (model/analysis.ts), plus its key in the last snapshot that shows it. */
export type ThreadMotion = ThreadMotionRecord & { key: string };

export interface SnapshotMotion {
  count: number;
  matchedBy: MatchedBy;
  /** Seconds from each snapshot to the next, when known (attach records them; saved dumps carry them). */
  times: number[] | null;
  /** Every thread of any snapshot, in the order the last snapshot (then earlier ones) shows them. */
  threads: ThreadMotion[];
}

/** The threads one dump shows: headered backtraces, the longest copy of each (a `frame N` copy or an `info threads` row loses to the real stack). */
export function snapshotThreads(dump: Dump): SnapshotThread[] {
  const byKey = new Map<string, Backtrace>();
  for (const bt of dump.backtraces) {
    if (bt.thread === null) continue;
    const earlier = byKey.get(bt.thread.gdbId);
    if (earlier === undefined || bt.frames.length > earlier.frames.length) byKey.set(bt.thread.gdbId, bt);
  }
  return [...byKey.values()].map((bt) => {
    const t = bt.thread as NonNullable<Backtrace['thread']>;
    return { key: t.gdbId, lwp: t.lwp, ptid: t.ptid, name: t.name, frames: frameText(bt) };
  });
}

/** What "the same frames" compares: function, file:line and pc of each frame, in order. */
export function frameText(bt: Backtrace): string {
  let text = '';
  for (const f of bt.frames) text += `${f.function}\u0000${f.file ?? ''}:${f.line ?? ''}\u0000${f.pc ?? ''}\n`;
  return text;
}

/** The identity every thread of every snapshot shows: LWP, else pthread address, else thread number. */
export function matchedByOf(snapshots: ReadonlyArray<readonly SnapshotThread[]>): MatchedBy {
  const all = snapshots.flat();
  if (all.length > 0 && all.every((t) => t.lwp !== null)) return 'lwp';
  if (all.length > 0 && all.every((t) => t.ptid !== null)) return 'ptid';
  return 'thread number';
}

export function identityOf(t: SnapshotThread, by: MatchedBy): string {
  return by === 'lwp' ? `lwp:${t.lwp}` : by === 'ptid' ? `ptid:${t.ptid}` : `id:${t.key}`;
}

/**
 * The motion of every thread over `snapshots` (in the order they were taken). `times`: seconds
 * from each snapshot to the next (length count - 1), or null when unknown.
 */
export function computeMotion(snapshots: ReadonlyArray<readonly SnapshotThread[]>, times: readonly number[] | null = null): SnapshotMotion {
  const count = snapshots.length;
  const matchedBy = matchedByOf(snapshots);
  const at = times !== null && times.length === count - 1 ? cumulative(times) : null;
  // identity → what each snapshot shows of it (undefined where it is absent)
  const seen = new Map<string, Array<SnapshotThread | undefined>>();
  snapshots.forEach((threads, i) => {
    for (const t of threads) {
      const id = identityOf(t, matchedBy);
      let row = seen.get(id);
      if (row === undefined) seen.set(id, (row = new Array<SnapshotThread | undefined>(count).fill(undefined)));
      // Two threads with one identity in one snapshot (a paste repeated): the first counts.
      if (row[i] === undefined) row[i] = t;
    }
  });
  const threads: ThreadMotion[] = [];
  // The last snapshot's order first (gdb's, as the report lists threads), then threads it no longer shows.
  const rank = new Map<ThreadMotion, number>();
  for (const row of seen.values()) {
    const shown = row.flatMap((t, i) => (t === undefined ? [] : [{ t, i }]));
    const firstShown = shown[0] as { t: SnapshotThread; i: number };
    const lastShown = shown[shown.length - 1] as { t: SnapshotThread; i: number };
    const base = { key: lastShown.t.key, lwp: lastShown.t.lwp, name: lastShown.t.name, first: firstShown.i + 1, last: lastShown.i + 1, seen: shown.length };
    let movedBetween: [number, number] | null = null;
    for (let k = 1; k < shown.length && movedBetween === null; k++) {
      const prev = shown[k - 1] as { t: SnapshotThread; i: number };
      const cur = shown[k] as { t: SnapshotThread; i: number };
      if (prev.t.frames !== cur.t.frames) movedBetween = [prev.i + 1, cur.i + 1];
    }
    let motion: Motion;
    if (firstShown.i > 0) motion = 'new';
    else if (lastShown.i < count - 1) motion = 'gone';
    else motion = movedBetween === null ? 'stuck' : 'moved';
    const entry: ThreadMotion = { motion, ...base };
    if (movedBetween !== null) entry.movedBetween = movedBetween;
    if (motion === 'moved') {
      // The last stretch of snapshots that show the same frames (a cycle that formed while sampling).
      let since = shown.length - 1;
      while (since > 0 && (shown[since - 1] as { t: SnapshotThread }).t.frames === lastShown.t.frames) since--;
      if (since < shown.length - 1) entry.stuckSince = (shown[since] as { i: number }).i + 1;
    }
    if (motion === 'stuck' && at !== null) entry.stuckSeconds = round3((at[lastShown.i] as number) - (at[firstShown.i] as number));
    threads.push(entry);
    rank.set(entry, (count - 1 - lastShown.i) * 1_000_000 + (snapshots[lastShown.i] as readonly SnapshotThread[]).indexOf(lastShown.t));
  }
  threads.sort((a, b) => (rank.get(a) as number) - (rank.get(b) as number));
  return { count, matchedBy, times: times === null ? null : [...times], threads };
}

function cumulative(times: readonly number[]): number[] {
  const at = [0];
  for (const t of times) at.push((at[at.length - 1] as number) + t);
  return at;
}

function round3(x: number): number {
  return Math.round(x * 1000) / 1000;
}

/**
 * The process a dump shows, when it says: the LWP of gdb's thread 1 (the main thread, whose LWP is
 * the pid) or Julia's `cmd:` line; null when it does not say.
 */
export function processIdOf(dump: Dump): number | null {
  const cmdLine = dump.process;
  if (cmdLine !== undefined) return cmdLine.pid;
  for (const bt of dump.backtraces) if (bt.thread !== null && bt.thread.gdbId === '1' && bt.thread.lwp !== null) return bt.thread.lwp;
  return null;
}

/**
 * Why two snapshots cannot be of one process, or null when they may be: their main threads' pids
 * differ, or both name their threads by LWP (or pthread address) and not one is in both.
 */
export function differentProcess(a: Dump, b: Dump): string | null {
  const pa = processIdOf(a);
  const pb = processIdOf(b);
  if (pa !== null && pb !== null && pa !== pb) return `pid ${pa} and pid ${pb}`;
  const ta = snapshotThreads(a);
  const tb = snapshotThreads(b);
  const by = matchedByOf([ta, tb]);
  if (by === 'thread number' || ta.length === 0 || tb.length === 0) return null;
  const ids = new Set(ta.map((t) => identityOf(t, by)));
  return tb.some((t) => ids.has(identityOf(t, by))) ? null : `no ${by === 'lwp' ? 'LWP' : 'pthread address'} in common`;
}

/**
 * Whether two dumps look like snapshots of one process without being told (no `--snapshots`):
 * each shows two threads or more, every thread with its LWP and pthread address, the main threads
 * agree, and at least half of the threads of each are in the other with the same LWP and address.
 */
export function looksLikeSnapshots(a: readonly SnapshotThread[], b: readonly SnapshotThread[]): boolean {
  if (a.length < 2 || b.length < 2) return false;
  if (![...a, ...b].every((t) => t.lwp !== null && t.ptid !== null)) return false;
  const pair = (t: SnapshotThread): string => `${t.lwp}/${t.ptid}`;
  const inA = new Set(a.map(pair));
  const both = b.filter((t) => inA.has(pair(t))).length;
  if (both < 2 || both * 2 < a.length || both * 2 < b.length) return false;
  const mainA = a.find((t) => t.key === '1');
  const mainB = b.find((t) => t.key === '1');
  return mainA === undefined || mainB === undefined || mainA.lwp === mainB.lwp;
}
