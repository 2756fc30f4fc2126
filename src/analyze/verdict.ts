/**
 * The verdict, as a small decision procedure whose every step leaves its reason for the report
 * (issue 12 §4: a verdict that is never false, and notes that never contradict it):
 *
 * 1. **deadlock** — a concrete cycle in the wait-for graph (proven or inferred by rules), or the
 *    only cycle the possible holders of the unproven waits leave (candidates.ts);
 * 2. **hang** — no cycle, but the text shows the process cannot progress: a wait's owner is proven
 *    gone (its LWP is no thread of the process: it exited, or the lock came across fork()), or
 *    every thread is blocked with no time limit and none waits on the outside world;
 * 3. **ok** — otherwise: some thread can still go on (it runs, sleeps, waits on the outside world),
 *    so every wait can still end — a contended lock while others run is contention, not a hang.
 *
 * Which threads can go on is process-hung.ts's fixed point. A crash verdict (issue 13) slots in
 * after step 2: a crash alone is exit 0, a crash with a deadlock or hang is still that.
 */
import type { CandidateCycle, Deadlock, Edge, ResourceId, ThreadAnalysis, ThreadKey, Verdict, VerdictReason } from '../model/analysis.js';
import { compareThreadKeys, nodeKey } from '../model/ids.js';
import { computeProgress, type Need, type ProgressThread, type RootKind } from './process-hung.js';
import { findCandidateCycles, MAX_CYCLE_LENGTH, MAX_CYCLES, SEARCH_BUDGET, type StepWait } from './candidates.js';
import { threadName } from './deadlocks.js';
import type { WaitInfo } from './deadlocks.js';
import { holderName } from './owner-links.js';
import { waitSiteName } from './threads.js';

/** An owner fact whose holder is no thread of the dump. */
export interface AbsentOwner {
  resource: ResourceId;
  holder: { lwp?: number; ptid?: string; threadId?: number };
  /** What live mode learnt of that LWP from /proc, when it asked: gone, or a thread of another process. */
  status?: { exists: false } | { exists: true; tgid: number };
  /** The lock is process-shared (the answer shows it): the holder is a thread of another process using it. */
  shared?: true;
}

/** What the dump says about the process as a whole. */
export interface ProcessShape {
  /**
   * True when the dump shows every thread of the process: live mode, or gdb numbers 1..N with none
   * missing. Only the wording depends on it (an absent owner "exited" rather than "is not shown").
   */
  whole: boolean;
  /** The process id: the main thread's LWP (gdb's thread 1) or what live mode attached to. */
  pid: number | null;
}

export interface VerdictInput {
  /** Every thread, in thread order. */
  threads: ThreadAnalysis[];
  edges: Edge[];
  waits: WaitInfo[];
  deadlocks: Deadlock[];
  absent: AbsentOwner[];
  shape: ProcessShape;
  /** The thread that crashed (crash.ts), or null: it runs no more, but neither does it wait. */
  crashed: ThreadKey | null;
  /** Threads known only from an `info threads` row (partial.ts): one frame, no holder; they are not known to be stuck. */
  rowsOnly?: ReadonlySet<ThreadKey>;
  /**
   * Threads whose wait shows only as frames gdb could not name (`?? ()` in libc, which has no debug
   * info) above the program's code: a pthread_join, or an unlock waking a waiter, look the same.
   */
  unnamed?: ReadonlySet<ThreadKey>;
  /** The deadlocks of the wait-for graph with these hold edges added (for a forced candidate cycle). */
  deadlocksWith: (extraHolds: Edge[]) => Deadlock[];
}

export interface VerdictDecision {
  verdict: Verdict;
  reasons: VerdictReason[];
  /** The deadlocks: the graph's, or the one forced candidate cycle. */
  deadlocks: Deadlock[];
  /** Hold edges the decision added (basis `candidates`), to go into the analysis's edges. */
  extraEdges: Edge[];
  hung: ThreadKey[];
  hangBlockedBehind: ThreadKey[];
  hangReasons: Array<{ thread: ThreadKey; text: string }>;
  candidateCycles: CandidateCycle[];
  notes: string[];
}

/** How a thread's wait for a resource whose owner is gone is described. */
/** `unseen`: the owner may be a thread the dump does not show (nothing says it is gone). */
type Gone = { owner: string; why: string; unseen?: true };

