/**
 * What the graph-shaped reports (Markdown, Mermaid, DOT, SARIF) need from an Analysis, computed
 * once so they cannot disagree: the edges inside a deadlock (waiter → resource → holder rows),
 * node ids, and short labels. Pure functions over the model; no formatting here.
 */
import type { Analysis, Deadlock, Edge, FrameRef, ResourceId, ThreadAnalysis, ThreadKey } from '../model/analysis.js';
import { compareThreadKeys, parseNodeId } from '../model/ids.js';

/** One "waiter waits for (resource) held by holder" fact between two threads of a deadlock. */
export interface DeadlockRow {
  waiter: ThreadKey;
  /** Null for a direct thread → thread wait (an all-of wait such as the GC's). */
  resource: ResourceId | null;
  holder: ThreadKey;
  wait: Edge;
  hold: Edge | null;
  /** True when the row is a step of the deadlock's canonical cycle. */
  onCycle: boolean;
}

/**
 * Every wait inside the deadlock's strongly connected component, not only the canonical cycle's
 * steps: in the founding case the cycle is 7 → 9 → 7, but thread 8 waits the same way and belongs
 * in the table. Canonical steps come first, in cycle order; the rest follow by waiter, resource,
 * holder.
 */
export function deadlockRows(analysis: Analysis, deadlock: Deadlock): DeadlockRow[] {
  const members = new Set(deadlock.threads);
  const rows: DeadlockRow[] = deadlock.cycle.map((step) => ({
    waiter: step.from,
    resource: step.resource,
    holder: step.to,
    wait: step.wait,
    hold: step.hold,
    onCycle: true,
  }));
  const seen = new Set(rows.map(rowKey));
  const holdsByResource = new Map<string, Edge[]>();
  for (const edge of analysis.edges) {
    if (edge.kind !== 'holds') continue;
    const list = holdsByResource.get(edge.from) ?? [];
    list.push(edge);
    holdsByResource.set(edge.from, list);
  }
  const extra: DeadlockRow[] = [];
  for (const edge of analysis.edges) {
    const from = parseNodeId(edge.from);
    if (from.kind !== 'thread' || !members.has(from.key)) continue;
    const to = parseNodeId(edge.to);
    if (edge.kind === 'waits-thread' && to.kind === 'thread' && members.has(to.key)) {
      extra.push({ waiter: from.key, resource: null, holder: to.key, wait: edge, hold: null, onCycle: false });
    } else if (edge.kind === 'waits' && to.kind === 'resource') {
      for (const hold of holdsByResource.get(edge.to) ?? []) {
        const holder = parseNodeId(hold.to);
        if (holder.kind === 'thread' && members.has(holder.key)) {
          extra.push({ waiter: from.key, resource: to.key, holder: holder.key, wait: edge, hold, onCycle: false });
        }
      }
    }
  }
  extra.sort(compareRows);
  for (const row of extra) {
    const key = rowKey(row);
    if (seen.has(key)) continue;
    seen.add(key);
    rows.push(row);
  }
  return rows;
}

function rowKey(row: Pick<DeadlockRow, 'waiter' | 'resource' | 'holder'>): string {
  return `${row.waiter}\u0000${row.resource ?? ''}\u0000${row.holder}`;
}

function compareRows(a: DeadlockRow, b: DeadlockRow): number {
  return (
    compareThreadKeys(a.waiter, b.waiter) ||
    compareText(a.resource ?? '', b.resource ?? '') ||
    compareThreadKeys(a.holder, b.holder)
  );
}

