/**
 * Candidate cycles (issue 12 §3): when the text shows that threads are blocked for good but not who
 * holds what they wait for, the cycles that may hold among them, and the one case where the
 * possible holders leave no choice.
 *
 * The candidate graph has the threads blocked for good as nodes (threads that can go on are no
 * candidates: were one of them the holder, the waiter could go on too). A thread points to
 * - the known holders of what it waits for, and the targets of an all-of wait (known steps);
 * - with no known holder, every thread that could hold it (candidate steps): any thread, or for
 *   a resource whose holder shows in its stack (`holderShows`) only threads whose stack is cut.
 *   The waiter itself is ruled out when the lock is recursive or the GIL (`waiterMayHold: false`);
 *   a thread that waits for the same exclusive lock is ruled out too, for if it held the lock it
 *   would wait for itself, a cycle of its own that does not pass through the waiter.
 *
 * Cycles are listed smallest first (self-deadlocks, then pairs, …), each once per thread set, up
 * to MAX_CYCLES and within a work budget: a 100,000-thread dump where every thread waits for an
 * unknown mutex has more cycles than atoms, so the search stops and says so.
 *
 * A cycle is *forced* when each of its candidate steps has exactly one possible holder, found
 * without the same-lock rule (which only says which cycle a thread would be in, not that it is in
 * one): then the cycle holds as surely as the rules and facts it rests on, and it is reported as a
 * deadlock with evidence inferred. A self-deadlock is never forced by elimination alone: an owner
 * that has left the process (exited, or across fork()) looks exactly the same in the text.
 */
import type { CandidateCycle, ThreadKey } from '../model/analysis.js';
import { componentsOf } from '../graph/index.js';
import type { Need } from './process-hung.js';

/** At most this many candidate cycles are listed. */
export const MAX_CYCLES = 8;
/** Longest candidate cycle searched for. */
export const MAX_CYCLE_LENGTH = 6;
/** Steps of the cycle search (a step: one successor looked at) before it stops and says so. */
export const SEARCH_BUDGET = 200_000;

export interface CandidateThread {
  key: ThreadKey;
  needs: Need[];
}

/** What a candidate step waits for, to word it and to prove it. */
export interface StepWait {
  resource: string;
  description: string;
  /** gdb command that names the holder, or null when none can (a Python Lock records no owner). */
  ownerQuery: string | null;
  label: string | null;
  waiterMayHold: boolean;
  shared: boolean;
  /** The holder shows in its own stack: a full backtrace of the candidate settles it. */
  holderShows: boolean;
  /** Where to look for the holder when no gdb command can name it (the rule's holderHint), or null. */
  holderHint: string | null;
  /** The level of the frame the wait was read from (`pthread_mutex_lock ()`), for `frame N`. */
  siteLevel: number | null;
}

export interface CandidateInput {
  /** Threads blocked for good, in thread order. */
  stuck: CandidateThread[];
  /** Every thread of the dump waiting for each resource (for the same-lock rule). */
  waitersOf: Map<string, Set<ThreadKey>>;
  /** The lock waits, by waiter and resource, for wording and gdb commands. */
  waitOf: (waiter: ThreadKey, resource: string) => StepWait | undefined;
  name: (key: ThreadKey) => string;
}

export interface CandidateResult {
  cycles: CandidateCycle[];
  /** True when the search stopped at MAX_CYCLES, MAX_CYCLE_LENGTH or the budget. */
  capped: boolean;
  /** Every thread blocked for good has a candidate step (so, short of a gone owner, some cycle holds). */
  noDeadEnd: boolean;
  /** Cycles whose candidate steps each have one possible holder: deadlocks, with what ruled the rest out. */
  forced: Array<{ threads: ThreadKey[]; steps: Array<{ from: ThreadKey; to: ThreadKey; resource: string }>; ruledOut: string }>;
}

/**
 * Steps to a list of threads (indices into the stuck threads), shared by every waiter of one lock
 * (or one all-of wait) and read through `skip`: a waiter of 5,000 that any of 20,000 threads could
 * release keeps one reference, not 20,000 steps of its own.
 */
interface StepList {
  to: readonly number[];
  /** The waiter's own index, left out of `to` (-1: none left out). */
  skip: number;
}