export function decideVerdict(input: VerdictInput): VerdictDecision {
  const threads = new Map<ThreadKey, ThreadAnalysis>();
  for (const t of input.threads) threads.set(t.key, t);
  const name = (key: ThreadKey): string => threadName(threads.get(key), key);
  const gone = new Map<string, Gone>();
  for (const a of input.absent) gone.set(`res:${a.resource}`, describeGone(a, input.shape));
  const needs = needsOf(input, gone);
  // The crashed thread is no wait: what the crash froze is where the process died, not a hang (the
  // crash verdict says so), so it counts as a thread that can go on.
  // A thread seen only in an `info threads` row is not known to be stuck either: the rules that say
  // a wait is an idle pool's or a listener's need its outer frames. Unless its one frame is a lock
  // wait (no time limit, no named thread): that wait is never idle, and it ends only when the lock's
  // holder releases it, so the row's thread is as stuck as its holder (every thread of an `info
  // thread` table blocked on a mutex is a hang).
  const notStuck = (key: ThreadKey): boolean => key === input.crashed || (input.rowsOnly?.has(key) === true && !waitsOnlyForLocks(needs.get(key)));
  const progressWith = (mayRun: ReadonlySet<ThreadKey>) =>
    computeProgress(
      input.threads.map((t) => (notStuck(t.key) ? progressThread(t, [], false, false) : progressThread(t, needs.get(t.key) ?? [], t.blocked === true, mayRun.has(t.key)))),
    );
  let progress = progressWith(unnamedReleasers(input, needs));
  // A stall that only unnamed frames show is not shown: every stuck thread may as well be running
  // in libc (two threads trading a mutex, caught in its unlock path, look like this).
  const unnamed = input.unnamed ?? new Set<ThreadKey>();
  if (progress.stuck.length > 0 && progress.stuck.every((key) => unnamed.has(key))) progress = progressWith(unnamed);
  const stuck = new Set(progress.stuck);
  const none = { deadlocks: [] as Deadlock[], extraEdges: [] as Edge[], hung: [] as ThreadKey[], hangBlockedBehind: [] as ThreadKey[], hangReasons: [], candidateCycles: [] as CandidateCycle[], notes: [] as string[] };

  // 1. A cycle the wait-for graph shows.
  if (input.deadlocks.length > 0) {
    return { ...none, verdict: 'deadlock', reasons: input.deadlocks.map((d) => cycleReason(d, name)), deadlocks: input.deadlocks };
  }
  if (stuck.size === 0) return settle(input, { ...none, verdict: 'ok', reasons: [okReason(input, progress.roots, needs)] }, name);

  // Who could hold what the stuck threads wait for (candidates.ts).
  const stepWait = stepWaitLookup(input.waits);
  const candidates = findCandidateCycles({
    stuck: progress.stuck.map((key) => ({ key, needs: needs.get(key) ?? [] })),
    waitersOf: waitersOf(input.waits),
    waitOf: stepWait,
    name,
  });

  // 1b. The only cycle the possible holders leave.
  if (candidates.forced.length > 0) {
    const extraEdges = candidates.forced.flatMap((f) => f.steps.map((step) => candidateHold(step, input.waits, threads)));
    const deadlocks = input.deadlocksWith(extraEdges).map((d) => {
      const forced = candidates.forced.find((f) => f.threads.some((k) => d.threads.includes(k)));
      return forced ? { ...d, basis: 'candidates' as const, ruledOut: forced.ruledOut } : d;
    });
    if (deadlocks.length > 0) {
      return {
        ...none,
        verdict: 'deadlock',
        reasons: deadlocks.map((d) => ({ ...cycleReason(d, name), kind: d.basis === 'candidates' ? ('only-candidate-cycle' as const) : ('cycle' as const) })),
        deadlocks,
        extraEdges,
      };
    }
  }

  const listed = candidates.cycles;
  const notes = candidates.capped
    ? [`Candidate cycles: only the first ${listed.length} found are listed (the search stops at ${MAX_CYCLES} cycles, ${MAX_CYCLE_LENGTH} threads a cycle, or ${SEARCH_BUDGET.toLocaleString('en-US')} steps).`]
    : [];

  // 2a. An owner that is gone.
  const goneWaits: Array<{ thread: ThreadKey; text: string }> = [];
  let unseen = false;
  for (const w of input.waits) {
    const key = nodeKey(w.edge.from);
    const g = gone.get(w.edge.to);
    if (g === undefined || !stuck.has(key) || w.edge.timed) continue;
    goneWaits.push({ thread: key, text: `${w.edge.description}; its owner, ${g.owner}, ${g.why}` });
    if (g.unseen === true) unseen = true;
  }
  if (goneWaits.length > 0) {
    goneWaits.sort((a, b) => compareThreadKeys(a.thread, b.thread));
    const hung = unique(goneWaits.map((g) => g.thread));
    return {
      ...none,
      verdict: 'hang',
      reasons: goneWaits.map((g) => ({ kind: 'owner-gone', text: `${name(g.thread)} ${g.text}, so it is never released.`, threads: [g.thread], ...(unseen ? { notWhole: true as const } : {}) })),
      hung,
      hangBlockedBehind: without(progress.stuck, hung),
      hangReasons: goneWaits,
      candidateCycles: listed,
      notes,
    };
  }

  // 2b. Threads blocked for good: every thread, or some whose every possible releaser is blocked too.
  const all = progress.stuck.length === input.threads.length;
  const stuckThreads = input.threads.filter((t) => stuck.has(t.key));
  const roots = stuckThreads.filter((t) => isRootOfStall(needs.get(t.key) ?? []));
  // Every stuck thread only waits to be signalled (condition variables, semaphores, idle pools),
  // none waits for a lock another holds, and the dump is not the whole process: the thread that
  // would signal them may be one it does not show (a paste of idle workers is no hang).
  if (!input.shape.whole && stuckThreads.every((t) => (needs.get(t.key) ?? []).every((n) => n.kind === 'any'))) {
    return settle(input, {
      ...none,
      verdict: 'ok',
      reasons: [
        {
          kind: 'waker-not-shown',
          text:
            `${capitalise(listThreads(roots.map((t) => t.key)))} ${roots.length === 1 ? 'waits' : 'wait'} to be woken by another thread (a condition variable, a semaphore, an idle pool), ` +
            `and the dump does not show every thread of the process: the thread that would wake ${roots.length === 1 ? 'it' : 'them'} may be one it does not show. Capture every thread (thread apply all bt) to tell.`,
          threads: roots.map((t) => t.key),
        },
      ],
    }, name);
  }
  // Every stuck thread only waits to be woken, and one of them where a signal ends the wait: on a
  // semaphore a signal handler may post (sem_post is async-signal-safe), or in a Python lock wait
  // in the main thread, which a signal interrupts to run the program's Python handlers. A daemon's
  // main thread waiting for SIGTERM over idle workers is idle, not hung. A lost wake-up looks the
  // same, so the reason says both. A Python lock wait that may be a Condition's, Event's or Queue's
  // (mayBeWakeUp: threading's waits sleep in a lock of their own, which notify() releases) counts
  // as one to be woken while no holder is known: the C frames cannot tell it from a held lock.
  const toBeWoken = (n: Need): boolean => n.kind === 'any' || (n.kind === 'lock' && n.mayBeWakeUp && n.holders.length === 0 && !n.gone);
  const signalled = stuckThreads.filter((t) => t.signalWake === true).map((t) => t.key);
  if (signalled.length > 0 && stuckThreads.every((t) => (needs.get(t.key) ?? []).every(toBeWoken))) {
    const one = signalled.length === 1;
    const pythonWait = (key: ThreadKey): boolean => (needs.get(key) ?? []).some((n) => n.kind === 'lock');
    const waiters = all ? 'Every thread only waits' : stuckThreads.length === 1 ? `${capitalise(listThreads([stuckThreads[0]!.key]))} only waits` : `${stuckThreads.length} threads only wait`;
    const text = stuckThreads.some((t) => pythonWait(t.key))
      ? `${waiters} to be woken or for a Python lock taken with acquire(), which the C frames cannot tell from a Condition, Event or Queue wait (those sleep in a lock of their own, which notify() releases); none waits to enter a \`with\` block on a lock, or for another thread. ` +
        `${capitalise(listThreads(signalled))} ${signalled.every(pythonWait) ? `${one ? 'is the main thread, whose Python lock wait' : 'are main threads, whose Python lock waits'} a signal interrupts to run the program's Python signal handlers (CPython runs them there)` : `${one ? 'waits' : 'wait'} where a signal handler may end the wait`}: ` +
        'the process may be idle until a signal comes (a daemon in Event.wait() for SIGTERM). If it should be working, a wake-up was lost or the threads wait for each other on locks taken with acquire(): ' +
        'the Python stacks tell which (thread apply all py-bt in gdb with python3-gdb.py, or py-spy dump --pid PID).'
      : `${waiters} to be woken (condition variables, semaphores, idle pools), none for a lock or another thread, ` +
        `and ${listThreads(signalled)} ${one ? 'waits' : 'wait'} on a semaphore, which a signal handler may post (sem_post is async-signal-safe): ` +
        `the process may be idle until a signal comes (a daemon waiting for SIGTERM). If it should be working, a wake-up was lost: find who should post ${one ? 'that semaphore' : 'those semaphores'}.`;
    return settle(input, {
      ...none,
      verdict: 'ok',
      reasons: [{ kind: 'signal-wake', text, threads: signalled }],
    }, name);
  }
  const hung = (roots.length > 0 ? roots : stuckThreads).map((t) => t.key);
  const setOf = listSets();
  const couldHold = (waiter: ThreadKey, need: Extract<Need, { kind: 'lock' }>): string => possibleHolders(waiter, need, stepWait(waiter, need.resource), input.threads, setOf);
  const hangReasons = hung.map((key) => ({ thread: key, text: stallText(threads.get(key), needs.get(key) ?? [], (need) => couldHold(key, need)) }));
  const shown = input.shape.whole ? '' : ` (as far as the dump shows: ${input.threads.length === 1 ? 'its one thread' : `its ${input.threads.length} threads`})`;
  let text = all
    ? `Every thread is blocked with no time limit and none waits on the outside world (I/O, a signal, a child process, another process), so nothing can wake them${shown}.`
    : `${capitalise(listThreads(hung))} ${hung.length === 1 ? 'is' : 'are'} blocked with no time limit, and every thread that could release what ${hung.length === 1 ? 'it waits' : 'they wait'} for is blocked for good too${shown}.`;
  const unlessGone = ' unless the owner of a lock is no longer in the process (a thread that exited holding it, or a lock inherited across fork()).';
  if (listed.length > 0 && candidates.noDeadEnd && stuckThreads.length === 1) {
    text += ' The only thread shown that could release what it waits for is itself: it holds the lock it waits for (a self-deadlock), or the holder is a thread the dump does not show or one no longer in the process.';
  } else if (listed.length > 0 && candidates.noDeadEnd) {
    text += ` Each waits for something only these threads can release, so some of them wait for each other in a cycle, though the text does not show which (the candidate cycles);${unlessGone}`;
  } else if (listed.length > 0) text += ' Some of them may wait for each other in a cycle (the candidate cycles).';
  return {
    ...none,
    verdict: 'hang',
    reasons: [{ kind: all ? 'all-blocked' : 'no-releaser', text, threads: hung, ...(input.shape.whole ? {} : { notWhole: true as const }) }],
    hung,
    hangBlockedBehind: without(progress.stuck, hung),
    hangReasons,
    candidateCycles: listed,
    notes,
  };
}

