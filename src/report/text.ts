/**
 * The text report, in the order a reader needs it: the verdict on one line; each cycle as one line
 * per wait; where each thread of the cycle waits (its acquire site, file:line); why; the fix; the
 * threads blocked behind it; every other thread in counted groups; unresolved waits with the gdb
 * command that settles them; notes on how the input was read.
 */
import type { ChalkInstance } from 'chalk';
import type { Analysis, Deadlock, Edge, ThreadAnalysis, ThreadKey } from '../model/analysis.js';
import { compareThreadKeys } from '../model/ids.js';
import { crashLines, deadlockRows, evidenceLabel, siteText, sourceHoldLines, stepEvidence, threadsByKey, threadTitle, verdictLine, waitSentence } from './cycle-view.js';
import { groupedStackSection, pluralState, type GroupMode } from './group.js';
import { sanitizeAnalysis } from './sanitize.js';
import { motionRows, seriesLine } from './motion-view.js';

/** The width when the CLI knows no terminal (a pipe, a file, the goldens). */
export const DEFAULT_WIDTH = 100;

export interface TextOptions {
  chalk: ChalkInstance;
  /** Columns to wrap at (the terminal's width); DEFAULT_WIDTH when absent. */
  width?: number;
  /** At most this many thread numbers listed per group (`… and 4,800 more`); all when absent. */
  limit?: number;
  /**
   * When set, every thread's stack is printed once per group of alike stacks (panicparse-style):
   * `exact` frames, or the same `functions`. Needs the dump's frames (the CLI keeps them then).
   */
  group?: GroupMode;
}

/**
 * Threads that wait alike are one entry from this many on (412 waiters of one mutex: one line);
 * fewer keep a line each, with their LWPs, as a reader compares two or three threads side by side.
 */
const GROUP_FROM = 3;

/** What every section needs besides the analysis: colours, the width, the per-group limit. */
interface Layout {
  c: ChalkInstance;
  width: number;
  limit: number | null;
}