interface Out {
  /** Known steps: known holders and all-of targets among the stuck threads (with the all-of wait's words). */
  known: Array<StepList & { resource: string | null; description?: string }>;
  /** Candidate steps with an explicit list of possible holders. */
  listed: Array<StepList & { resource: string }>;
  /** Candidate steps to any stuck thread (`any`), minus the ruled-out ones. */
  wild: Array<{ resource: string; self: boolean; sameLock: Set<ThreadKey> | null }>;
}

/** Whether a step list leads anywhere but back to the waiter. */
function hasStep(list: StepList): boolean {
  for (const to of list.to) if (to !== list.skip) return true;
  return false;
}

export function findCandidateCycles(input: CandidateInput): CandidateResult {
  const keys = input.stuck.map((t) => t.key);
  const index = new Map<ThreadKey, number>();
  keys.forEach((k, i) => index.set(k, i));
  const lists = stuckLists(index);
  const outs: Out[] = input.stuck.map((t) => outOf(t, index, input, lists));
  const noDeadEnd = outs.every((o, i) => o.known.some(hasStep) || o.listed.some(hasStep) || o.wild.some((w) => wildHasTarget(w, i, keys)));
  const { cycles, capped } = listCycles(keys, outs, input);
  return { cycles, capped, noDeadEnd, forced: forcedCycles(input, index, keys, lists) };
}

/**
 * A list of thread keys as indices of the stuck threads among them (the others dropped), made once
 * per list, optionally without the threads of a same-lock set (itself made once per pair).
 */
type StuckLists = (list: readonly ThreadKey[], without?: ReadonlySet<ThreadKey> | null) => readonly number[];

function stuckLists(index: Map<ThreadKey, number>): StuckLists {
  const plain = new Map<readonly ThreadKey[], number[]>();
  const filtered = new Map<readonly ThreadKey[], Map<ReadonlySet<ThreadKey>, number[]>>();
  const make = (list: readonly ThreadKey[], without: ReadonlySet<ThreadKey> | null): number[] => {
    const out: number[] = [];
    for (const k of list) {
      const i = index.get(k);
      if (i !== undefined && !(without?.has(k) ?? false)) out.push(i);
    }
    return out;
  };
  return (list, without = null) => {
    if (without === null) {
      let got = plain.get(list);
      if (got === undefined) plain.set(list, (got = make(list, null)));
      return got;
    }
    let byWithout = filtered.get(list);
    if (byWithout === undefined) filtered.set(list, (byWithout = new Map()));
    let got = byWithout.get(without);
    if (got === undefined) byWithout.set(without, (got = make(list, without)));
    return got;
  };
}

function outOf(t: CandidateThread, index: Map<ThreadKey, number>, input: CandidateInput, lists: StuckLists): Out {
  const out: Out = { known: [], listed: [], wild: [] };
  const own = index.get(t.key) ?? -1;
  for (const need of t.needs) {
    if (need.kind === 'all') {
      out.known.push({ to: lists(need.targets), skip: own, resource: null, description: need.description });
      continue;
    }
    if (need.kind !== 'lock' || need.gone) continue;
    if (need.holders.length > 0) {
      out.known.push({ to: lists(need.holders), skip: -1, resource: need.resource });
      continue;
    }
    if (need.namedHolder) continue;
    const wait = input.waitOf(t.key, need.resource);
    const self = wait?.waiterMayHold ?? true;
    const sameLock = wait?.shared ? null : (input.waitersOf.get(need.resource) ?? null);
    if (need.candidates === 'any') {
      out.wild.push({ resource: need.resource, self, sameLock });
      continue;
    }
    // The candidates leave the waiter out (its own stack shows it does not hold the lock).
    out.listed.push({ to: lists(need.candidates, sameLock), skip: own, resource: need.resource });
  }
  return out;
}

/** Whether a wildcard step of thread `from` may lead to thread `to`. */
function wildAllows(w: Out['wild'][number], fromKey: ThreadKey, toKey: ThreadKey): boolean {
  if (toKey === fromKey) return w.self;
  return !(w.sameLock?.has(toKey) ?? false);
}

