/**
 * Cross-thread stage, part 1: thread keys, merging headerless backtraces into their thread, and
 * settling which rules fired (process-wide conditions, `unlessRules`) and each thread's state.
 */
import type { FrameRef, ThreadAnalysis } from '../model/analysis.js';
import type { LoadedRules, ThreadRule } from '../rules/types.js';
import type { BacktraceSummary, SummaryAlternative, SummaryHit } from './summary.js';

export interface FiredRule {
  rule: ThreadRule;
  alt: SummaryAlternative;
}

export interface ThreadWork {
  key: string;
  primary: BacktraceSummary;
  merged: BacktraceSummary[];
  /** The rule that set the state, or null. */
  stateRule: ThreadRule | null;
  analysis: ThreadAnalysis;
  /** Some backtrace of the thread starts with wait primitives (`analysis.blocked`). */
  blocked: boolean;
  /** Some rule that fired says the thread's wait has a time limit. */
  timed: boolean;
}

/** Minimum number of top frames (same levels, same names) a headerless bt must share with a thread. */
const MIN_MERGE_FRAMES = 2;

/**
 * Gives each backtrace a thread key and merges headerless backtraces whose top frames match
 * exactly one thread's. Returns the threads in input order and notes for the report.
 */
export function groupThreads(summaries: BacktraceSummary[]): { threads: Array<{ key: string; primary: BacktraceSummary; merged: BacktraceSummary[] }>; notes: string[] } {
  const notes: string[] = [];
  const threads: Array<{ key: string; primary: BacktraceSummary; merged: BacktraceSummary[] }> = [];
  const used = new Map<string, { key: string; primary: BacktraceSummary; merged: BacktraceSummary[] }>();
  const headerless: BacktraceSummary[] = [];
  const byTop = new Map<string, Array<{ key: string; primary: BacktraceSummary; merged: BacktraceSummary[] }>>();
  const firstTops: Array<string | undefined> = [];
  for (const s of summaries) {
    if (s.thread === null) {
      headerless.push(s);
      continue;
    }
    const key = s.thread.gdbId;
    const earlier = used.get(key);
    if (earlier) {
      // The same thread again (`thread N` + `bt` after `thread apply all bt`, or a current-frame
      // line then its full stack): one thread, its longest copy shown.
      if (s.frameCount > earlier.primary.frameCount) {
        earlier.merged.push(earlier.primary);
        earlier.primary = s;
      } else earlier.merged.push(s);
      notes.push(`Thread ${key} appears again at line ${s.startLine}; both copies are read as one thread's stack.`);
      continue;
    }
    const entry = { key, primary: s, merged: [] as BacktraceSummary[] };
    used.set(key, entry);
    threads.push(entry);
    firstTops.push(s.top[0]?.name);
  }
  // Threads by the top frame of their first copy, only when some backtrace has no header.
  if (headerless.length > 0) {
    firstTops.forEach((topKey, i) => {
      if (topKey === undefined) return;
      const entry = threads[i] as (typeof threads)[number];
      const list = byTop.get(topKey);
      if (list) list.push(entry);
      else byTop.set(topKey, [entry]);
    });
  }
  for (const s of headerless) {
    const candidates = (byTop.get(s.top[0]?.name ?? '') ?? []).filter((t) => topFramesAgree(t.primary, s));
    const where = `The backtrace without a thread header at line ${s.startLine}`;
    if (candidates.length === 1) {
      const target = candidates[0] as (typeof candidates)[number];
      target.merged.push(s);
      notes.push(`${where} has the same top frames as Thread ${target.key} (${describeTop(s)}) and no other thread's; it is read as more of Thread ${target.key}'s stack.`);
      continue;
    }
    const key = `bt@${s.startLine}`;
    notes.push(
      candidates.length === 0
        ? `${where} matches no thread's top frames; it is analysed on its own as ${key}.`
        : `${where} matches the top frames of ${candidates.length} threads (${candidates.map((c) => c.key).join(', ')}); it is analysed on its own as ${key}.`,
    );
    threads.push({ key, primary: s, merged: [] });
  }
  return { threads, notes };
}

function describeTop(s: BacktraceSummary): string {
  return s.top
    .slice(0, 3)
    .map((t) => `#${t.level} ${t.name}`)
    .join(', ');
}

/** The frames both show at the same levels near the top must have the same names, and there must be enough of them. */
function topFramesAgree(thread: BacktraceSummary, bt: BacktraceSummary): boolean {
  const names = new Map(thread.top.map((t) => [t.level, t.name]));
  let compared = 0;
  for (const t of bt.top) {
    const other = names.get(t.level);
    if (other === undefined) continue;
    if (other !== t.name) return false;
    compared++;
  }
  const needed = Math.min(MIN_MERGE_FRAMES, thread.top.length, bt.top.length);
  return compared >= Math.max(needed, 1) && names.has(0) && bt.top.some((t) => t.level === 0);
}