/** An `ok` decision becomes `crash` when the process crashed (a crash alone is exit 0; issue 13). */
function settle(input: VerdictInput, decision: VerdictDecision, name: (key: ThreadKey) => string): VerdictDecision {
  if (input.crashed === null || decision.verdict !== 'ok') return decision;
  return {
    ...decision,
    verdict: 'crash',
    reasons: [
      {
        kind: 'crashed',
        text: `${name(input.crashed)} crashed: the process is dead, and the other threads' waits are where the crash froze them, not a hang.`,
        threads: [input.crashed],
      },
    ],
  };
}

/** Threads waiting for each resource node, for the same-lock rule. */
function waitersOf(waits: WaitInfo[]): Map<string, Set<ThreadKey>> {
  const map = new Map<string, Set<ThreadKey>>();
  for (const w of waits) {
    const resource = nodeKey(w.edge.to);
    const set = map.get(resource);
    if (set) set.add(nodeKey(w.edge.from));
    else map.set(resource, new Set([nodeKey(w.edge.from)]));
  }
  return map;
}

function stepWaitLookup(waits: WaitInfo[]): (waiter: ThreadKey, resource: string) => StepWait | undefined {
  // By resource, then waiter: no key string made per wait (a few resources, many waiters).
  const byResource = new Map<string, Map<ThreadKey, StepWait>>();
  for (const w of waits) {
    const resource = nodeKey(w.edge.to);
    let byKey = byResource.get(resource);
    if (byKey === undefined) byResource.set(resource, (byKey = new Map()));
    const k = nodeKey(w.edge.from);
    const known = byKey.get(k);
    // Two rules describing one wait: the waiter is ruled out if either says so.
    if (known) {
      known.waiterMayHold &&= w.waiterMayHold;
      known.shared ||= w.shared;
      known.holderShows ||= w.holderShows;
      known.ownerQuery ??= w.ownerQuery;
      known.holderHint ??= w.holderHint;
      continue;
    }
    byKey.set(k, {
      resource,
      description: w.edge.description,
      ownerQuery: w.ownerQuery,
      label: w.label,
      waiterMayHold: w.waiterMayHold,
      shared: w.shared,
      holderShows: w.holderShows,
      holderHint: w.holderHint,
      siteLevel: w.edge.site?.level ?? null,
    });
  }
  return (waiter, resource) => byResource.get(resource)?.get(waiter);
}