export function renderText(analysis: Analysis, options: TextOptions): string {
  analysis = sanitizeAnalysis(analysis); // control characters from the dump made visible (sanitize.ts)
  const c = options.chalk;
  const layout: Layout = { c, width: options.width ?? DEFAULT_WIDTH, limit: options.limit ?? null };
  const wrap = (text: string, first: string, rest: string): string[] => wrapAt(text, first, rest, layout.width);
  const threads = threadsByKey(analysis);
  const out: string[] = [];
  const verdictColour = analysis.verdict === 'ok' ? c.green : analysis.verdict === 'crash' ? c.yellow : c.red;
  // The verdict stays one line (people grep it and paste it); beyond a few threads it counts them.
  out.push(c.bold(verdictColour(verdictLine(analysis))));
  const shown = new Set<ThreadKey>();
  // A partial paste says what it lacks before anything else (analyze/partial.ts).
  if (analysis.partial !== undefined) {
    out.push('');
    out.push(...wrap(`Partial paste: ${analysis.partial.text} Capture it with: ${analysis.partial.command}`, '', '  '));
  }
  const crash = analysis.crash;
  if (crash !== undefined) {
    out.push('');
    out.push(c.bold(analysis.verdict === 'crash' ? 'Crash:' : `Crash: ${crash.text}`));
    for (const line of crashLines(crash)) out.push(...wrap(line, '  ', '      '));
  }

  analysis.deadlocks.forEach((deadlock, i) => {
    out.push('');
    if (analysis.deadlocks.length > 1) out.push(c.bold(`Deadlock ${i + 1} of ${analysis.deadlocks.length}: ${deadlock.title.replace(/^deadlock: /, '')}`));
    for (const line of deadlockSection(analysis, deadlock, threads, layout)) out.push(line);
    for (const key of [...deadlock.threads, ...deadlock.blockedBehind]) shown.add(key);
  });

  // Why a hang is a hang and ok is ok (a deadlock's cycle says it itself).
  const why = analysis.deadlocks.length === 0 ? (analysis.verdictReasons ?? []).filter((r) => r.kind !== 'nothing-blocked') : [];
  if (why.length > 0) {
    out.push('');
    out.push(c.bold('Why:'));
    for (const r of why) out.push(...wrap(r.text, '  ', '  '));
  }

  if (analysis.verdict === 'hang' || (analysis.hung.length > 0 && analysis.deadlocks.length === 0)) {
    out.push('');
    for (const line of hangSection(analysis, threads, layout)) out.push(line); // no spread: one line per hung thread
    for (const key of [...analysis.hung, ...(analysis.hangBlockedBehind ?? [])]) shown.add(key);
  }

  const candidates = analysis.candidateCycles ?? [];
  if (candidates.length > 0) {
    out.push('');
    out.push(c.bold('Candidate cycles (who holds what the text does not show; smallest first):'));
    candidates.forEach((cycle, i) => {
      out.push(...wrap(`${i + 1}. ${cycle.threads.length === 1 ? 'thread' : 'threads'} ${cycle.threads.join(', ')}: ${cycle.text}`, '  ', '       '));
      for (const command of cycle.gdbCommands) out.push(`       prove it: ${c.cyan(command)}`);
      for (const what of cycle.unprovable) out.push(...wrap(`no gdb command names the holder of ${what}`, '       ', '       '));
    });
  }

  const fromSource = sourceHoldLines(analysis);
  if (fromSource.length > 0) {
    out.push('');
    out.push(c.bold('Held, as the source shows (--source):'));
    for (const line of fromSource) out.push(...wrap(line, '  ', '      '));
  }

  const rest = analysis.threads.filter((t) => !shown.has(t.key));
  if (rest.length > 0) {
    out.push('');
    out.push(c.bold(shown.size > 0 ? 'Other threads:' : 'Threads:'));
    for (const line of countedGroups(rest, layout.limit)) out.push(...wrap(line, '  ', '      '));
  }

  if (analysis.snapshots !== undefined) {
    out.push('');
    out.push(c.bold(`Motion (${seriesLine(analysis.snapshots)}):`));
    for (const line of motionSection(analysis, layout)) out.push(line);
  }

  const unresolved = analysis.unresolved;
  if (unresolved.length > 0) {
    out.push('');
    out.push(c.bold('Unresolved waits (the text does not show who holds them):'));
    // Waiters of one resource that the same command settles are one entry.
    const entries = unresolved.map((u) => ({ key: u.thread, id: JSON.stringify([u.description, u.resource, u.gdbCommand ?? null, u.holderHint ?? null]), u }));
    const hinted = new Set<string>();
    for (const { who, entry } of alikeEntries(entries, threads, layout)) {
      out.push(...wrap(`${who} ${entry.u.description} (${entry.u.resource})`, '  ', '      '));
      const hint = entry.u.holderHint;
      if (entry.u.gdbCommand) out.push(`    ask gdb: ${c.cyan(entry.u.gdbCommand)}`);
      // No command can name the holder (the lock records none): where the rule says to look, once
      // for all the waits it is said of.
      else if (hint !== undefined && !hinted.has(hint)) {
        hinted.add(hint);
        out.push(...wrap(`to find who holds such a lock: ${hint}`, '    ', '      '));
      }
    }
  }

  const unlinked = analysis.unlinkedOwners ?? [];
  if (unlinked.length > 0) {
    out.push('');
    out.push(c.bold('Owner answers not linked to a wait:'));
    for (const u of unlinked) {
      out.push(...wrap(`line ${u.sourceLine}: ${u.expression === null ? '' : `${u.expression} → `}${u.answer}: ${u.reason}`, '  ', '      '));
      if (u.gdbCommand) out.push(`    ask gdb: ${c.cyan(u.gdbCommand)}`);
    }
  }

  if (options.group !== undefined) {
    const section = groupedStackSection(analysis, options.group);
    if (section.length > 0) {
      out.push('');
      out.push(c.bold(`Stacks (threads with ${options.group === 'exact' ? 'the same frames' : 'the same functions'} shown once):`));
      for (const group of section) {
        out.push(`  ${group.title}`);
        for (const line of group.stack) out.push(line === '' ? '' : `      ${line}`);
      }
    }
  }

  if (analysis.notes.length > 0) {
    out.push('');
    out.push(c.bold('Notes:'));
    for (const note of analysis.notes) out.push(...wrap(note, '  - ', '    '));
  }
  return `${out.join('\n')}\n`;
}