function wildHasTarget(w: Out['wild'][number], from: number, keys: ThreadKey[]): boolean {
  const fromKey = keys[from] as ThreadKey;
  if (w.self) return true;
  // Some stuck thread other than the waiter that does not wait for the same lock.
  const same = w.sameLock?.size ?? 0;
  return keys.length - 1 > same - (w.sameLock?.has(fromKey) ? 1 : 0);
}

/**
 * Elementary cycles by length, each from its first thread in thread order (so each once), visiting
 * only later threads; one per thread set. Stops at MAX_CYCLES or when the budget is spent.
 */
function listCycles(keys: ThreadKey[], outs: Out[], input: CandidateInput): { cycles: CandidateCycle[]; capped: boolean } {
  const found: CandidateCycle[] = [];
  const seen = new Set<string>();
  let budget = SEARCH_BUDGET;
  let capped = false;
  const n = keys.length;
  const path: Step[] = [];
  const onPath = new Uint8Array(n);

  /** Successors of `from` as (to, resource, known), later than `start` or `start` itself; false when the budget ran out. */
  const forEachNext = (from: number, start: number, closing: boolean, visit: (to: number, resource: string | null, known: boolean, allOf?: string) => boolean): boolean => {
    const o = outs[from] as Out;
    for (const k of o.known) {
      for (const to of k.to) {
        if (to === k.skip) continue;
        if (--budget < 0) return false;
        if (to >= start && !visit(to, k.resource, true, k.description)) return false;
      }
    }
    for (const l of o.listed) {
      for (const to of l.to) {
        if (to === l.skip) continue;
        if (--budget < 0) return false;
        if (to >= start && !visit(to, l.resource, false)) return false;
      }
    }
    const fromKey = keys[from] as ThreadKey;
    for (const w of o.wild) {
      // The last step of a cycle can only go back to the start: one test, not a walk over every thread.
      if (closing) {
        if (--budget < 0) return false;
        if (wildAllows(w, fromKey, keys[start] as ThreadKey) && !visit(start, w.resource, false)) return false;
        continue;
      }
      for (let to = start; to < n; to++) {
        if (--budget < 0) return false;
        if (!wildAllows(w, fromKey, keys[to] as ThreadKey)) continue;
        if (!visit(to, w.resource, false)) return false;
      }
    }
    return true;
  };

  const search = (start: number, at: number, length: number): boolean => {
    return forEachNext(at, start, path.length + 1 === length, (to, resource, known, allOf) => {
      if (found.length >= MAX_CYCLES) return false;
      if (to === start) {
        if (path.length + 1 === length) record(start, [...path, { node: at, resource, known, allOf }]);
        return found.length < MAX_CYCLES;
      }
      if (path.length + 1 >= length || onPath[to] === 1) return true;
      onPath[to] = 1;
      path.push({ node: at, resource, known, allOf });
      const go = search(start, to, length);
      path.pop();
      onPath[to] = 0;
      return go;
    });
  };

  const record = (start: number, steps: Step[]): void => {
    // Only cycles with a candidate step: all-known ones are the deadlocks the graph found already.
    if (steps.every((s) => s.known)) return;
    const members = steps.map((s) => keys[s.node] as ThreadKey);
    const id = [...members].sort().join('\u0000');
    if (seen.has(id)) return;
    seen.add(id);
    // Step i goes from its node to the next step's node; the last one back to the start.
    const cycleSteps = steps.map((s, i) => ({ from: keys[s.node] as ThreadKey, to: keys[steps[i + 1]?.node ?? start] as ThreadKey, resource: s.resource, known: s.known }));
    found.push(toCandidateCycle(members, cycleSteps, steps.map((s) => s.allOf), input));
  };

  outer: for (let length = 1; length <= Math.min(MAX_CYCLE_LENGTH, n); length++) {
    for (let start = 0; start < n; start++) {
      onPath[start] = 1;
      const go = search(start, start, length);
      onPath[start] = 0;
      if (!go) {
        capped = true;
        break outer;
      }
    }
  }
  // Stopped by the cycle cap, the budget, or the length limit with longer cycles possible.
  if (found.length >= MAX_CYCLES || (n > MAX_CYCLE_LENGTH && outs.some((o) => o.listed.some(hasStep) || o.wild.length > 0))) capped = true;
  return { cycles: found, capped };
}