/** The hold edge a forced candidate step stands for. */
function candidateHold(step: { from: ThreadKey; to: ThreadKey; resource: string }, waits: WaitInfo[], threads: Map<ThreadKey, ThreadAnalysis>): Edge {
  const wait = waits.find((w) => nodeKey(w.edge.from) === step.from && nodeKey(w.edge.to) === step.resource);
  return {
    kind: 'holds',
    from: `res:${step.resource}`,
    to: `thread:${step.to}`,
    evidence: 'inferred',
    ruleId: 'candidates',
    site: threads.get(step.to)?.acquireSite ?? null,
    description: `is the only thread left that can hold it${wait?.ownerQuery ? ` (to prove it: ${wait.ownerQuery})` : ''}`,
    basis: 'candidates',
  };
}

/** What each thread waits for, from its wait edges (timed waits are no need: the thread wakes by itself). */
function needsOf(input: VerdictInput, gone: Map<string, Gone>): Map<ThreadKey, Need[]> {
  const holders = new Map<string, ThreadKey[]>();
  for (const e of input.edges) {
    if (e.kind !== 'holds') continue;
    const list = holders.get(e.from);
    if (list) list.push(nodeKey(e.to));
    else holders.set(e.from, [nodeKey(e.to)]);
  }
  // A holder that shows in its own stack (running the work) can only hide in a stack that is cut
  // short, and not in an idle pool or listener thread, whose stack is its own work loop.
  const truncated = input.threads.filter((t) => t.truncated === true && t.idle !== true).map((t) => t.key);
  const needs = new Map<ThreadKey, Need[]>();
  const add = (key: ThreadKey, need: Need): void => {
    const list = needs.get(key);
    if (list) list.push(need);
    else needs.set(key, [need]);
  };
  for (const w of input.waits) {
    if (w.edge.timed) continue;
    const key = nodeKey(w.edge.from);
    if (!w.lockLike) {
      add(key, { kind: 'any' });
      continue;
    }
    const known = holders.get(w.edge.to) ?? [];
    // One list for every waiter (it may name the waiter: readers leave the waiter itself out).
    const candidates = known.length > 0 || !w.holderShows ? 'any' : truncated;
    add(key, { kind: 'lock', resource: nodeKey(w.edge.to), description: w.edge.description, holders: known, candidates, gone: gone.has(w.edge.to), namedHolder: w.namedHolder, mayBeWakeUp: w.mayBeWakeUp });
  }
  // All-of waits: one need per waiter and all-of resource, met when every target can go on.
  const allOf = new Map<string, { key: ThreadKey; resource: string; description: string; targets: ThreadKey[] }>();
  for (const e of input.edges) {
    if (e.kind !== 'waits-thread' || e.timed) continue;
    const key = nodeKey(e.from);
    const resource = e.allOf ?? e.ruleId;
    const k = `${key}\u0000${resource}`;
    const entry = allOf.get(k);
    if (entry) entry.targets.push(nodeKey(e.to));
    else allOf.set(k, { key, resource, description: e.description, targets: [nodeKey(e.to)] });
  }
  for (const { key, resource, description, targets } of allOf.values()) add(key, { kind: 'all', resource, description, targets });
  return needs;
}

