/**
 * The verdict over several snapshots of one process. The last snapshot is analysed as one dump
 * (with gdb's owner answers, live); what moved between snapshots then checks it:
 *
 * - a deadlock cycle with a thread that moved is withdrawn, with a note naming that thread
 *   (threads of a real cycle cannot move: none of them can get what it waits for);
 * - a hang stands only when each hung thread was stuck in every snapshot; else it is withdrawn;
 * - a candidate cycle (holders the text does not show) whose threads all stayed stuck in every
 *   snapshot is strengthened: it says so;
 * - an ok verdict stays ok, with the threads that moved named. Snapshots never raise a verdict:
 *   threads that stay put are also what an idle process looks like.
 */
import type { Analysis, Deadlock, SnapshotSeries, ThreadAnalysis, ThreadKey, ThreadMotionRecord, VerdictReason } from '../../model/analysis.js';
import { compareThreadKeys } from '../../model/ids.js';
import { threadName } from '../deadlocks.js';
import type { SnapshotMotion, ThreadMotion } from './motion.js';

export interface OverTimeInput {
  /** The last snapshot's analysis (changed in place and returned). */
  last: Analysis;
  /** Every snapshot's dump stats, to count the whole input. */
  stats: ReadonlyArray<Analysis['stats']>;
  motion: SnapshotMotion;
  how: SnapshotSeries['how'];
}

export function verdictOverTime(input: OverTimeInput): Analysis {
  const { last: a, motion } = input;
  const threads = new Map<ThreadKey, ThreadAnalysis>(a.threads.map((t) => [t.key, t]));
  const name = (key: ThreadKey): string => threadName(threads.get(key), key);
  const series = seriesOf(motion, input.how, new Set(threads.keys()));
  const byKey = new Map<ThreadKey, ThreadMotion>();
  for (const m of motion.threads) if (m.last === motion.count) byKey.set(m.key, m);
  const stuckInAll = (key: ThreadKey): boolean => byKey.get(key)?.motion === 'stuck';
  const notes: string[] = [];
  const how = input.how === 'given' ? '' : ' (the same LWPs and pthread addresses in each)';
  notes.push(`Read as ${motion.count} snapshots of one process${how}: threads matched by ${matchedWords(motion.matchedBy)}; the verdict is the last snapshot's, checked against what moved.`);

  if (a.verdict === 'deadlock') {
    const kept: Deadlock[] = [];
    for (const d of a.deadlocks) {
      const movers = d.threads.filter((k) => byKey.get(k)?.motion === 'moved');
      if (movers.length === 0) {
        kept.push(d);
        continue;
      }
      notes.push(`The cycle of ${d.threads.length === 1 ? 'thread' : 'threads'} ${d.threads.join(', ')} is withdrawn: ${movers.map((k) => `${name(k)} moved ${betweenWords(byKey.get(k) as ThreadMotion)}`).join('; ')}, so it is not stuck in that cycle.`);
    }
    if (kept.length < a.deadlocks.length) {
      if (kept.length > 0) {
        a.deadlocks = kept;
        a.verdictReasons = a.verdictReasons.filter((r) => (r.kind !== 'cycle' && r.kind !== 'only-candidate-cycle') || kept.some((d) => d.threads.join() === r.threads.join()));
      } else toOk(a, movedReason(a, byKey, name));
    }
  } else if (a.verdict === 'hang') {
    const notStuck = a.hung.filter((k) => !stuckInAll(k));
    if (notStuck.length > 0) {
      notes.push(`The hang is withdrawn: ${notStuck.map((k) => `${name(k)} ${notStuckWords(byKey.get(k))}`).join('; ')} (a hang needs its threads stuck in every snapshot).`);
      toOk(a, movedReason(a, byKey, name));
    } else {
      notes.push(`The hang holds over time: ${a.hung.length === 1 ? 'its thread was' : a.hung.length === 2 ? 'both its threads were' : `all ${a.hung.length} of its threads were`} stuck in all ${motion.count} snapshots${durationWords(byKey.get(a.hung[0] as ThreadKey))}.`);
      for (const cycle of a.candidateCycles) {
        if (!cycle.threads.every(stuckInAll)) continue;
        cycle.stuckAcross = motion.count;
        cycle.text = `${cycle.text} ${cycle.threads.length === 1 ? 'Its thread' : 'Its threads'} stayed stuck in all ${motion.count} snapshots, as in this cycle.`;
      }
    }
  }
  const moved = motion.threads.filter((m) => m.motion === 'moved' && m.last === motion.count).map((m) => m.key).sort(compareThreadKeys);
  if (moved.length > 0) notes.push(`Moved between snapshots: ${moved.map(name).join(', ')}.`);
  else notes.push(`No thread moved across the ${motion.count} snapshots.`);
  const appeared = motion.threads.filter((m) => m.motion === 'new');
  if (appeared.length > 0) notes.push(`New in a later snapshot: ${appeared.map((m) => `${name(m.key)} (from snapshot ${m.first})`).join(', ')}.`);
  const left = motion.threads.filter((m) => m.last < motion.count);
  if (left.length > 0) notes.push(`Gone before the last snapshot: ${left.map((m) => `${m.lwp !== null ? `LWP ${m.lwp}` : `thread ${m.key}`} (last in snapshot ${m.last})`).join(', ')}.`);
  a.notes = [...a.notes, ...notes];
  a.snapshots = series;
  a.stats = {
    ...a.stats,
    lines: sum(input.stats, (s) => s.lines),
    backtraces: sum(input.stats, (s) => s.backtraces),
    frames: sum(input.stats, (s) => s.frames),
    ignoredLines: sum(input.stats, (s) => s.ignoredLines),
  };
  return a;
}

