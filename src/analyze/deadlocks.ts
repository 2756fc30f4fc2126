/**
 * Cross-thread stage, part 2: deadlocks from the graph's cycles (title, explanation, fix from a
 * cycle rule or from the rules on the cycle, a signature free of numbers and addresses), and the
 * hang verdict for waits that cannot end although there is no cycle.
 */
import { createHash } from 'node:crypto';
import type { CycleStep, Deadlock, Edge, ThreadAnalysis, ThreadKey, UnresolvedWait } from '../model/analysis.js';
import { findCycleComponents, type CycleComponent } from '../graph/index.js';
import { compareThreadKeys, isThreadNode, nodeKey } from '../model/ids.js';
import type { CycleRule, LoadedRules } from '../rules/types.js';
import type { OwnerShape } from '../model/owner-shapes.js';
import type { ParsedArgValue } from '../rules/arg-values.js';

/** What the analysis keeps about a wait beyond the model's Edge (made in analyzer.ts). */
export interface WaitInfo {
  edge: Edge;
  lockLike: boolean;
  label: string | null;
  /** The gdb command a report shows for the holder (from the rule's owner shape, or a user rule's own text). */
  ownerQuery: string | null;
  ownerAnswer: 'lwp' | 'ptid' | null;
  ownerShape: OwnerShape | null;
  /** The arguments the rule captured (owner answers in the text link to the wait through their symbols). */
  captures: Record<string, ParsedArgValue>;
}

export interface DeadlockInput {
  rules: LoadedRules;
  edges: Edge[];
  waits: WaitInfo[];
  threads: ThreadAnalysis[];
  /** Normalised acquire-site function per thread key (only `get` is used: a lookup, not a copy). */
  acquireNames: Pick<ReadonlyMap<ThreadKey, string | null>, 'get'>;
  /** Labels of all-of resources, e.g. `julia:gc-stop` → `Julia GC stop-the-world`. */
  allOfLabels: Map<string, string>;
}

export function buildDeadlocks(input: DeadlockInput): Deadlock[] {
  const threadsByKey = new Map<ThreadKey, ThreadAnalysis>();
  for (const t of input.threads) threadsByKey.set(t.key, t);
  const labelByEdge = new Map<Edge, string | null>();
  for (const w of input.waits) labelByEdge.set(w.edge, w.label);
  return findCycleComponents(input.edges).map((component) => toDeadlock(component, input, threadsByKey, labelByEdge));
}

function toDeadlock(component: CycleComponent, input: DeadlockInput, threadsByKey: Map<ThreadKey, ThreadAnalysis>, labelByEdge: Map<Edge, string | null>): Deadlock {
  const name = (key: ThreadKey): string => threadName(threadsByKey.get(key), key);
  const cycle: CycleStep[] = [];
  const edges = component.cycle;
  for (let i = 0; i < edges.length; i++) {
    const e = edges[i] as Edge;
    if (e.kind === 'waits-thread') {
      const from = nodeKey(e.from);
      const to = nodeKey(e.to);
      cycle.push({ from, to, resource: null, wait: e, hold: null, text: `${name(from)} ${e.description}: ${name(to)}` });
    } else if (e.kind === 'waits') {
      const hold = edges[i + 1] as Edge;
      i++;
      const from = nodeKey(e.from);
      const to = nodeKey(hold.to);
      const holdText = hold.description ? `, ${hold.description}` : '';
      cycle.push({ from, to, resource: nodeKey(e.to), wait: e, hold, text: `${from === to ? `${name(from)} ${e.description}, which it holds itself${holdText}` : `${name(from)} ${e.description}, held by ${name(to)}${holdText}`}` });
    }
  }
  const resources = new Set(component.resources);
  for (const e of component.edges) if (e.kind === 'waits-thread' && e.allOf) resources.add(e.allOf);
  const ruleIds = new Set<string>();
  for (const e of component.edges) {
    ruleIds.add(e.ruleId);
    if (e.stateRuleId) ruleIds.add(e.stateRuleId);
  }
  const cycleRule = pickCycleRule(input.rules.cycleRules, ruleIds);
  if (cycleRule) ruleIds.add(cycleRule.id);
  const ruleTexts = [...new Set(component.edges.filter((e) => e.kind !== 'holds').map((e) => e.ruleId))]
    .map((id) => input.rules.byId.get(id))
    .filter((r) => r !== undefined);
  const labels: string[] = [];
  for (const e of component.cycle) {
    const label = e.kind === 'waits-thread' ? (e.allOf ? input.allOfLabels.get(e.allOf) : undefined) : e.kind === 'waits' ? labelByEdge.get(e) ?? undefined : undefined;
    const text = label ?? (e.kind === 'waits' ? resourceKind(nodeKey(e.to)) : e.kind === 'waits-thread' ? `threads in state ${e.viaState ?? '?'}` : undefined);
    if (text && !labels.includes(text)) labels.push(text);
  }
  const title = cycleRule ? `deadlock: ${cycleRule.title}` : `deadlock: ${labels.length > 1 ? labels.join(' ↔ ') : `${labels[0] ?? 'wait'} cycle`}`;
  const explanation = cycleRule ? cycleRule.explanation : ruleTexts.map((r) => r.explanation).join('\n\n');
  const fix = cycleRule ? cycleRule.fix : ruleTexts.map((r) => r.fix).join('\n\n');
  return {
    threads: component.threads,
    cycle,
    resources: [...resources].sort(),
    evidence: component.cycle.every((e) => e.evidence === 'proven') ? 'proven' : 'inferred',
    title,
    signature: signature(component, input.acquireNames),
    explanation,
    fix,
    rules: [...ruleIds].sort(),
    blockedBehind: component.blockedBehind,
  };
}