/** Every need is a lock (or the GIL) some thread holds, not a wakeup any thread could send or a join. */
function waitsOnlyForLocks(needs: readonly Need[] | undefined): boolean {
  return needs !== undefined && needs.length > 0 && needs.every((n) => n.kind === 'lock' && !n.namedHolder);
}

/**
 * One literal per shape, not a spread plus a field: V8 gave each `{ ...x, unnamed }` its own hidden
 * class and descriptor array (~250 bytes a thread on 100,000 threads; issue 15).
 */
function progressThread(t: ThreadAnalysis, needs: Need[], blocked: boolean, unnamed: boolean): ProgressThread {
  const timed = t.timed === true;
  const outside = t.outside === true;
  return t.state === 'cut-top' ? { key: t.key, blocked, timed, outside, cutTop: true, needs, unnamed } : { key: t.key, blocked, timed, outside, needs, unnamed };
}

/**
 * Unnamed threads (frames gdb could not name above the program's code) that may be the holder of a
 * lock another thread waits for in the same function, on its way out: the code that waits for a
 * lock at one line releases it a few lines on, and glibc's unlock path (__pthread_mutex_unlock_usercnt,
 * __lll_lock_wake) has no exported name, so without libc's debug info a thread releasing the lock
 * shows only `?? ()` frames there. Such a thread may be running, so it is not known to be stuck.
 */