/**
 * Decides which rules fired on one thread: a rule fires when one of its hit alternatives has all
 * its process-wide conditions met and none of its `unlessRules` fired. Rules are visited in the
 * loader's order, which puts every rule after the rules it names in `unlessRules`.
 */
export function settleRules(rules: LoadedRules, order: RuleOrder, summaries: BacktraceSummary[], processFlags: boolean[]): FiredRule[] {
  // Only the rules that hit are visited (a thread hits a few of the rule set's dozens), in the
  // loader's order; alternatives of one rule from several backtraces are joined in input order.
  // Plain loops: this runs once per thread.
  if (summaries.length === 1) {
    const fired = settleInOrder(rules, order, (summaries[0] as BacktraceSummary).hits, processFlags);
    if (fired !== null) return fired;
  }
  const hits: Array<{ index: number; alts: SummaryAlternative[]; owned: boolean }> = [];
  for (const s of summaries) {
    const sh = s.hits;
    for (let k = 0; k < sh.length; k++) {
      const hit = sh[k] as SummaryHit;
      const index = order.get(hit.ruleId);
      if (index === undefined) continue;
      let known: (typeof hits)[number] | undefined;
      for (const h of hits) if (h.index === index) known = h;
      if (known === undefined) hits.push({ index, alts: hit.alternatives, owned: false });
      else {
        if (!known.owned) {
          known.alts = [...known.alts];
          known.owned = true;
        }
        known.alts.push(...hit.alternatives);
      }
    }
  }
  if (hits.length > 1) hits.sort((a, b) => a.index - b.index);
  const fired: FiredRule[] = [];
  for (const { index, alts } of hits) {
    const rule = rules.threadRules[index] as ThreadRule;
    const alt = firstSettled(alts, processFlags);
    if (alt === undefined || firedAny(fired, rule.unlessRules)) continue;
    fired.push({ rule, alt });
  }
  return exactCopy(fired);
}

/**
 * settleRules for hits that are already one per rule in the loader's order — one backtrace's, as
 * matchBacktrace gives them (nearly every thread has one backtrace): no gathering, no sort. Null
 * when they are not in that order (then the general path settles them).
 */
function settleInOrder(rules: LoadedRules, order: RuleOrder, hits: SummaryHit[], processFlags: boolean[]): FiredRule[] | null {
  const fired: FiredRule[] = [];
  let last = -1;
  for (let k = 0; k < hits.length; k++) {
    const hit = hits[k] as SummaryHit;
    const index = order.get(hit.ruleId);
    if (index === undefined) continue;
    if (index <= last) return null;
    last = index;
    const rule = rules.threadRules[index] as ThreadRule;
    const alt = firstSettled(hit.alternatives, processFlags);
    if (alt === undefined || firedAny(fired, rule.unlessRules)) continue;
    fired.push({ rule, alt });
  }
  return exactCopy(fired);
}

/**
 * `list` with room for its items only: an array grown by push from empty keeps room for 17, and
 * the fired rules of each of 100,000 threads live through the cross-thread stage (~130 bytes a
 * thread of nothing; issue 15, figures 8-11).
 */
export function exactCopy<T>(list: T[]): T[] {
  return list.length === 0 ? [] : list.slice();
}

/** The first alternative whose process-wide conditions all hold. */
function firstSettled(alts: SummaryAlternative[], processFlags: boolean[]): SummaryAlternative | undefined {
  next: for (const alt of alts) {
    for (const i of alt.pendingProcess) if (processFlags[i] !== true) continue next;
    return alt;
  }
  return undefined;
}

function firedAny(fired: FiredRule[], ids: string[]): boolean {
  for (const id of ids) for (const f of fired) if (f.rule.id === id) return true;
  return false;
}

/** Thread rule id → its place in the loader's order (made once per analysis session: ruleOrderOf). */
export type RuleOrder = ReadonlyMap<string, number>;

export function ruleOrderOf(rules: LoadedRules): RuleOrder {
  return new Map(rules.threadRules.map((r, i) => [r.id, i]));
}

/** The state-setting rule with the highest priority (first in load order on ties). */
export function stateRuleOf(fired: FiredRule[]): ThreadRule | null {
  let best: ThreadRule | null = null;
  for (const { rule } of fired) {
    if (rule.effect.state === undefined) continue;
    if (best === null || (rule.effect.priority ?? 0) > (best.effect.priority ?? 0)) best = rule;
  }
  return best;
}

/**
 * The function a thread waits in, as a sentence names it. gdb prints a function it cannot name as
 * `?? ()`, and GDB 13 under a frame filter (GLib's) as `in  ()`, an empty name: both read "a
 * function gdb could not name", not an empty gap.
 */
export function waitSiteName(site: FrameRef | null | undefined): string {
  if (site === null || site === undefined) return 'a wait primitive';
  return site.function === '' || site.function === '??' ? 'a function gdb could not name' : site.function;
}