/** Plain code-unit order: locale-independent, so output is the same on every machine. */
export function compareText(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** `thread 9` or `backtrace at line 119`; the key is what the user can find in the dump. */
export function threadTitle(key: ThreadKey): string {
  const headerless = /^bt@(\d+)$/.exec(key);
  if (headerless) return `backtrace at line ${headerless[1]}`;
  // A parked Julia task (parse/julia.ts): `7.task-2`.
  const task = /^(\d+)\.task-(root|\d+)$/.exec(key);
  if (task) return task[2] === 'root' ? `root task of thread ${task[1]}` : `task ${task[2]} of thread ${task[1]}`;
  return `thread ${key}`;
}

/** `thread 9 (LWP 45438) "julia"`: the title plus what gdb printed to identify it. */
export function threadLongTitle(thread: ThreadAnalysis): string {
  let text = threadTitle(thread.key);
  if (thread.lwp !== null) text += ` (LWP ${thread.lwp})`;
  if (thread.name) text += ` "${thread.name}"`;
  return text;
}

/** Lists thread keys as `7, 8, 9` (numbers only, as gdb users say them). */
export function threadList(keys: readonly ThreadKey[]): string {
  return keys.map((key) => (/^\d+$/.test(key) ? key : threadTitle(key))).join(', ');
}

/**
 * `jl_gc_wait_for_the_world at src/gc.c:241`, or the function alone when no source is known; with
 * the line's code when `--source` read it (`take_a_then_b at abba.c:17: pthread_mutex_lock(&lock_b);`).
 */
export function siteText(site: FrameRef | null): string {
  if (!site) return '';
  if (site.file && site.line !== null) return `${site.function} at ${site.file}:${site.line}${site.code !== undefined ? `: ${site.code}` : ''}`;
  if (site.file) return `${site.function} at ${site.file}`;
  return site.function;
}

/**
 * What a report says about a crash beyond its one sentence: the frame that shows it and where the
 * program went wrong (the first frame outside libc and the abort machinery), one line each.
 */
export function crashLines(crash: NonNullable<Analysis['crash']>): string[] {
  const lines: string[] = [];
  const how: Record<NonNullable<Analysis['crash']>['evidence'], string> = {
    'signal-line': `the signal line at line ${crash.sourceLine ?? '?'} names it`,
    abort: 'the thread is in the abort path',
    assert: 'an assertion failed',
    'signal-handler': 'a crash handler runs under <signal handler called>',
    'freed-memory': 'inferred from a freed-memory fill value; no signal in the text',
  };
  lines.push(`evidence: ${how[crash.evidence]}`);
  if (crash.crashFrame) lines.push(`crash frame: #${crash.crashFrame.level} ${siteText(crash.crashFrame)}`);
  if (crash.site) lines.push(`where it went wrong: #${crash.site.level} ${siteText(crash.site)}`);
  return lines;
}

/** `src/gc.c:241`, or null. */
export function siteLocation(site: FrameRef | null): string | null {
  if (!site?.file) return null;
  return site.line !== null ? `${site.file}:${site.line}` : site.file;
}

export function threadsByKey(analysis: Analysis): Map<ThreadKey, ThreadAnalysis> {
  return new Map(analysis.threads.map((thread) => [thread.key, thread]));
}

/**
 * The sentence for one wait of a cycle, in English whatever the rules' fragments look like:
 * `Thread 7 waits for the lazy compile of a JIT trampoline, held by Thread 9, which is compiling …`,
 * `Thread 1 waits for Thread 2 to exit (pthread_join; its header shows pthread_t 0x7f…)`,
 * `Thread 2 waits for the mutex m, which it holds itself`.
 */
export function waitSentence(waiter: string, wait: Edge, holder: string, hold: Edge | null, self: boolean): string {
  if (hold === null) return `${waiter} ${wait.description}: ${holder}`;
  const clause = holdClause(hold.description);
  // `…, which it holds itself: it holds `m` since f.c:12: …`, not a second `which` after the first.
  if (self) return `${waiter} ${wait.description}, which it holds itself${clause.startsWith(', which ') ? `: it ${clause.slice(', which '.length)}` : clause}`;
  if (hold.ruleId === 'thread-identity' || hold.basis === 'thread-identity') {
    const how = /\(([^()]+)\)\s*$/.exec(wait.description)?.[1];
    return `${waiter} waits for ${holder} to exit (${how ? `${how}; ` : ''}${hold.description})`;
  }
  return `${waiter} ${wait.description}, held by ${holder}${clause}`;
}

/**
 * What to print after a holder's name for its hold edge: `, which is compiling …` from a fragment
 * however it starts (`is running …`, `which …`, `as memory shows …`), ` (its header shows pthread_t …)`
 * for a thread identity.
 */
export function holderClause(hold: Edge): string {
  if (hold.ruleId === 'thread-identity' || hold.basis === 'thread-identity') return hold.description ? ` (${hold.description})` : '';
  return holdClause(hold.description);
}

function holdClause(description: string): string {
  const d = description.trim();
  if (d === '') return '';
  if (/^(which|whose|who|as|since|because|presumably which)\b|^\(/.test(d)) return `, ${d}`;
  return `, which ${d}`;
}

/** The one-line summary every format starts with. */
/** Beyond this many threads a headline counts them instead of listing them. */
export const HEADLINE_THREADS = 8;

/** `4,812 threads (12 groups)`: groups of threads in the same state, as the report lists them. */
function threadCount(analysis: Analysis, keys: readonly ThreadKey[]): string {
  const wanted = new Set(keys);
  const states = new Set<string>();
  for (const t of analysis.threads) if (wanted.has(t.key)) states.add(t.stateText);
  return `${keys.length.toLocaleString('en-US')} threads (${states.size} ${states.size === 1 ? 'group' : 'groups'})`;
}

export function verdictLine(analysis: Analysis): string {
  switch (analysis.verdict) {
    case 'deadlock': {
      const count = analysis.deadlocks.length;
      if (count === 1) {
        const deadlock = analysis.deadlocks[0]!;
        return `${capitalise(deadlock.title)} (${deadlock.threads.length > HEADLINE_THREADS ? threadCount(analysis, deadlock.threads) : `${deadlock.threads.length === 1 ? 'thread' : 'threads'} ${threadList(deadlock.threads)}`})`;
      }
      return `${count} deadlocks found`;
    }
    case 'hang': {
      const one = analysis.hung.length === 1;
      const who = analysis.hung.length > HEADLINE_THREADS ? threadCount(analysis, analysis.hung) : headlineThreads(analysis.hung);
      // A dump that does not show every thread speaks for the threads it shows only: the others
      // may run, and a lock's owner it does not show may still be in the process.
      const notWhole = analysis.verdictReasons?.[0]?.notWhole === true;
      switch (analysis.verdictReasons?.[0]?.kind) {
        case 'owner-gone':
          return notWhole
            ? `Hang: ${who} ${one ? 'waits' : 'wait'} for a lock whose owner is not among the threads the dump shows`
            : `Hang: ${who} ${one ? 'waits' : 'wait'} for a lock whose owner is not in the process`;
        case 'all-blocked':
          return `Hang: ${notWhole ? 'every thread the dump shows' : 'every thread'} is blocked with no time limit; ${who} ${one ? 'waits' : 'wait'} for what no thread ${notWhole ? 'shown' : 'left'} can release`;
        case 'no-releaser':
          return `Hang: ${who} ${one ? 'waits' : 'wait'} with no time limit for what only threads blocked for good could release${notWhole ? ' (of the threads the dump shows)' : ''}`;
        default:
          return `Hang: ${who} ${one ? 'waits' : 'wait'} with no time limit on something that is not released`;
      }
    }
    case 'crash':
      return `Crash: ${analysis.crash?.text ?? 'the process crashed'}`;
    case 'ok':
      return `No deadlock or hang found among ${analysis.stats.threads} ${analysis.stats.threads === 1 ? 'thread' : 'threads'}`;
  }
}

/** `thread 5`, `threads 1, 6`; a backtrace without a thread header by its line: `the backtrace at line 3`. */
function headlineThreads(keys: readonly ThreadKey[]): string {
  if (keys.every((key) => /^\d+$/.test(key))) return `${keys.length === 1 ? 'thread' : 'threads'} ${threadList(keys)}`;
  const titles = keys.map((key) => (/^bt@/.test(key) ? `the ${threadTitle(key)}` : threadTitle(key)));
  return titles.length === 1 ? (titles[0] as string) : `${titles.slice(0, -1).join(', ')} and ${titles[titles.length - 1]}`;
}

export function capitalise(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1);
}

/**
 * The evidence a report prints for a cycle: `proven`, `inferred`, or `inferred (source)` when a
 * hold on it was read from the code (`--source`).
 */
export function evidenceLabel(deadlock: Deadlock): string {
  if (deadlock.evidence === 'inferred' && deadlock.cycle.some((step) => step.hold?.basis === 'source')) return 'inferred (source)';
  return deadlock.evidence;
}

/** The evidence of one wait and its hold: `proven`, `inferred`, `inferred (source)`. */
export function stepEvidence(wait: Edge, hold: Edge | null): string {
  if (hold?.basis === 'source') return 'inferred (source)';
  return wait.evidence === 'inferred' || hold?.evidence === 'inferred' ? 'inferred' : 'proven';
}

/**
 * The holds read from the code (`--source`), one sentence each in thread order:
 * `thread 3 holds \`lock_b\` since abba.c:26: \`pthread_mutex_lock(&lock_b);\``.
 */
export function sourceHoldLines(analysis: Analysis): string[] {
  const holds = analysis.edges.filter((e) => e.kind === 'holds' && e.basis === 'source');
  holds.sort((a, b) => compareThreadKeys(parseNodeId(a.to).key, parseNodeId(b.to).key));
  return holds.map((e) => `${threadTitle(parseNodeId(e.to).key)} ${e.description}${e.site ? ` (in ${e.site.function})` : ''}`);
}

/** Short edge label for graphs: `waits`, `holds`, `waits for all gc-unsafe`. */
export function edgeVerb(edge: Edge): string {
  switch (edge.kind) {
    case 'waits':
      return edge.timed ? 'waits (timed)' : 'waits for';
    case 'holds':
      // A hold read from the code names its line: `held by (since abba.c:26: pthread_mutex_lock(&lock_b);)`.
      if (edge.basis === 'source' && edge.site?.code !== undefined) return `held by (since ${edge.site.file ?? '?'}:${edge.site.line ?? '?'}: ${edge.site.code})`;
      return 'held by';
    case 'waits-thread':
      return edge.viaState ? `waits for (${edge.viaState})` : 'waits for';
  }
}