function unnamedReleasers(input: VerdictInput, needs: Map<ThreadKey, Need[]>): Set<ThreadKey> {
  const mayRun = new Set<ThreadKey>();
  if (input.unnamed === undefined || input.unnamed.size === 0) return mayRun;
  const lockWaitersIn = new Map<string, ThreadKey[]>();
  for (const t of input.threads) {
    const where = t.acquireSite?.function;
    if (where === undefined || input.unnamed.has(t.key)) continue;
    if (!(needs.get(t.key) ?? []).some((n) => n.kind === 'lock' && n.holders.length === 0 && !n.gone)) continue;
    const list = lockWaitersIn.get(where);
    if (list) list.push(t.key);
    else lockWaitersIn.set(where, [t.key]);
  }
  for (const t of input.threads) {
    const where = t.acquireSite?.function;
    if (where !== undefined && input.unnamed.has(t.key) && lockWaitersIn.has(where)) mayRun.add(t.key);
  }
  return mayRun;
}

/** A stuck thread that is not only waiting on other threads it knows (a lock with a holder, an all-of wait). */
function isRootOfStall(needs: Need[]): boolean {
  return needs.length === 0 || needs.some((n) => n.kind === 'any' || (n.kind === 'lock' && n.holders.length === 0));
}

/** Why a thread that is part of an all-blocked process cannot go on. */
function stallText(t: ThreadAnalysis | undefined, needs: Need[], couldHold: (need: Extract<Need, { kind: 'lock' }>) => string): string {
  const lock = needs.find((n): n is Extract<Need, { kind: 'lock' }> => n.kind === 'lock' && n.holders.length === 0);
  if (lock) return `${lock.description}; the text does not show who holds it (${couldHold(lock)}), and every thread that could release it is blocked for good`;
  const what = t && t.state !== 'waiting' && t.state !== 'unknown' ? t.stateText : `waits in ${waitSiteName(t?.acquireSite)}`;
  return `${what}, and no thread that can go on is left to wake it`;
}

/** At most this many possible holders are named one by one. */
const NAMED_HOLDERS = 8;

/**
 * Who could hold a lock whose holder the text does not show (issue 12 §3): the threads its stack
 * could hide it in (`holderShows`: only cut stacks), else any thread of the dump — the waiter
 * itself too, unless the lock is recursive (or the GIL), whose owner takes it again without waiting.
 */
function possibleHolders(waiter: ThreadKey, need: Extract<Need, { kind: 'lock' }>, wait: StepWait | undefined, all: readonly ThreadAnalysis[], setOf: (list: readonly ThreadKey[]) => ReadonlySet<ThreadKey>): string {
  const self = wait?.waiterMayHold ?? true;
  // The other threads are counted, and listed only when few: a list of every thread for each of
  // 30,000 waiters of one lock was quadratic.
  let itself: boolean;
  let othersCount: number;
  let others: () => ThreadKey[];
  if (need.candidates === 'any') {
    itself = self;
    othersCount = all.length - 1;
    others = () => all.map((t) => t.key).filter((k) => k !== waiter);
  } else {
    // The candidates are the threads whose stack is cut, the waiter left out: its own stack shows it
    // does not hold the lock. Counted through the list's set, not filtered per waiter.
    const list = need.candidates;
    itself = false;
    othersCount = list.length - (setOf(list).has(waiter) ? 1 : 0); // thread keys: each once
    others = () => list.filter((k) => k !== waiter);
  }
  if (othersCount === 0) return itself ? `only ${listThreads([waiter])} itself could, having locked it twice` : 'no thread of the dump could hold it';
  const recursive = self ? '' : '; not itself: the lock is recursive, its owner takes it again without waiting';
  const listed = othersCount > NAMED_HOLDERS ? `any of ${othersCount} other threads` : namedHolders(others());
  if (!itself) return `${listed} could hold it${recursive}`;
  return `${listed} could hold it, or ${listThreads([waiter])} itself: the lock is not recursive`;
}