function deadlockSection(analysis: Analysis, deadlock: Deadlock, threads: Map<ThreadKey, ThreadAnalysis>, layout: Layout): string[] {
  const { c } = layout;
  const wrap = (text: string, first: string, rest: string): string[] => wrapAt(text, first, rest, layout.width);
  const out: string[] = [];
  out.push(c.bold('Cycle') + c.dim(` (evidence: ${evidenceLabel(deadlock)}; signature ${deadlock.signature})`) + ':');
  for (const line of cycleLines(analysis, deadlock, threads)) out.push(...wrap(line, '  ', '      '));
  out.push('');
  out.push(c.bold('Where each thread waits:'));
  for (const key of deadlock.threads) {
    const t = threads.get(key);
    out.push(...wrap(`${name(t, key)}: ${t?.stateText ?? ''}`, '  ', '      '));
    if (t?.acquireSite) out.push(`      at ${siteText(t.acquireSite)}`);
  }
  out.push('');
  out.push(c.bold('Why:'));
  for (const para of deadlock.explanation.split(/\n\n+/)) out.push(...wrap(para, '  ', '  '));
  out.push('');
  out.push(c.bold('Fix:'));
  for (const para of deadlock.fix.split(/\n\n+/)) out.push(...wrap(para, '  ', '  '));
  if (deadlock.blockedBehind.length > 0) {
    out.push('');
    out.push(c.bold(`Blocked behind the cycle (${deadlock.blockedBehind.length}):`));
    const behind = deadlock.blockedBehind.map((k) => threads.get(k)).filter((t): t is ThreadAnalysis => t !== undefined);
    for (const line of countedGroups(behind, layout.limit)) out.push(...wrap(line, '  ', '      '));
  }
  out.push('');
  for (const line of wrap(`Rules: ${deadlock.rules.join(', ')}`, '', '       ')) out.push(c.dim(line));
  return out;
}

/**
 * One line per wait inside the deadlock, by waiter: a wait through a resource names its holder;
 * an all-of wait lists every thread it waits for.
 */
function cycleLines(analysis: Analysis, deadlock: Deadlock, threads: Map<ThreadKey, ThreadAnalysis>): string[] {
  const rows = deadlockRows(analysis, deadlock);
  const lines = new Map<string, { waiter: ThreadKey; text: string }>();
  const allOf = new Map<string, { waiter: ThreadKey; wait: Edge; targets: ThreadKey[] }>();
  for (const row of rows) {
    const waiter = name(threads.get(row.waiter), row.waiter);
    if (row.resource === null) {
      const k = `${row.waiter}\u0000${row.wait.description}`;
      const entry = allOf.get(k) ?? { waiter: row.waiter, wait: row.wait, targets: [] };
      if (!entry.targets.includes(row.holder)) entry.targets.push(row.holder);
      allOf.set(k, entry);
      continue;
    }
    const text = `${waitSentence(waiter, row.wait, name(threads.get(row.holder), row.holder), row.hold, row.holder === row.waiter)}${evidenceTag(row.wait, row.hold)}`;
    lines.set(`${row.waiter}\u0000${row.resource}\u0000${row.holder}`, { waiter: row.waiter, text });
  }
  for (const [k, entry] of allOf) {
    const targets = entry.targets.sort(compareThreadKeys);
    const list = targets.map((t) => name(threads.get(t), t)).join(', ');
    lines.set(k, { waiter: entry.waiter, text: `${name(threads.get(entry.waiter), entry.waiter)} ${entry.wait.description}: ${list}${evidenceTag(entry.wait, null)}` });
  }
  return [...lines.values()].sort((a, b) => compareThreadKeys(a.waiter, b.waiter)).map((l) => l.text);
}

