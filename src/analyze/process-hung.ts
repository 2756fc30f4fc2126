/**
 * "Can this process still make progress?" from the text alone: which threads can still run, and
 * which are blocked for good. It is the fixed point of three facts (rules-domain §2, issue 12 §4):
 *
 * - a thread that runs, sleeps or waits with a time limit, or waits on the outside world (I/O, a
 *   signal, a child process) can go on: it is a *root* of progress;
 * - a thread waiting for a lock can go on when a thread that holds it, or (holder unknown) any
 *   other thread that can go on, could release it; a condition variable, a semaphore or an
 *   unexplained futex wait can be signalled by any other thread that can go on;
 * - an all-of wait (the Julia GC waiting for every GC-unsafe thread) can go on when all its
 *   targets can.
 *
 * What is left is blocked forever: the verdict procedure (verdict.ts) says why. A lock whose owner
 * is proven gone (its LWP is no thread of the process) never becomes free. Linear in threads plus
 * waits: each thread becomes live once and each wait is looked at once per event.
 */
import type { ThreadKey } from '../model/analysis.js';

/**
 * Why a thread can go on by itself. `unnamed`: it is in libc code gdb cannot name (no debug info),
 * which may be a wait or may be running (an unlock waking a waiter has no exported name either).
 */
export type RootKind = 'running' | 'timed' | 'outside' | 'unnamed' | 'cut-top';

/** What a blocked thread needs to go on; it can go on when any one of its needs can be met. */
export type Need =
  /**
   * A lock-like wait: met when a known holder other than the waiter can go on; with none known,
   * when a possible holder can (`candidates`: the threads that could hold it, or `any` other
   * thread). Waiters of one lock share one `holders` and one `candidates` list (the waiter may be
   * in it: readers leave the waiter itself out), so reading them is linear in the dump.
   */
  | { kind: 'lock'; resource: string; description: string; holders: ThreadKey[]; candidates: ThreadKey[] | 'any'; gone: boolean; namedHolder: boolean; mayBeWakeUp: boolean }
  /** An all-of wait: met when every target can go on. */
  | { kind: 'all'; resource: string; description: string; targets: ThreadKey[] }
  /** A wait any other thread can end (condition variable, semaphore, an unexplained futex wait). */
  | { kind: 'any' };

export interface ProgressThread {
  key: ThreadKey;
  /** The stack starts with wait primitives (and is not an unlock path). */
  blocked: boolean;
  timed: boolean;
  outside: boolean;
  /** Blocked only as far as frames gdb could not name show (`?? ()` in libc), and not known to be stuck. */
  unnamed?: boolean;
  /** Its paste starts below the innermost frames: not known to wait, so it may be running. */
  cutTop?: boolean;
  /** What it waits for; a blocked thread with none waits for something no rule names (`any`). */
  needs: Need[];
}

export interface Progress {
  /** Threads that can go on. */
  live: Set<ThreadKey>;
  /** Roots by kind, in thread order of the input. */
  roots: Array<{ key: ThreadKey; kind: RootKind }>;
  /** Blocked threads that can never go on, in input order. */
  stuck: ThreadKey[];
}

export function rootKind(t: ProgressThread): RootKind | null {
  if (!t.blocked) return t.cutTop === true ? 'cut-top' : 'running';
  if (t.timed) return 'timed';
  if (t.outside) return 'outside';
  if (t.unnamed === true) return 'unnamed';
  return null;
}

export function computeProgress(threads: readonly ProgressThread[]): Progress {
  const live = new Set<ThreadKey>();
  const roots: Progress['roots'] = [];
  const queue: ThreadKey[] = [];
  const byKey = new Map<ThreadKey, ProgressThread>();
  for (const t of threads) byKey.set(t.key, t);
  const markLive = (key: ThreadKey): void => {
    if (live.has(key)) return;
    live.add(key);
    queue.push(key);
  };
  // Lock waiters grouped by their list of (possible) holders: waiters of one lock share one list,
  // so the work is the list once plus the waiters once, not waiters × holders (5,000 waiters of a
  // std::future that any of 20,000 thread bodies may fulfil).
  const groupOf = new Map<readonly ThreadKey[], HolderGroup>();
  const groupsByHolder = new Map<ThreadKey, HolderGroup[]>();
  const lockWait = (list: readonly ThreadKey[], waiter: ThreadKey): void => {
    let group = groupOf.get(list);
    if (group === undefined) {
      group = { waiters: [], firstLive: null, done: false };
      groupOf.set(list, group);
      for (const h of list) {
        const groups = groupsByHolder.get(h);
        if (groups === undefined) groupsByHolder.set(h, [group]);
        else if (groups[groups.length - 1] !== group) groups.push(group);
      }
    }
    group.waiters.push(waiter);
  };
  // All-of counters, by target; "any other thread" waiters.
  const byTarget = new Map<ThreadKey, Array<{ waiter: ThreadKey; counter: { left: number } }>>();
  const anyWaiters: ThreadKey[] = [];
  const push = <K, V>(map: Map<K, V[]>, key: K, value: V): void => {
    const list = map.get(key);
    if (list) list.push(value);
    else map.set(key, [value]);
  };
  for (const t of threads) {
    const root = rootKind(t);
    if (root !== null) {
      roots.push({ key: t.key, kind: root });
      markLive(t.key);
      continue;
    }
    if (t.needs.length === 0) {
      anyWaiters.push(t.key);
      continue;
    }
    for (const need of t.needs) {
      if (need.kind === 'any') anyWaiters.push(t.key);
      else if (need.kind === 'all') {
        const targets = need.targets.filter((k) => k !== t.key && byKey.has(k));
        if (targets.length === 0) {
          markLive(t.key);
          continue;
        }
        const counter = { left: targets.length };
        for (const target of targets) push(byTarget, target, { waiter: t.key, counter });
      } else if (need.gone) continue;
      else if (need.holders.length > 0) lockWait(need.holders, t.key);
      else if (need.namedHolder) markLive(t.key); // the named thread is not in the dump: it has exited
      else if (need.candidates === 'any') anyWaiters.push(t.key);
      else lockWait(need.candidates, t.key);
    }
  }
  let anyFlushed = false;
  for (let head = 0; head < queue.length; head++) {
    const key = queue[head] as ThreadKey;
    // The first thread that can go on can signal (or release for) every "any other thread" waiter
    // but itself, and it is live already.
    if (!anyFlushed) {
      anyFlushed = true;
      for (const w of anyWaiters) if (w !== key) markLive(w);
    }
    // A waiter can go on once a holder other than itself can: the first live holder frees every
    // waiter but itself, a second one that too; later ones change nothing.
    for (const group of groupsByHolder.get(key) ?? []) {
      if (group.done || group.firstLive === key) continue;
      if (group.firstLive === null) group.firstLive = key;
      else group.done = true;
      for (const w of group.waiters) if (w !== key) markLive(w);
    }
    for (const { waiter, counter } of byTarget.get(key) ?? []) {
      counter.left--;
      if (counter.left === 0) markLive(waiter);
    }
  }
  const stuck: ThreadKey[] = [];
  for (const t of threads) if (!live.has(t.key)) stuck.push(t.key);
  return { live, roots, stuck };
}

/** The waiters of one list of (possible) holders, and how far the holders' progress has freed them. */
interface HolderGroup {
  waiters: ThreadKey[];
  /** The first holder that could go on: it freed every waiter but itself. */
  firstLive: ThreadKey | null;
  /** A second holder could go on too: every waiter is free. */
  done: boolean;
}
