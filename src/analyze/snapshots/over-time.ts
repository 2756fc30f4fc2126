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
    const breakers: ThreadKey[] = [];
    for (const d of a.deadlocks) {
      const movers = d.threads.filter((k) => byKey.get(k)?.motion === 'moved');
      if (movers.length === 0) {
        kept.push(d);
        const stuck = d.threads.filter(stuckInAll);
        const who = d.threads.length === 1 ? 'its thread was' : stuck.length === d.threads.length ? (d.threads.length === 2 ? 'both its threads were' : `all ${d.threads.length} of its threads were`) : `${stuck.length} of its ${d.threads.length} threads were (the others are not in every snapshot)`;
        notes.push(`The cycle of ${d.threads.length === 1 ? 'thread' : 'threads'} ${d.threads.join(', ')} holds over time: ${who} stuck in ${inAll(motion.count)}${durationWords(byKey.get(stuck[0] ?? ''))}.`);
        continue;
      }
      // A cycle gdb's answers prove, whose threads have stayed put since they moved, formed while
      // the samples were taken: what moved is how they got there.
      if (d.evidence === 'proven' && movers.every((k) => byKey.get(k)?.stuckSince !== undefined)) {
        kept.push(d);
        notes.push(`The cycle of threads ${d.threads.join(', ')} formed while the snapshots were taken: ${movers.map((k) => `${name(k)} moved ${betweenWords(byKey.get(k) as ThreadMotion)} and stayed stuck from snapshot ${(byKey.get(k) as ThreadMotion).stuckSince} on`).join('; ')}; the owners gdb named prove the cycle.`);
        continue;
      }
      for (const k of movers) if (!breakers.includes(k)) breakers.push(k);
      notes.push(`The cycle of ${d.threads.length === 1 ? 'thread' : 'threads'} ${d.threads.join(', ')} is withdrawn: ${movers.map((k) => `${name(k)} moved ${betweenWords(byKey.get(k) as ThreadMotion)}`).join('; ')}, so it is not stuck in that cycle.`);
    }
    if (kept.length < a.deadlocks.length) {
      if (kept.length > 0) {
        a.deadlocks = kept;
        a.verdictReasons = a.verdictReasons.filter((r) => (r.kind !== 'cycle' && r.kind !== 'only-candidate-cycle') || kept.some((d) => d.threads.join() === r.threads.join()));
      } else toOk(a, movedReason(breakers.sort(compareThreadKeys), byKey, name));
    }
  } else if (a.verdict === 'hang') {
    const notStuck = a.hung.filter((k) => !stuckInAll(k));
    if (notStuck.length > 0) {
      notes.push(`The hang is withdrawn: ${notStuck.map((k) => `${name(k)} ${notStuckWords(byKey.get(k))}`).join('; ')} (a hang needs its threads stuck in every snapshot).`);
      toOk(a, movedReason(notStuck, byKey, name));
    } else {
      notes.push(`The hang holds over time: ${a.hung.length === 1 ? 'its thread was' : a.hung.length === 2 ? 'both its threads were' : `all ${a.hung.length} of its threads were`} stuck in ${inAll(motion.count)}${durationWords(byKey.get(a.hung[0] as ThreadKey))}.`);
      for (const cycle of a.candidateCycles) {
        if (!cycle.threads.every(stuckInAll)) continue;
        cycle.stuckAcross = motion.count;
        cycle.text = `${cycle.text} ${cycle.threads.length === 1 ? 'Its thread' : 'Its threads'} stayed stuck in ${inAll(motion.count)}, as in this cycle.`;
      }
    }
  }
  const moved = motion.threads.filter((m) => m.motion === 'moved' && m.last === motion.count).map((m) => m.key).sort(compareThreadKeys);
  if (moved.length > 0) notes.push(`Moved between snapshots: ${capped(moved.map(name))}.`);
  else notes.push(`No thread moved across the ${motion.count} snapshots.`);
  const appeared = motion.threads.filter((m) => m.motion === 'new');
  if (appeared.length > 0) notes.push(`New in a later snapshot: ${capped(appeared.map((m) => `${name(m.key)} (from snapshot ${m.first})`))}.`);
  const left = motion.threads.filter((m) => m.last < motion.count);
  if (left.length > 0) notes.push(`Gone before the last snapshot: ${capped(left.map((m) => `${m.lwp !== null ? `LWP ${m.lwp}` : `thread ${m.key}`} (last in snapshot ${m.last})`))}.`);
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

/**
 * What the finding rested on moved: the verdict becomes ok (crash, when the process crashed: that
 * stands alone), and everything the finding listed goes with it.
 */
function toOk(a: Analysis, reason: VerdictReason): void {
  a.verdict = a.crash !== undefined ? 'crash' : 'ok';
  a.deadlocks = [];
  a.hung = [];
  delete a.hangBlockedBehind;
  delete a.hangReasons;
  a.candidateCycles = [];
  a.verdictReasons = [reason];
}

/** Why the finding is withdrawn: the threads it needed stuck that moved (or are not in every snapshot). */
function movedReason(keys: readonly ThreadKey[], byKey: ReadonlyMap<ThreadKey, ThreadMotion>, name: (k: ThreadKey) => string): VerdictReason {
  const what = (k: ThreadKey): string => `${name(k)} ${notStuckWords(byKey.get(k))}`;
  const list = keys.length <= 3 ? keys.map(what).join('; ') : `${keys.length} threads (${keys.join(', ')}) moved or are not in every snapshot`;
  return {
    kind: 'moved',
    text: `${list}: the process goes on between snapshots, so what one snapshot showed stuck was not stuck for good.`,
    threads: [...keys],
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
    if (m.stuckSince !== undefined) record.stuckSince = m.stuckSince;
    return { key, record };
  });
  entries.sort((x, y) => compareThreadKeys(x.key, y.key));
  for (const { key, record } of entries) threads[key] = record;
  const total = motion.times === null ? null : motion.times.reduce((s, t) => s + t, 0);
  return { count: motion.count, interval: total === null || motion.count < 2 ? null : Math.round((total / (motion.count - 1)) * 1000) / 1000, matchedBy: motion.matchedBy, how, threads };
}

/** Threads a note names one by one; the motion table (and JSON) has them all. */
const NOTE_NAMES = 20;

function capped(names: string[]): string {
  return names.length <= NOTE_NAMES ? names.join(', ') : `${names.slice(0, NOTE_NAMES).join(', ')} and ${(names.length - NOTE_NAMES).toLocaleString('en-US')} more`;
}

/** `both snapshots`, `all 3 snapshots`. */
function inAll(count: number): string {
  return count === 2 ? 'both snapshots' : `all ${count} snapshots`;
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