/** The set of a shared list's keys, made once per list. */
function listSets(): (list: readonly ThreadKey[]) => ReadonlySet<ThreadKey> {
  const sets = new Map<readonly ThreadKey[], Set<ThreadKey>>();
  return (list) => {
    let set = sets.get(list);
    if (set === undefined) sets.set(list, (set = new Set(list)));
    return set;
  };
}

/** `thread 3`, `threads 1, 3 or 4`. */
function namedHolders(keys: readonly ThreadKey[]): string {
  if (keys.length === 1) return listThreads(keys);
  const last = keys[keys.length - 1] as ThreadKey;
  return `${listThreads(keys.slice(0, -1))} or ${last.startsWith('bt@') ? listThreads([last]) : last}`;
}

function cycleReason(d: Deadlock, name: (key: ThreadKey) => string): VerdictReason {
  const evidence =
    d.basis === 'candidates'
      ? `evidence inferred: the only cycle the possible holders leave, since ${d.ruledOut ?? 'no other thread could hold what they wait for'}; unless an owner has left the process`
      : `evidence ${d.evidence}`;
  const text =
    d.threads.length === 1
      ? `${name(d.threads[0] as string)} waits for something it holds itself, so it can never go on (${evidence}).`
      : `${capitalise(listThreads(d.threads))} wait for each other in a cycle, so none of them can ever go on (${evidence}).`;
  return { kind: 'cycle', text, threads: d.threads };
}

const ROOT_TEXT: Record<RootKind, [string, string]> = {
  running: ['runs', 'run'],
  timed: ['sleeps or waits with a time limit', 'sleep or wait with a time limit'],
  outside: ['waits on the outside world (I/O, a signal, a child process, another process)', 'wait on the outside world (I/O, a signal, a child process, another process)'],
  unnamed: ['is in libc code gdb could not name (no debug info), which may be an unlock as well as a wait', 'are in libc code gdb could not name (no debug info), which may be an unlock as well as a wait'],
  'cut-top': ['starts below its innermost frames (the paste cut them off) and may be running', 'start below their innermost frames (the paste cut them off) and may be running'],
};

function okReason(input: VerdictInput, roots: Array<{ key: ThreadKey; kind: RootKind }>, needs: Map<ThreadKey, Need[]>): VerdictReason {
  const blocked = input.threads.filter((t) => t.blocked === true);
  if (blocked.length === 0) return { kind: 'nothing-blocked', text: 'No thread is blocked in a wait.', threads: [] };
  const byKind = new Map<RootKind, ThreadKey[]>();
  for (const r of roots) {
    const list = byKind.get(r.kind);
    if (list) list.push(r.key);
    else byKind.set(r.kind, [r.key]);
  }
  const parts: string[] = [];
  for (const kind of ['running', 'cut-top', 'timed', 'outside', 'unnamed'] as const) {
    const keys = byKind.get(kind);
    if (keys) parts.push(`${listThreads(keys)} ${ROOT_TEXT[kind][keys.length === 1 ? 0 : 1]}`);
  }
  const rootKeys = roots.map((r) => r.key).sort(compareThreadKeys);
  const everyBlocked = blocked.length === input.threads.length;
  const unnamed = byKind.has('unnamed');
  let text = unnamed
    ? `${blocked.length === 1 ? `${capitalise(listThreads([blocked[0]!.key]))} seems` : `${everyBlocked ? 'Every thread seems' : `${blocked.length} threads seem`}`} blocked, but ${joinAnd(parts)}, so the text does not show a wait that cannot end. Capture again with libc's debug symbols (libc6-dbg, glibc-debuginfo or debuginfod) to tell.`
    : parts.length === 0
    ? // No thread goes on by itself: each wait can end through a holder the text does not show (said below).
      `${everyBlocked ? 'Every thread is' : blocked.length === 1 ? `${capitalise(listThreads([blocked[0]!.key]))} is` : `${blocked.length} threads are`} blocked, but every wait can still end${everyBlocked ? ': the process is idle, not hung' : ''}.`
    : everyBlocked
    ? `Every thread is blocked, but ${joinAnd(parts)}: the process is idle, not hung, and every wait can still end.`
    : `${blocked.length === 1 ? `${capitalise(listThreads([blocked[0]!.key]))} is` : `${blocked.length} threads are`} blocked, but ${joinAnd(parts)}, so every wait can still end.`;
  const contended = blocked.filter((t) => (needs.get(t.key) ?? []).some((n) => n.kind === 'lock' && n.holders.length === 0 && !n.gone && !n.namedHolder)).map((t) => t.key);
  if (contended.length > 0) {
    text += ` ${capitalise(listThreads(contended))} ${contended.length === 1 ? 'waits' : 'wait'} for a lock whose holder the text does not show; a thread that can go on may hold it (contention, not a hang).`;
  }
  return { kind: 'can-progress', text, threads: rootKeys };
}

