/**
 * Cross-thread stage, part 2: deadlocks from the graph's cycles (title, explanation, fix from a
 * cycle rule or from the rules on the cycle, a signature free of numbers and addresses), and the
 * waits whose holder the input does not show. The verdict itself is verdict.ts's.
 */
// sha256 in JavaScript, not node:crypto: loading node:crypto was ~2.5 ms of every start with a
// cycle in it, for one hash of a few hundred bytes (issue 18, figure 4). Same digest.
import { sha256 } from '@noble/hashes/sha2';
import { bytesToHex, utf8ToBytes } from '@noble/hashes/utils';
import type { CycleStep, Deadlock, Edge, ThreadAnalysis, ThreadKey, UnresolvedWait } from '../model/analysis.js';
import { findCycleComponents, type CycleComponent } from '../graph/index.js';
import { compareThreadKeys, isThreadNode, nodeKey } from '../model/ids.js';
import type { CycleRule, LoadedRules } from '../rules/types.js';
import type { OwnerShape } from '../model/owner-shapes.js';
import { waitSentence } from '../report/cycle-view.js';
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
  /** False when the waiter cannot be the holder (recursive locks, the GIL). */
  waiterMayHold: boolean;
  /** Several threads may hold it (read locks). */
  shared: boolean;
  /** The same frames are also a wait to be woken (a Python Condition's own lock): the rule's mayBeWakeUp. */
  mayBeWakeUp: boolean;
  /** Only the thread the resource names can end the wait (pthread_join). */
  namedHolder: boolean;
  /** The holder shows in its own stack; with none named, only a thread whose stack is cut could be it. */
  holderShows: boolean;
  /** Where to look for the holder when memory cannot name it (the rule's holderHint), or null. */
  holderHint: string | null;
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
  const components = findCycleComponents(input.edges);
  // No cycle (most dumps): no lookups over every thread and wait.
  if (components.length === 0) return [];
  const threadsByKey = new Map<ThreadKey, ThreadAnalysis>();
  for (const t of input.threads) threadsByKey.set(t.key, t);
  const labelByEdge = new Map<Edge, string | null>();
  for (const w of input.waits) labelByEdge.set(w.edge, w.label);
  return components.map((component) => toDeadlock(component, input, threadsByKey, labelByEdge));
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
      cycle.push({ from, to, resource: nodeKey(e.to), wait: e, hold, text: waitSentence(name(from), e, name(to), hold, from === to) });
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
  return bytesToHex(sha256(utf8ToBytes([...tokens].sort().join('\n')))).slice(0, 12);
}

export function threadName(t: ThreadAnalysis | undefined, key: ThreadKey): string {
  if (!t) return `Thread ${key}`;
  const base = t.id === null ? `the backtrace at line ${t.acquireSite?.sourceLine ?? key.replace(/^bt@/, '')}` : `Thread ${t.key}`;
  return t.lwp !== null ? `${base} (LWP ${t.lwp})` : base;
}

/**
 * Waits whose holder is not known from the input (no hold edge, no owner fact): each lock-like wait
 * with no time limit of a thread that is not an idle pool thread, with the gdb command that would
 * settle who holds it. Live mode asks these (owner-queries.ts); reports print them.
 */
export function unresolvedWaits(edges: Edge[], waits: WaitInfo[], threads: ThreadAnalysis[], ownerGone: ReadonlySet<string> = new Set()): UnresolvedWait[] {
  const byKey = new Map<ThreadKey, ThreadAnalysis>();
  for (const t of threads) byKey.set(t.key, t);
  const held = new Set<string>();
  for (const e of edges) if (e.kind === 'holds') held.add(e.from);
  const unresolved: UnresolvedWait[] = [];
  for (const w of waits) {
    const e = w.edge;
    const key = nodeKey(e.from);
    const thread = byKey.get(key);
    // A wait whose owner is known to be gone is settled (the verdict says so), not open.
    if (!thread || thread.idle || e.timed || !w.lockLike || held.has(e.to) || ownerGone.has(e.to)) continue;
    unresolved.push({
      thread: key,
      resource: nodeKey(e.to),
      description: e.description,
      ruleId: e.ruleId,
      site: e.site,
      gdbCommand: w.ownerQuery,
      ...(w.ownerAnswer ? { ownerAnswer: w.ownerAnswer } : {}),
      ...(w.ownerShape ? { ownerShape: w.ownerShape } : {}),
      ...(w.ownerQuery === null && w.holderHint !== null ? { holderHint: w.holderHint } : {}),
    });
  }
  return unresolved.sort((a, b) => compareThreadKeys(a.thread, b.thread) || (a.resource < b.resource ? -1 : a.resource > b.resource ? 1 : 0));
}
