/**
 * Re-entry (issue 12 §2): a thread that waits at an acquire site which also stands deeper in its
 * own stack already holds that lock — the same function, further out, went past the line where it
 * takes the lock and called back into itself (an allocator hook that holds its lock and allocates
 * again, a signal handler that interrupts the function and calls it, a callback that re-enters the
 * API that called it). The inner call waits for what the outer one holds: a self-deadlock. The
 * stack does not show that the outer call still holds the lock (it may have unlocked before the
 * call back), so the hold is `inferred`, with basis `stack`.
 *
 * Read per backtrace as it streams (`findReentry`), turned into hold edges once the waits are known
 * (`reentryHolds`). The conditions are strict, to keep a nested dispatch loop that merely passed
 * through the same function from reading as a self-deadlock: the same function (normalised name)
 * in the same file; the outer frame past the inner one's line (the outer call has gone beyond the
 * lock statement), or, without lines, a signal handler between them; and no other thread of the
 * dump able to go on (one could hold the lock for a moment). A recursive lock, a read lock, a join
 * or a wait whose holder shows in its own stack is never read this way.
 */
import type { Edge, FrameRef, ThreadAnalysis } from '../model/analysis.js';
import type { Backtrace } from '../model/dump.js';
import { resourceNode, threadNode } from '../model/ids.js';
import { conditionHoldsAt, type PreparedStack } from '../rules/match.js';
import type { LoadedRules } from '../rules/types.js';
import type { WaitInfo } from './deadlocks.js';

export interface Reentry {
  backtrace: number;
  /** The frame where the thread waits (the acquire site past the lock wrappers). */
  inner: FrameRef;
  /** The same function further out, past the line where it takes the lock. */
  outer: FrameRef;
}

/** The re-entry a blocked backtrace shows, or null. */
export function findReentry(rules: LoadedRules, bt: Backtrace, index: number, stack: PreparedStack): Reentry | null {
  if (!stack.blocked) return null;
  const frames = bt.frames;
  const n = frames.length;
  let i = stack.acquireIndex;
  const wrappers = rules.lockWrappers ?? [];
  while (i < n && wrappers.some((c) => conditionHoldsAt(c, stack, i))) i++;
  const inner = frames[i];
  const name = stack.names[i];
  if (inner === undefined || name === undefined || inner.function === '??' || inner.kind !== 'normal' || inner.language !== undefined) return null;
  let signal = false;
  for (let j = i + 1; j < n; j++) {
    const outer = frames[j] as (typeof frames)[number];
    if (outer.kind === 'sigtramp') signal = true;
    if (stack.names[j] !== name) continue;
    if (inner.file !== null && outer.file !== null && inner.file !== outer.file) continue;
    // The outer call must have gone past the inner call's line (the lock statement). Without lines
    // (no debug info) only a signal handler between them says so: the outer call was interrupted
    // where it stood, not at a call it made (a nested event loop passes through its dispatcher
    // with the lock released, and looks the same).
    if (inner.line !== null && outer.line !== null) {
      if (outer.line <= inner.line) continue;
    } else if (!signal) continue;
    const ref = (f: typeof inner): FrameRef => ({ backtrace: index, level: f.level, function: f.function, file: f.file, line: f.line, sourceLine: f.sourceLine });
    return { backtrace: index, inner: ref(inner), outer: ref(outer) };
  }
  return null;
}

/**
 * Hold edges from re-entries: the thread holds each lock it waits for at that site (a mutex-like
 * wait its holder may be itself), unless another thread is already known to hold it.
 */
export function reentryHolds(reentries: readonly Reentry[], threadOf: (backtrace: number) => string | undefined, waits: readonly WaitInfo[], edges: readonly Edge[], threads: readonly ThreadAnalysis[]): Edge[] {
  if (reentries.length === 0) return [];
  // The stack cannot tell a callback that re-entered while holding the lock from a nested loop that
  // re-entered after releasing it, while another thread holds it for a moment. Only where no other
  // thread can go on (each is blocked with no time limit, none on the outside world) does the
  // re-entry say which thread holds it; anywhere else it stays contention.
  const canGoOn = new Set(threads.filter((t) => t.blocked !== true || t.timed === true || t.outside === true).map((t) => t.key));
  const held = new Set<string>();
  for (const e of edges) if (e.kind === 'holds') held.add(e.from);
  const out: Edge[] = [];
  for (const r of reentries) {
    const key = threadOf(r.backtrace);
    if (key === undefined || canGoOn.has(key) || [...canGoOn].some((k) => k !== key)) continue;
    const node = threadNode(key);
    for (const w of waits) {
      const e = w.edge;
      if (e.from !== node || e.timed === true || !w.lockLike || !w.waiterMayHold || w.shared || w.namedHolder || w.holderShows) continue;
      if (held.has(e.to)) continue;
      held.add(e.to);
      const fn = r.inner.function;
      const at = r.outer.file !== null ? ` at ${r.outer.file}${r.outer.line !== null ? `:${r.outer.line}` : ''}` : '';
      const past = r.inner.line !== null && r.outer.line !== null ? `, past line ${r.inner.line} where it waits now,` : '';
      out.push({
        kind: 'holds',
        from: e.to.startsWith('res:') ? e.to : resourceNode(e.to),
        to: node,
        evidence: 'inferred',
        ruleId: 'reentry',
        site: r.outer,
        description: `as its own stack suggests: ${fn} stands further out (#${r.outer.level}${at})${past} and called back into ${fn}, which waits for the lock again (inferred: the outer call may have unlocked first)`,
        basis: 'stack',
      });
    }
  }
  return out;
}
