/**
 * Holds from `bt full` locals (issue 12 §2): a guard object in a frame's locals — a
 * `std::lock_guard`, `std::unique_lock` with `_M_owns = true`, a Rust `MutexGuard`, … as the
 * locals rules (rules/locals.ts, data in the packs) describe them — holds its lock while that frame
 * is on the stack. Each becomes a hold edge with basis `locals`.
 *
 * Two stages, like the rest of the analysis: `collectGuards` reads one backtrace as it streams
 * (its frames may be dropped afterwards) and keeps only the guards it found; `guardHolds` turns
 * them into hold edges once every wait is known. Which guards are no holds:
 * - guards in the wait primitives at the top of a blocked stack (lock internals, not the caller's);
 * - the guard being built while its thread waits: a guard that names its lock before taking it
 *   (`boundBeforeLocked`: std::lock_guard binds its reference, then locks) already shows the
 *   address the thread waits for. The innermost such guard is that one; another guard on the same
 *   lock further out is held, and the thread deadlocks on itself.
 * A guard declared later in a scope than where the frame stands is printed with whatever its stack
 * slot held (gdb prints every local of the block); a pointer there that happens to name a lock
 * another thread waits for would read as a hold. The rules ask for exact member shapes and a
 * non-null address to keep that rare; the report says the hold comes from locals.
 */
import type { Edge, FrameRef } from '../model/analysis.js';
import type { Backtrace } from '../model/dump.js';
import { resourceNode, threadNode } from '../model/ids.js';
import { expandLocalTemplate, matchLocal, readLocalValue } from '../rules/locals.js';
import { normalizeResourceId } from './owner-links.js';
import type { PreparedStack } from '../rules/match.js';
import type { LoadedRules, LocalsRule } from '../rules/types.js';

/** One guard found in a backtrace's locals: what it holds and where it stands. */
export interface FoundGuard {
  backtrace: number;
  /** Position of its frame in the backtrace (0 = innermost). */
  position: number;
  site: FrameRef;
  ruleId: string;
  evidence: 'proven' | 'inferred';
  boundBeforeLocked: boolean;
  /** The backtrace starts with wait primitives. */
  blocked: boolean;
  local: string;
  /** One hold per resource (a scoped_lock of two gives two), with its description. */
  holds: Array<{ resource: string; description: string }>;
}

/** The guards in one backtrace's locals (none when it has no locals or the rule set no locals rules). */
export function collectGuards(rules: LoadedRules, bt: Backtrace, index: number, stack: PreparedStack): FoundGuard[] {
  const localsRules = rules.localsRules ?? [];
  if (localsRules.length === 0) return [];
  let out: FoundGuard[] | null = null;
  // Frames of the wait primitives are lock internals: their locals are not the caller's guards.
  const from = stack.blocked ? stack.acquireIndex : 0;
  for (let i = from; i < bt.frames.length; i++) {
    const frame = bt.frames[i];
    if (frame === undefined || frame.locals === undefined || frame.locals.length === 0) continue;
    const name = stack.names[i] ?? frame.function;
    for (const local of frame.locals) {
      const v = local.value;
      // Cheap filter: a guard prints as a struct or a pointer.
      if (v.indexOf('{') < 0 && v.indexOf('0x') < 0) continue;
      const read = readLocalValue(v);
      if (read === null) continue;
      for (const rule of localsRules) {
        if (rule.notIn && rule.notIn(name)) continue;
        const capture = matchLocal(rule, local, frame.function, read);
        if (capture === null) continue;
        const holds = holdsOf(rule, capture);
        if (holds.length === 0) continue;
        (out ??= []).push({
          backtrace: index,
          position: i,
          site: { backtrace: index, level: frame.level, function: frame.function, file: frame.file, line: frame.line, sourceLine: frame.sourceLine },
          ruleId: rule.id,
          evidence: rule.effect.evidence,
          boundBeforeLocked: rule.effect.boundBeforeLocked === true,
          blocked: stack.blocked,
          local: local.name,
          holds,
        });
        // One rule a local: the first that matches says what it is.
        break;
      }
    }
  }
  return out ?? [];
}