function evidenceTag(wait: Edge, hold: Edge | null): string {
  return ` [${stepEvidence(wait, hold)}]`;
}

function hangSection(analysis: Analysis, threads: Map<ThreadKey, ThreadAnalysis>, layout: Layout): string[] {
  const { c } = layout;
  const wrap = (text: string, first: string, rest: string): string[] => wrapAt(text, first, rest, layout.width);
  const out: string[] = [c.bold('Waits that cannot end:')];
  // Grouped once: filtering the whole list per hung thread was quadratic (30,000 hung threads: 5 s).
  const reasons = new Map<ThreadKey, string[]>();
  for (const r of analysis.hangReasons ?? []) {
    const list = reasons.get(r.thread);
    if (list) list.push(r.text);
    else reasons.set(r.thread, [r.text]);
  }
  // Threads that wait the same way at the same place are one entry: 412 waiters of one mutex are
  // one line, not 412 (the report stays linear in the dump, and readable).
  // A reason that names its own thread ("or thread 7 itself: the lock is not recursive") folds
  // with the others as "the waiter itself": 86,000 waiters of one mutex are one entry too.
  const entries = analysis.hung.map((key) => {
    const t = threads.get(key);
    const mine = reasons.get(key) ?? [];
    const texts = mine.length > 0 ? mine : [t?.stateText ?? 'waits'];
    const self = `${/^bt@\d+$/.test(key) ? `the backtrace at line ${key.slice(3)}` : `thread ${key}`} itself`;
    const alike = texts.map((r) => r.split(self).join('the waiter itself'));
    const site = t?.acquireSite ? siteText(t.acquireSite) : null;
    return { key, id: JSON.stringify([alike, site]), texts, alike, site };
  });
  for (const { who, entry, folded } of alikeEntries(entries, threads, layout)) {
    for (const r of folded ? entry.alike : entry.texts) out.push(...wrap(`${who} ${r}`, '  ', '      '));
    if (entry.site !== null) out.push(`      at ${entry.site}`);
  }
  const behind = (analysis.hangBlockedBehind ?? []).map((k) => threads.get(k)).filter((t): t is ThreadAnalysis => t !== undefined);
  if (behind.length > 0) {
    out.push('');
    out.push(c.bold(`Blocked behind them (${behind.length}):`));
    for (const line of countedGroups(behind, layout.limit)) out.push(...wrap(line, '  ', '      '));
  }
  return out;
}

/** Threads in a column each up to this many; beyond, one line per motion with the threads listed. */
const MOTION_TABLE_MAX = 24;

/**
 * The motion column: `thread 2    moved   between snapshots 1 and 2`, one row per thread; with many
 * threads, the alike ones on one line (`412 threads stuck across 3 snapshots: 2, 3, …`).
 */
function motionSection(analysis: Analysis, layout: Layout): string[] {
  const rows = motionRows(analysis);
  if (rows.length <= MOTION_TABLE_MAX) {
    const who = rows.map((r) => (/^\d+(?:\.\d+)?$/.test(r.key) ? `thread ${r.key}` : r.key) + (r.record.lwp !== null ? ` (LWP ${r.record.lwp})` : ''));
    const wide = Math.max(...who.map((w) => w.length));
    return rows.map((r, i) => `  ${(who[i] as string).padEnd(wide)}  ${r.record.motion.padEnd(5)}  ${r.words}`);
  }
  const groups = new Map<string, string[]>();
  for (const r of rows) {
    const list = groups.get(r.words);
    if (list) list.push(r.key);
    else groups.set(r.words, [r.key]);
  }
  return [...groups].flatMap(([words, keys]) => wrapAt(`${keys.length === 1 ? `thread ${keys[0]}` : `${keys.length.toLocaleString('en-US')} threads`} ${words}${keys.length === 1 ? '' : `: ${limitedList(keys, layout.limit)}`}`, '  ', '      ', layout.width));
}