function describeGone(a: AbsentOwner, shape: ProcessShape): Gone {
  const h = a.holder;
  const owner = holderName(h);
  const status = a.status;
  if (a.shared === true && status?.exists !== false) {
    return { owner, why: 'is a thread of another process that shares the lock (it is process-shared): that process can release it' };
  }
  if (status?.exists === true && (shape.pid === null || status.tgid !== shape.pid)) {
    return { owner, why: `is a thread of another process (/proc says its thread group is ${status.tgid}): the lock was held when this process was forked from it and came across fork() held, or it is a process-shared lock that process holds` };
  }
  if (h.lwp !== undefined && shape.pid !== null && h.lwp < shape.pid) {
    return {
      owner,
      why:
        `is not a thread of this process but older than it (its LWP is lower than the process id, ${shape.pid}): ` +
        `a thread of the parent held the lock when the process was forked, and the lock came across fork() held` +
        `${status?.exists === false ? ' (/proc confirms that no such thread exists now)' : ' (or it is a process-shared lock another process holds)'}`,
    };
  }
  if (status?.exists === false) return { owner, why: 'is no longer a thread of any process (/proc has no such thread): it exited while holding it' };
  if (shape.whole) return { owner, why: 'is not a thread of the process (the dump shows every thread): it exited while holding it' };
  return { owner, why: 'is not among the threads of the dump: it exited while holding it, or the dump does not show every thread', unseen: true };
}

/** `keys` minus `drop`, in thread order (a Set: hangs of 30,000 threads). */
function without(keys: readonly ThreadKey[], drop: readonly ThreadKey[]): ThreadKey[] {
  const dropped = new Set(drop);
  return keys.filter((k) => !dropped.has(k)).sort(compareThreadKeys);
}

function unique(keys: ThreadKey[]): ThreadKey[] {
  return [...new Set(keys)];
}

/**
 * How many threads a reason names before it counts the rest: a reason of a 100,000-thread dump
 * listed 64,000 numbers in one sentence. The reason's `threads` still lists every one.
 */
const LISTED_THREADS = 20;

/** `thread 2` / `threads 2, 3` (numbers as gdb users say them), `… and 40 more` past LISTED_THREADS. */
export function listThreads(keys: readonly ThreadKey[]): string {
  const numbered = keys.filter((k) => !k.startsWith('bt@'));
  const headerless = keys.filter((k) => k.startsWith('bt@')).map((k) => `the backtrace at line ${k.slice(3)}`);
  const parts = numbered.length > 0 ? [`${numbered.length === 1 ? 'thread' : 'threads'} ${numbered.slice(0, LISTED_THREADS).join(', ')}`] : [];
  const shown = [...parts, ...headerless.slice(0, LISTED_THREADS)];
  const more = Math.max(0, numbered.length - LISTED_THREADS) + Math.max(0, headerless.length - LISTED_THREADS);
  if (more > 0) shown.push(`${more.toLocaleString('en-US')} more`);
  return joinAnd(shown);
}

function joinAnd(parts: string[]): string {
  if (parts.length <= 1) return parts[0] ?? '';
  return `${parts.slice(0, -1).join(', ')} and ${parts[parts.length - 1]}`;
}

function capitalise(text: string): string {
  return text.length === 0 ? text : text[0]!.toUpperCase() + text.slice(1);
}