/** A step of a search path: from `node` through `resource` (null: an all-of wait, whose words are `allOf`). */
interface Step {
  node: number;
  resource: string | null;
  known: boolean;
  allOf?: string;
}

function toCandidateCycle(members: ThreadKey[], steps: CandidateCycle['steps'], allOf: Array<string | undefined>, input: CandidateInput): CandidateCycle {
  const gdbCommands: string[] = [];
  const unprovable: string[] = [];
  const parts: string[] = [];
  steps.forEach((s, i) => {
    const wait = s.resource === null ? undefined : input.waitOf(s.from, s.resource);
    const what = wait ? wait.description : `waits for ${s.resource}`;
    const holder = s.from === s.to ? 'itself' : input.name(s.to);
    if (s.resource === null) parts.push(`${input.name(s.from)} ${allOf[i] ?? 'waits for several threads'}, among them ${holder}`);
    else if (s.known && s.resource.startsWith('thread-exit:')) parts.push(`${input.name(s.from)} waits for ${holder} to exit`);
    else parts.push(s.known ? `${input.name(s.from)} ${what}, held by ${holder}` : `${input.name(s.from)} ${what}, if ${holder === 'itself' ? 'it holds it itself' : `${holder} holds it`}`);
    if (s.known || wait === undefined) return;
    const identity = wait.resource.slice(wait.resource.indexOf(':') + 1);
    const kind = wait.resource.slice(0, wait.resource.indexOf(':'));
    if (wait.ownerQuery) {
      if (!gdbCommands.includes(wait.ownerQuery)) gdbCommands.push(wait.ownerQuery);
    } else if (identity.startsWith('unknown@') && (kind === 'mutex' || kind === 'rwlock') && wait.siteLevel !== null) {
      // libc without debug info printed no address: the lock is the first argument of the frame the
      // wait was read from, in rdi on x86-64 (as the reporter of a ProxySQL hang found it).
      const command = `thread ${s.from}; frame ${wait.siteLevel}; print *(${kind === 'mutex' ? 'pthread_mutex_t' : 'pthread_rwlock_t'} *) $rdi`;
      if (!gdbCommands.includes(command)) gdbCommands.push(command);
    } else if (wait.holderShows) {
      // The holder would show in its own stack, which the dump cut: print it whole.
      const command = `set backtrace limit unlimited; thread apply ${s.to} bt`;
      if (!gdbCommands.includes(command)) gdbCommands.push(command);
    } else {
      const label = `${wait.label ?? wait.resource} (${wait.resource}): it records no owner${wait.holderHint ? `; ${wait.holderHint}` : ''}`;
      if (!unprovable.includes(label)) unprovable.push(label);
    }
  });
  const threads = [...members].sort((a, b) => (a === b ? 0 : compareKeys(a, b)));
  return { threads, steps, gdbCommands, unprovable, text: `${parts.join('; ')}.` };
}

/** Names of the list nodes of the forced-cycle graph (no thread key starts with a NUL). */
const HUB = '\u0000list:';

/** The one stuck thread of a list besides the waiter (`skip`), or undefined when there are none or several. */
function onlyOther(list: readonly number[], skip: number, keys: ThreadKey[]): ThreadKey | undefined {
  let only = -1;
  for (const i of list) {
    if (i === skip) continue;
    if (only !== -1) return undefined;
    only = i;
  }
  return only === -1 ? undefined : keys[only];
}

function compareKeys(a: ThreadKey, b: ThreadKey): number {
  const x = /^\d+$/.test(a) ? Number(a) : Number.MAX_SAFE_INTEGER;
  const y = /^\d+$/.test(b) ? Number(b) : Number.MAX_SAFE_INTEGER;
  return x - y || (a < b ? -1 : a > b ? 1 : 0);
}

/**
 * Cycles the possible holders leave no choice about: every candidate step has exactly one
 * possible holder (among all threads, the waiter ruled out only by `waiterMayHold: false`), and
 * self-deadlocks are not concluded from elimination. Strongly connected components of the known
 * and forced steps, each with at least one forced step and two threads.
 */