/** The verdict becomes ok: what it rested on moved. Everything a finding listed goes with it. */
function toOk(a: Analysis, reason: VerdictReason): void {
  a.verdict = 'ok';
  a.deadlocks = [];
  a.hung = [];
  delete a.hangBlockedBehind;
  delete a.hangReasons;
  a.candidateCycles = [];
  a.verdictReasons = [reason];
}

function movedReason(a: Analysis, byKey: ReadonlyMap<ThreadKey, ThreadMotion>, name: (k: ThreadKey) => string): VerdictReason {
  const moved = a.threads.filter((t) => byKey.get(t.key)?.motion === 'moved').map((t) => t.key);
  const count = moved.length;
  return {
    kind: 'moved',
    text: `${count === 1 ? `${name(moved[0] as ThreadKey)} moved` : `${count} threads moved (${moved.join(', ')})`} between snapshots: the process goes on, so what one snapshot showed stuck was not stuck for good.`,
    threads: moved,
  };
}

function seriesOf(motion: SnapshotMotion, how: SnapshotSeries['how'], lastKeys: ReadonlySet<ThreadKey>): SnapshotSeries {
  const threads: Record<ThreadKey, ThreadMotionRecord> = {};
  const entries = motion.threads.map((m) => {
    // A thread the last snapshot no longer shows may share its number with one it shows (separate gdb runs number anew).
    const key = m.last === motion.count || !lastKeys.has(m.key) ? m.key : `${m.key}@${m.last}`;
    const record: ThreadMotionRecord = { motion: m.motion, lwp: m.lwp, name: m.name, first: m.first, last: m.last, seen: m.seen };
    if (m.movedBetween) record.movedBetween = m.movedBetween;
    if (m.stuckSeconds !== undefined) record.stuckSeconds = m.stuckSeconds;
    return { key, record };
  });
  entries.sort((x, y) => compareThreadKeys(x.key, y.key));
  for (const { key, record } of entries) threads[key] = record;
  const total = motion.times === null ? null : motion.times.reduce((s, t) => s + t, 0);
  return { count: motion.count, interval: total === null || motion.count < 2 ? null : Math.round((total / (motion.count - 1)) * 1000) / 1000, matchedBy: motion.matchedBy, how, threads };
}

function matchedWords(by: SnapshotSeries['matchedBy']): string {
  return by === 'lwp' ? 'LWP' : by === 'ptid' ? 'pthread address (no LWPs shown)' : "gdb's thread number (no LWPs or pthread addresses shown)";
}

function betweenWords(m: ThreadMotion): string {
  return m.movedBetween ? `between snapshots ${m.movedBetween[0]} and ${m.movedBetween[1]}` : 'between snapshots';
}

function notStuckWords(m: ThreadMotion | undefined): string {
  if (m === undefined) return 'is not in every snapshot';
  if (m.motion === 'moved') return `moved ${betweenWords(m)}`;
  if (m.motion === 'new') return `first shows in snapshot ${m.first}`;
  return 'is not in every snapshot';
}

/** ` (2.0 s)` when the times are known. */
function durationWords(m: ThreadMotion | undefined): string {
  return m?.stuckSeconds !== undefined ? ` (${m.stuckSeconds.toFixed(1)} s)` : '';
}

function sum<T>(items: readonly T[], f: (t: T) => number): number {
  let n = 0;
  for (const t of items) n += f(t);
  return n;
}