function holdsOf(rule: LocalsRule, capture: Parameters<typeof expandLocalTemplate>[1]): FoundGuard['holds'] {
  const out: FoundGuard['holds'] = [];
  for (const h of rule.effect.holds) {
    const resources = expandLocalTemplate(h.resource, capture);
    if (resources === null) continue;
    const descriptions = h.description ? expandLocalTemplate(h.description, capture) : null;
    resources.forEach((r, k) => out.push({ resource: normalizeResourceId(r), description: descriptions?.[k] ?? descriptions?.[0] ?? `as its local ${capture.name} shows (bt full locals)` }));
  }
  return out;
}

/** The identity of a resource id (`mutex:0x55…` → `0x55…`). */
function identityOf(resource: string): string {
  return resource.slice(resource.indexOf(':') + 1);
}

/**
 * Hold edges from the guards, once every wait edge is known. `threadOf` maps a backtrace index to
 * its thread key (merged headerless backtraces included). A hold is named like the wait on the
 * same address when there is one (a guard does not say whether its lock is a `mutex:` or an
 * `rwlock:`; the wait's rule does), so the two meet in one graph node.
 */
export function guardHolds(guards: readonly FoundGuard[], threadOf: (backtrace: number) => string | undefined, edges: readonly Edge[]): Edge[] {
  if (guards.length === 0) return [];
  const waitsByIdentity = new Map<string, string[]>();
  const waitsOfThread = new Map<string, Set<string>>();
  for (const e of edges) {
    if (e.kind !== 'waits') continue;
    const resource = e.to.slice('res:'.length);
    const id = identityOf(resource);
    const list = waitsByIdentity.get(id);
    if (list === undefined) waitsByIdentity.set(id, [resource]);
    else if (!list.includes(resource)) list.push(resource);
    const thread = e.from.slice('thread:'.length);
    let set = waitsOfThread.get(thread);
    if (set === undefined) waitsOfThread.set(thread, (set = new Set()));
    set.add(id);
  }
  // Per backtrace and address waited for: the innermost guard that names it while being built.
  const building = new Map<string, FoundGuard>();
  // Per blocked backtrace: its innermost bound-before-locked guard, and whether any names a waited address.
  const innermost = new Map<number, FoundGuard>();
  const named = new Set<number>();
  for (const g of guards) {
    if (!g.boundBeforeLocked) continue;
    const thread = threadOf(g.backtrace);
    if (thread === undefined) continue;
    const waited = waitsOfThread.get(thread);
    // Only a stack whose waits name no address (or that no rule explains) leaves the guard being
    // built unknown: a known address waited for is the one that guard names.
    if (g.blocked && ![...(waited ?? [])].some((id) => !id.startsWith('unknown@'))) {
      const first = innermost.get(g.backtrace);
      if (first === undefined || g.position < first.position) innermost.set(g.backtrace, g);
    }
    if (waited === undefined) continue;
    for (const h of g.holds) {
      const id = identityOf(h.resource);
      if (!waited.has(id)) continue;
      named.add(g.backtrace);
      const key = `${g.backtrace}\u0000${id}`;
      const known = building.get(key);
      if (known === undefined || g.position < known.position) building.set(key, g);
    }
  }
  // The guards being built hold none of their locks (a scoped_lock of two that waits for one holds
  // neither: std::lock takes them all or none). A blocked stack whose waits name no address (libc
  // without debug info: the wait is `mutex:unknown@N`, or no rule explains it): its innermost such
  // guard may be the one being built, so it is not taken for a hold either (a miss rather than a
  // false self-deadlock).
  const notHeld = new Set<FoundGuard>(building.values());
  for (const [backtrace, g] of innermost) if (!named.has(backtrace)) notHeld.add(g);
  const out: Edge[] = [];
  const seen = new Set<string>();
  for (const g of guards) {
    const thread = threadOf(g.backtrace);
    if (thread === undefined || notHeld.has(g)) continue;
    for (const h of g.holds) {
      const id = identityOf(h.resource);
      const sameAddress = waitsByIdentity.get(id);
      const resource = sameAddress === undefined ? h.resource : (sameAddress.find((r) => r === h.resource) ?? (sameAddress[0] as string));
      const key = `${resource}\u0000${thread}`;
      if (seen.has(key)) continue;
      seen.add(key);
      out.push({
        kind: 'holds',
        from: resourceNode(resource),
        to: threadNode(thread),
        evidence: g.evidence,
        ruleId: g.ruleId,
        site: g.site,
        description: h.description,
        basis: 'locals',
      });
    }
  }
  return out;
}