/**
 * `3 threads idle GC worker: 10, 11, 12` / `thread 2: Julia signal listener`, in thread order of
 * the first member; with a limit, `412 threads …: 2, 3, 4, … and 409 more`.
 */
export function countedGroups(threads: ThreadAnalysis[], limit: number | null = null): string[] {
  const groups = new Map<string, ThreadAnalysis[]>();
  for (const t of [...threads].sort((a, b) => compareThreadKeys(a.key, b.key))) {
    const list = groups.get(t.stateText) ?? [];
    list.push(t);
    groups.set(t.stateText, list);
  }
  return [...groups.entries()].map(([text, list]) => {
    const keys = list.map((t) => (/^bt@/.test(t.key) || /\.task-/.test(t.key) ? threadTitle(t.key) : t.key));
    return list.length === 1 ? `${/^\d+(?:\.\d+)?$/.test(keys[0] ?? '') ? 'thread ' : ''}${keys[0]}: ${text}` : `${list.length} threads ${pluralState(text)}: ${limitedList(keys, limit)}`;
  });
}

/** `2, 3, 4` or, past the limit, `2, 3, 4, … and 409 more`. */
export function limitedList(keys: readonly string[], limit: number | null): string {
  if (limit === null || keys.length <= limit) return keys.join(', ');
  return `${keys.slice(0, limit).join(', ')}, … and ${(keys.length - limit).toLocaleString('en-US')} more`;
}

/**
 * Entries in report order, those with the same `id` from GROUP_FROM on folded into their first
 * member's place: `who` is `412 threads (2, 3, 4, …) each` for a fold, the thread's name otherwise.
 */
function alikeEntries<E extends { key: ThreadKey; id: string }>(entries: readonly E[], threads: Map<ThreadKey, ThreadAnalysis>, layout: Layout): Array<{ who: string; entry: E; folded: boolean }> {
  const members = new Map<string, ThreadKey[]>();
  for (const { key, id } of entries) {
    const list = members.get(id);
    if (list) list.push(key);
    else members.set(id, [key]);
  }
  const out: Array<{ who: string; entry: E; folded: boolean }> = [];
  for (const entry of entries) {
    const group = members.get(entry.id) as ThreadKey[];
    if (group.length < GROUP_FROM) out.push({ who: name(threads.get(entry.key), entry.key), entry, folded: false });
    else if (group[0] === entry.key) out.push({ who: `${group.length.toLocaleString('en-US')} threads (${limitedList(group.map(String), layout.limit)}) each`, entry, folded: true });
  }
  return out;
}

/** `Thread 9 (LWP 45438)`, or `the backtrace at line 119` for an unmerged headerless one. */
function name(t: ThreadAnalysis | undefined, key: ThreadKey): string {
  const base = /^bt@(\d+)$/.test(key) ? `the backtrace at line ${key.slice(3)}` : `Thread ${key}`;
  return t?.lwp !== null && t?.lwp !== undefined ? `${base} (LWP ${t.lwp})` : base;
}

/** Greedy word wrap at `width` columns; the first line gets `first`, the others `rest`. */
function wrapAt(text: string, first: string, rest: string, width: number): string[] {
  const words = text.replace(/\s+/g, ' ').trim().split(' ');
  const lines: string[] = [];
  let line = first;
  let empty = true;
  for (const word of words) {
    if (!empty && line.length + 1 + word.length > width) {
      lines.push(line);
      line = rest + word;
    } else {
      line += (empty ? '' : ' ') + word;
    }
    empty = false;
  }
  lines.push(line);
  return lines;
}