function forcedCycles(input: CandidateInput, index: Map<ThreadKey, number>, keys: ThreadKey[], lists: StuckLists): CandidateResult['forced'] {
  // The known and forced steps. A lock's waiters reach its holders through one node for the list,
  // so the graph is linear in the dump (5,000 waiters of what any of 20,000 threads may release);
  // through such a node a thread reaches the same threads as by an edge to each, so the
  // components' threads are the same. The list nodes are left out of the components.
  const edges: Array<[string, string]> = [];
  const hubs: string[] = [];
  const hubOf = new Map<readonly number[], string>();
  const hub = (to: readonly number[]): string => {
    let name = hubOf.get(to);
    if (name === undefined) {
      name = `${HUB}${hubOf.size}`;
      hubOf.set(to, name);
      hubs.push(name);
      for (const i of to) edges.push([name, keys[i] as ThreadKey]);
    }
    return name;
  };
  const forcedStep = new Map<string, { resource: string; why: string }>();
  for (const t of input.stuck) {
    for (const need of t.needs) {
      if (need.kind === 'all') {
        for (const target of need.targets) if (index.has(target) && target !== t.key) edges.push([t.key, target]);
        continue;
      }
      if (need.kind !== 'lock' || need.gone || need.namedHolder) continue;
      if (need.holders.length > 0) {
        const to = lists(need.holders);
        if (to.length > 1) edges.push([t.key, hub(to)]);
        else if (to.length === 1 && keys[to[0] as number] !== t.key) edges.push([t.key, keys[to[0] as number] as ThreadKey]);
        continue;
      }
      const wait = input.waitOf(t.key, need.resource);
      const self = wait?.waiterMayHold ?? true;
      // `any`: every stuck thread but (maybe) the waiter; counted, not listed (30,000 waiters of one lock).
      // A list: its stuck threads but the waiter (the list leaves it out), read from the list's one index list.
      const only = need.candidates === 'any' ? (keys.length === 2 && !self ? keys.find((k) => k !== t.key) : undefined) : onlyOther(lists(need.candidates), index.get(t.key) ?? -1, keys);
      // `any` counts every stuck thread; a thread that can go on is no candidate of a stuck waiter.
      if (only === undefined || only === t.key) continue;
      edges.push([t.key, only]);
      const why =
        need.candidates === 'any'
          ? `${input.name(only)} is the only thread that could hold ${wait?.label ?? need.resource} ${self ? '' : `(${input.name(t.key)} cannot: its owner takes it again without waiting) `}for ${input.name(t.key)}: every other thread can still go on or is not a possible holder`
          : `${input.name(only)} is the only thread whose stack is cut where the holder of ${wait?.label ?? need.resource} would show`;
      forcedStep.set(`${t.key}\u0000${only}`, { resource: need.resource, why: why.replace(/\s+/g, ' ') });
    }
  }
  if (forcedStep.size === 0) return [];
  // Each component's forced steps, in the order they were found, gathered in one pass (a dump of
  // thousands of forced pairs has thousands of components).
  const components = componentsOf([...keys, ...hubs], edges)
    .map((c) => (hubs.length === 0 ? c : c.filter((k) => !k.startsWith(HUB))))
    .filter((c) => c.length >= 2);
  const componentOf = new Map<ThreadKey, number>();
  components.forEach((c, i) => c.forEach((k) => componentOf.set(k, i)));
  const stepsOf: Array<Array<[string, { resource: string; why: string }]>> = components.map(() => []);
  for (const entry of forcedStep) {
    const [from, to] = entry[0].split('\u0000') as [string, string];
    const c = componentOf.get(from);
    if (c !== undefined && componentOf.get(to) === c) (stepsOf[c] as Array<[string, { resource: string; why: string }]>).push(entry);
  }
  const out: CandidateResult['forced'] = [];
  components.forEach((component, i) => {
    const steps = stepsOf[i] as Array<[string, { resource: string; why: string }]>;
    if (steps.length === 0) return;
    out.push({
      threads: [...component].sort(compareKeys),
      steps: steps.map(([k, v]) => {
        const [from, to] = k.split('\u0000') as [string, string];
        return { from, to, resource: v.resource };
      }),
      ruledOut: steps.map(([, v]) => v.why).join('; '),
    });
  });
  return out;
}
