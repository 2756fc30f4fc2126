/**
 * Runs thread rules over one backtrace. Per-backtrace work only: what depends on other threads
 * (`processHas`, `unlessRules`, all-of waits) is left as data in the hits and settled once the
 * whole dump has been read (see analyze/), so a dump can be analysed while it streams.
 */
import type { Backtrace, Frame } from '../model/dump.js';
import { normalizeFunctionName, parseArgValue, type ParsedArgValue } from './normalize.js';
import { internEpoch, type NameTest } from './pattern.js';
import type { FrameCondition, LoadedRules, Shape, ThreadRule } from './types.js';

/** A backtrace prepared for matching: normalised names and where the wait primitives end. */
export interface PreparedStack {
  frames: Frame[];
  names: string[];
  /** Interned ids of `names` (valid for `epoch`), so patterns can memoise by number. */
  ids: number[];
  epoch: number;
  /** Index of the first frame that is not a wait primitive (0 when the top frame is not one). */
  acquireIndex: number;
  /** True when the stack starts with at least one wait primitive. */
  blocked: boolean;
  truncated: boolean;
}

/**
 * Raw function name → its normalised form, shared by every stack: a dump of 100,000 threads holds
 * a few thousand distinct names, so each is normalised once, and every stack refers to the same
 * string objects (whose hashes V8 caches), which keeps the patterns' memo lookups cheap.
 */
const INTERN_LIMIT = 65536;
const interned = new Map<string, { name: string; id: number }>();
const idsByName = new Map<string, number>();

function internName(raw: string): { name: string; id: number } {
  let entry = interned.get(raw);
  if (entry === undefined) {
    if (interned.size >= INTERN_LIMIT) {
      interned.clear();
      idsByName.clear();
      internEpoch.value++;
    }
    // Keys and names are copied out of the input: a parser string is often a slice that would
    // keep its whole input chunk alive as long as this table holds it.
    const name = detach(normalizeFunctionName(raw));
    let id = idsByName.get(name);
    if (id === undefined) {
      id = idsByName.size;
      idsByName.set(name, id);
    }
    entry = { name, id };
    interned.set(detach(raw), entry);
  }
  return entry;
}