/** The cycle rule whose required rules all fired on the component; the most specific wins. */
function pickCycleRule(cycleRules: CycleRule[], fired: Set<string>): CycleRule | null {
  let best: CycleRule | null = null;
  for (const rule of cycleRules) {
    if (!rule.requiredRules.every((id) => fired.has(id))) continue;
    if (best === null || rule.requiredRules.length > best.requiredRules.length) best = rule;
  }
  return best;
}

/** `mutex:0x55…` → `mutex`; ids without an address keep their identity (`julia:gc-stop`). */
export function resourceKind(id: string): string {
  const i = id.indexOf(':');
  if (i < 0) return id;
  const identity = id.slice(i + 1);
  return /^0x[0-9a-f]+$/i.test(identity) || identity.startsWith('unknown@') ? id.slice(0, i) : id;
}

/**
 * First 12 hex digits of sha256 over the component's wait edges as `acquire-site > resource kind`
 * tokens, sorted and de-duplicated: no thread numbers, LWPs or addresses, and the same bug with
 * one more waiting thread keeps its signature.
 */
function signature(component: CycleComponent, acquireNames: DeadlockInput['acquireNames']): string {
  const tokens = new Set<string>();
  for (const e of component.edges) {
    if (!isThreadNode(e.from)) continue;
    const site = acquireNames.get(nodeKey(e.from)) ?? '?';
    const what = e.kind === 'waits-thread' ? `all:${e.viaState ?? '?'}:${e.allOf ? resourceKind(e.allOf) : ''}` : resourceKind(nodeKey(e.to));
    tokens.add(`${site} > ${what}`);
  }
  return createHash('sha256').update([...tokens].sort().join('\n')).digest('hex').slice(0, 12);
}

export function threadName(t: ThreadAnalysis | undefined, key: ThreadKey): string {
  if (!t) return `Thread ${key}`;
  const base = t.id === null ? `the backtrace at line ${t.acquireSite?.sourceLine ?? key.replace(/^bt@/, '')}` : `Thread ${t.key}`;
  return t.lwp !== null ? `${base} (LWP ${t.lwp})` : base;
}

export interface HangInput {
  edges: Edge[];
  waits: WaitInfo[];
  threads: ThreadAnalysis[];
  inDeadlock: Set<ThreadKey>;
  /** Threads a rule says wait with a time limit (sleeps, timed waits). */
  timedThreads: Set<ThreadKey>;
  /**
   * The crashed thread when the process crashed (crash.ts): the process is dead, so a wait whose
   * holder is unknown, or is the crashed thread, is where the crash froze it, not a hang.
   */
  crashed?: ThreadKey | null;
  /** Threads known only from an `info threads` row (one frame, no holder): they make no hang. */
  rowsOnly?: ReadonlySet<ThreadKey>;
}

export interface HangResult {
  hung: ThreadKey[];
  reasons: Array<{ thread: ThreadKey; text: string }>;
  blockedBehind: ThreadKey[];
  unresolved: UnresolvedWait[];
}

/**
 * A thread hangs when it waits, with no time limit and not as an idle pool thread, on a lock-like
 * resource whose holder is not in the dump, or whose holder (or, for an all-of wait, a thread it
 * waits for) is itself blocked in a wait nothing in the dump can end. `hung` lists those root
 * waiters; the threads behind them come separately. Waits with an unknown holder are also the
 * unresolved waits, with their gdb query.
 */
export function findHang(input: HangInput): HangResult {
  const threads = new Map<ThreadKey, ThreadAnalysis>();
  for (const t of input.threads) threads.set(t.key, t);
  const holders = new Map<string, ThreadKey[]>();
  for (const e of input.edges) {
    if (e.kind !== 'holds') continue;
    const list = holders.get(e.from);
    if (list) list.push(nodeKey(e.to));
    else holders.set(e.from, [nodeKey(e.to)]);
  }
  const hung = new Set<ThreadKey>();
  const reasons = new Map<ThreadKey, string[]>();
  const because = (key: ThreadKey, text: string): void => {
    hung.add(key);
    const list = reasons.get(key) ?? [];
    if (!list.includes(text)) list.push(text);
    reasons.set(key, list);
  };
  const unresolved: UnresolvedWait[] = [];
  const crashed = input.crashed ?? null;
  const waitingThreads = new Set<ThreadKey>();
  for (const e of input.edges) if (e.kind !== 'holds' && !e.timed) waitingThreads.add(nodeKey(e.from));
  /**
   * A holder that will not release: blocked in a wait with no time limit that no rule turns into a
   * wait edge (so nothing in the dump can wake it), e.g. `read()` in a foreign call.
   */
  const deadEnded = (key: ThreadKey): boolean => {
    const t = threads.get(key);
    return t !== undefined && t.blocked === true && !waitingThreads.has(key) && !input.timedThreads.has(key);
  };
  const stuckText = (key: ThreadKey): string => {
    const t = threads.get(key);
    const where = t?.acquireSite ? ` in ${t.acquireSite.function}` : '';
    const state = t && t.state !== 'waiting' && t.state !== 'unknown' ? ` (${t.stateText})` : '';
    return `${threadName(t, key)}, which is blocked${where}${state} with nothing in the dump to wake it`;
  };
  for (const w of input.waits) {
    const e = w.edge;
    const key = nodeKey(e.from);
    const thread = threads.get(key);
    if (!thread || thread.idle || e.timed || !w.lockLike) continue;
    const owners = holders.get(e.to) ?? [];
    if (owners.length === 0) {
      unresolved.push({
        thread: key,
        resource: nodeKey(e.to),
        description: e.description,
        ruleId: e.ruleId,
        site: e.site,
        gdbCommand: w.ownerQuery,
        ...(w.ownerAnswer ? { ownerAnswer: w.ownerAnswer } : {}),
        ...(w.ownerShape ? { ownerShape: w.ownerShape } : {}),
      });
      if (!input.inDeadlock.has(key) && crashed === null && input.rowsOnly?.has(key) !== true) because(key, `${e.description}, and no thread in the dump holds it (${nodeKey(e.to)})`);
      continue;
    }
    if (!input.inDeadlock.has(key) && input.rowsOnly?.has(key) !== true && owners.every((o) => o !== key && o !== crashed && deadEnded(o))) {
      because(key, `${e.description}, held by ${owners.map((o) => stuckText(o)).join(' and ')}`);
    }
  }
  // An all-of wait (the GC waiting for every GC-unsafe thread) hangs when a thread it waits for
  // is blocked with nothing that could wake it: a foreign call blocked while GC-unsafe.
  for (const e of input.edges) {
    if (e.kind !== 'waits-thread' || e.timed) continue;
    const key = nodeKey(e.from);
    const thread = threads.get(key);
    if (!thread || thread.idle || input.inDeadlock.has(key) || input.rowsOnly?.has(key) === true) continue;
    if (deadEnded(nodeKey(e.to))) because(key, `${e.description}, but ${stuckText(nodeKey(e.to))}`);
  }
  // Threads that wait, directly or through others, on a hung thread.
  const incoming = new Map<string, string[]>();
  for (const e of input.edges) {
    const list = incoming.get(e.to);
    if (list) list.push(e.from);
    else incoming.set(e.to, [e.from]);
  }
  const seen = new Set<string>([...hung].map((k) => `thread:${k}`));
  const queue = [...seen];
  const behind: ThreadKey[] = [];
  while (queue.length > 0) {
    const node = queue.pop() as string;
    for (const prev of incoming.get(node) ?? []) {
      if (seen.has(prev)) continue;
      seen.add(prev);
      if (isThreadNode(prev)) behind.push(nodeKey(prev));
      queue.push(prev);
    }
  }
  unresolved.sort((a, b) => compareThreadKeys(a.thread, b.thread) || (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
  const hungList = [...hung].sort(compareThreadKeys);
  return {
    hung: hungList,
    reasons: hungList.flatMap((k) => (reasons.get(k) ?? []).map((text) => ({ thread: k, text }))),
    blockedBehind: behind.sort(compareThreadKeys),
    unresolved,
  };
}