/** A flat copy of `s` that does not point into a larger string (V8 copies short slices anyway). */
function detach(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

export function prepareStack(bt: Pick<Backtrace, 'frames' | 'truncated'>, primitives: FrameCondition[]): PreparedStack {
  const frames = bt.frames;
  const names: string[] = new Array<string>(frames.length);
  const ids: number[] = new Array<number>(frames.length);
  frames.forEach((f, i) => {
    const entry = internName(f.function);
    names[i] = entry.name;
    ids[i] = entry.id;
  });
  const stack: PreparedStack = { frames, names, ids, epoch: internEpoch.value, acquireIndex: 0, blocked: false, truncated: bt.truncated };
  let i = 0;
  while (i < frames.length && primitives.some((p) => frameMatches(p, stack, i))) i++;
  stack.blocked = i > 0;
  // A stack made only of primitives (cut right under them) has its outermost frame as the site.
  stack.acquireIndex = Math.min(i, Math.max(0, frames.length - 1));
  return stack;
}

/** One way a rule matched: its site, captured arguments and the process-wide conditions still to check. */
export interface HitAlternative {
  siteIndex: number;
  captures: Record<string, ParsedArgValue>;
  pendingProcess: number[];
}

export interface RuleHit {
  ruleId: string;
  /** Alternatives in rule order; the first whose pending conditions hold is used. */
  alternatives: HitAlternative[];
}

export function matchThreadRule(rule: ThreadRule, stack: PreparedStack): RuleHit | null {
  const base = matchShape(rule.base, stack);
  if (!base) return null;
  if (rule.anyOf.length === 0) return { ruleId: rule.id, alternatives: [base] };
  const alternatives: HitAlternative[] = [];
  for (const shape of rule.anyOf) {
    const alt = matchShape(shape, stack);
    if (!alt) continue;
    const useBaseSite = rule.base.frames.length > 0 && !shape.frames.some((f) => f.site);
    alternatives.push({
      siteIndex: useBaseSite ? base.siteIndex : alt.siteIndex,
      captures: { ...alt.captures, ...base.captures },
      pendingProcess: [...base.pendingProcess, ...alt.pendingProcess],
    });
  }
  return alternatives.length > 0 ? { ruleId: rule.id, alternatives } : null;
}

/** For each thread rule of a rule set, the name tests its base shape requires (each must match some frame). */
const requiredTests = new WeakMap<LoadedRules, NameTest[][]>();

/**
 * Runs every thread rule on one stack. A rule whose base shape requires a function name that no
 * frame has is skipped before its shape is searched: most rules concern a few functions and most
 * stacks hold none of them (a 10,000-thread dump: matching 0.5 s less).
 */
export function matchBacktrace(rules: LoadedRules, stack: PreparedStack): RuleHit[] {
  let required = requiredTests.get(rules);
  if (required === undefined) {
    required = rules.threadRules.map((rule) => rule.base.frames.flatMap((f) => (f.fn ? [f.fn] : [])));
    requiredTests.set(rules, required);
  }
  const hits: RuleHit[] = [];
  const n = stack.frames.length;
  const ids = stack.epoch === internEpoch.value ? stack.ids : null;
  rules.threadRules.forEach((rule, r) => {
    for (const fn of required[r] as NameTest[]) {
      let found = false;
      for (let i = 0; i < n && !found; i++) found = fn(stack.names[i] as string, ids === null ? undefined : ids[i]);
      if (!found) return;
    }
    const hit = matchThreadRule(rule, stack);
    if (hit) hits.push(hit);
  });
  return hits;
}

function matchShape(shape: Shape, stack: PreparedStack): HitAlternative | null {
  if (shape.blocked !== undefined && shape.blocked !== stack.blocked) return null;
  if (shape.truncated !== undefined && shape.truncated !== stack.truncated) return null;
  for (const cond of shape.none) {
    for (let i = 0; i < stack.frames.length; i++) if (frameMatches(cond, stack, i)) return null;
  }
  if (shape.frames.length === 0) {
    return { siteIndex: stack.acquireIndex, captures: {}, pendingProcess: shape.processHas };
  }
  const positions = findSequence(shape.frames, stack);
  if (!positions) return null;
  const captures: Record<string, ParsedArgValue> = {};
  shape.frames.forEach((cond, k) => {
    const frame = stack.frames[positions[k] as number] as Frame;
    for (const arg of cond.args) {
      if (captures[arg.name]) continue;
      const found = frame.args.find((a) => a.name === arg.name);
      if (found) captures[arg.name] = parseArgValue(found.value);
    }
  });
  const siteK = Math.max(0, shape.frames.findIndex((f) => f.site));
  return { siteIndex: positions[siteK] as number, captures, pendingProcess: shape.processHas };
}

/**
 * Finds frame indexes p0 < p1 < … for the conditions, inner to outer. Leftmost choices are tried
 * first; a memo on (condition, start) keeps the search at O(conditions × frames²) even with
 * `next`/`maxGap` constraints that make the leftmost choice wrong.
 */
/** The frame indexes a condition's position allows: `[lo, hi)`. */
function positionRange(cond: FrameCondition, stack: PreparedStack): [number, number] {
  const n = stack.frames.length;
  switch (cond.at.kind) {
    case 'top':
      return [0, Math.min(n, cond.at.n)];
    case 'within':
      return [stack.acquireIndex, Math.min(n, stack.acquireIndex + cond.at.n)];
    case 'anywhere':
      return [0, n];
  }
}

function findSequence(conds: FrameCondition[], stack: PreparedStack): number[] | null {
  const n = stack.frames.length;
  if (conds.length === 1) {
    // Most rules anchor on one frame: a plain scan of the frames its position allows.
    const cond = conds[0] as FrameCondition;
    const [lo, hi] = positionRange(cond, stack);
    for (let i = lo; i < hi; i++) if (frameMatches(cond, stack, i)) return [i];
    return null;
  }
  const failed = new Set<number>();
  const out: number[] = [];
  const search = (k: number, from: number, prev: number): boolean => {
    if (k === conds.length) return true;
    const key = k * (n + 2) + (prev + 1);
    if (failed.has(key)) return false;
    const cond = conds[k] as FrameCondition;
    const [lo, hi] = positionRange(cond, stack);
    let last = hi - 1;
    if (k > 0 && cond.next) last = Math.min(last, from);
    if (k > 0 && cond.maxGap !== undefined) last = Math.min(last, prev + 1 + cond.maxGap);
    for (let i = Math.max(from, lo); i <= last; i++) {
      if (!frameMatches(cond, stack, i)) continue;
      out[k] = i;
      if (search(k + 1, i + 1, i)) return true;
    }
    failed.add(key);
    return false;
  };
  return search(0, 0, -1) ? out.slice(0, conds.length) : null;
}

export function frameMatches(cond: FrameCondition, stack: PreparedStack, i: number): boolean {
  const frame = stack.frames[i];
  if (!frame) return false;
  switch (cond.at.kind) {
    case 'top':
      if (i >= cond.at.n) return false;
      break;
    case 'within':
      if (i < stack.acquireIndex || i >= stack.acquireIndex + cond.at.n) return false;
      break;
    case 'anywhere':
      break;
  }
  if (cond.fn && !cond.fn(stack.names[i] as string, stack.epoch === internEpoch.value ? stack.ids[i] : undefined)) return false;
  if (cond.library && (frame.library === null || !cond.library(frame.library))) return false;
  if (cond.file && (frame.file === null || !cond.file(frame.file))) return false;
  if (cond.jitCode !== undefined) {
    const jit = frame.kind === 'normal' && frame.function === '??' && frame.library === null && frame.file === null;
    if (jit !== cond.jitCode) return false;
  }
  for (const arg of cond.args) {
    const found = frame.args.find((a) => a.name === arg.name);
    if (!found) return false;
    if (arg.value && !arg.value(found.value.trim())) return false;
    if (arg.symbol || arg.address !== undefined) {
      const parsed = parseArgValue(found.value);
      if (arg.symbol && (parsed.symbol === null || !arg.symbol(parsed.symbol))) return false;
      if (arg.address !== undefined && (parsed.address !== null) !== arg.address) return false;
    }
  }
  return true;
}
