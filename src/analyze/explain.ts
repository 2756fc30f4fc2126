/**
 * `waitgraph explain FILE --thread N`: for one thread, which rules matched, which nearly matched
 * and why not — the first condition that failed, and what the closest frame lacked. This is what
 * a user reads while writing a rule.
 *
 * Built apart from the hot matcher (rules/match.ts) on purpose: it re-checks one rule at a time
 * on one stack, condition by condition, through the matcher's own public tests
 * (`conditionHoldsAt` on a condition and on its parts, `Matcher.matchRule` on a rule cut down to
 * the first k frame conditions), so what it says is what the matcher does. Slow (rules × conditions × frames) and
 * run once.
 */
import type { Analysis, ThreadAnalysis } from '../model/analysis.js';
import type { Backtrace, Dump } from '../model/dump.js';
import { conditionHoldsAt as frameMatches, createMatcher, type Matcher, type PreparedStack, type RuleHit } from '../rules/match.js';
import type { FrameCondition, LoadedRules, Shape, ThreadRule } from '../rules/types.js';
import type { FrameConditionRaw, NamePatternRaw, ShapeRaw, ThreadRuleRaw } from '../rules/schema.js';

/** How a rule stands on the thread. */
export interface RuleVerdict {
  ruleId: string;
  file: string;
  /** `fired`: it fired (its effects are in the analysis); `matched`: its frames match but it did not fire; `near`: it did not match. */
  status: 'fired' | 'matched' | 'near';
  /** For `matched` and `near`: why not, one sentence (the first condition that failed). */
  why: string | null;
  /** The shape that got furthest (`match` or `match.anyOf[1]`), and how many of its conditions held. */
  shape: string;
  passed: number;
  total: number;
  /** For `fired`/`matched`: the frame the rule's site is, `#3 ___pthread_mutex_lock`. */
  site: string | null;
}

export interface ThreadExplanation {
  thread: ThreadAnalysis;
  /** Where the wait primitives end: the acquire site's level, or null when the stack is not blocked. */
  primitives: { count: number; acquire: string | null };
  rules: RuleVerdict[];
  /** Rules none of whose frame conditions names a function of this stack (not listed one by one). */
  unrelated: number;
}

/** The raw (as written) form of a rule, to quote its conditions; null when not at hand. */
export type RawOf = (rule: ThreadRule) => ThreadRuleRaw | null;

/** Finds the thread by its key (`"2"`, `"bt@119"`) and explains every thread rule on its stack. */
export function explainThread(dump: Dump, analysis: Analysis, rules: LoadedRules, key: string, rawOf: RawOf = () => null): ThreadExplanation | null {
  const thread = analysis.threads.find((t) => t.key === key);
  if (!thread) return null;
  const bt = dump.backtraces[thread.backtrace] as Backtrace;
  // The rule set's own matcher, memo off: one stack, read once.
  const matcher = createMatcher(rules, { memo: false });
  const stack = matcher.prepare(bt);
  const verdicts: RuleVerdict[] = [];
  let unrelated = 0;
  for (const rule of rules.threadRules) {
    const v = explainRule(matcher, rule, stack, thread, dump, rawOf(rule));
    if (v === null) unrelated++;
    else verdicts.push(v);
  }
  const rank = (v: RuleVerdict): number => (v.status === 'fired' ? 0 : v.status === 'matched' ? 1 : 2);
  verdicts.sort((a, b) => rank(a) - rank(b) || b.passed / b.total - a.passed / a.total || (a.ruleId < b.ruleId ? -1 : 1));
  const acquire = stack.blocked ? frameText(stack, stack.acquireIndex) : null;
  return { thread, primitives: { count: stack.blocked ? stack.acquireIndex : 0, acquire }, rules: verdicts, unrelated };
}

/** One rule on the stack; null when the rule has nothing to do with it (no frame has a function it names, and it did not match). */
function explainRule(matcher: Matcher, rule: ThreadRule, stack: PreparedStack, thread: ThreadAnalysis, dump: Dump, raw: ThreadRuleRaw | null): RuleVerdict | null {
  const base = { ruleId: rule.id, file: rule.file };
  const shapes: Array<{ name: string; shape: Shape; raw: ShapeRaw | null }> = [{ name: 'match', shape: rule.base, raw: raw?.match ?? null }];
  rule.anyOf.forEach((shape, i) => shapes.push({ name: `match.anyOf[${i}]`, shape, raw: raw?.match.anyOf?.[i] ?? null }));
  const hit = matcher.matchRule(rule, stack);
  if (thread.rules.includes(rule.id) || hit !== null) {
    const alt = hit?.alternatives[0];
    const site = alt ? frameText(stack, alt.siteIndex) : null;
    const total = shapes.reduce((n, s) => n + conditionCount(s.shape), 0);
    if (thread.rules.includes(rule.id)) return { ...base, status: 'fired', why: null, shape: 'match', passed: total, total, site };
    return { ...base, status: 'matched', why: whyNotFired(matcher, rule, hit, dump, thread), shape: 'match', passed: total, total, site };
  }
  // The base shape must hold, and (with anyOf) one alternative: report the base's failure when it
  // fails, else the alternative that got furthest.
  const baseResult = checkShape(matcher, shapes[0]!.shape, shapes[0]!.raw, 'match', stack);
  let best = baseResult;
  if (baseResult.why === null) {
    best = { ...baseResult, passed: -1 };
    for (const s of shapes.slice(1)) {
      const r = checkShape(matcher, s.shape, s.raw, s.name, stack);
      if (r.passed > best.passed) best = r;
    }
  }
  // Unrelated: no frame condition of any shape names a function of this stack.
  const related = shapes.some((s) => s.shape.frames.some((c) => c.fn !== undefined && namedFrames(c, stack).length > 0));
  if (!related) return null;
  return { ...base, status: 'near', why: best.why, shape: best.name, passed: Math.max(0, best.passed), total: best.total, site: null };
}

function conditionCount(shape: Shape): number {
  return (shape.blocked !== undefined ? 1 : 0) + (shape.truncated !== undefined ? 1 : 0) + shape.none.length + shape.frames.length;
}

interface ShapeResult {
  name: string;
  /** Null when the shape holds on the stack. */
  why: string | null;
  passed: number;
  total: number;
}

/** The shape's conditions in the matcher's order: blocked, truncated, none, then frames inner → outer. */
function checkShape(matcher: Matcher, shape: Shape, raw: ShapeRaw | null, name: string, stack: PreparedStack): ShapeResult {
  const total = conditionCount(shape);
  let passed = 0;
  const fail = (why: string): ShapeResult => ({ name, why, passed, total });
  if (shape.blocked !== undefined) {
    if (shape.blocked !== stack.blocked) return fail(shape.blocked ? `${name}.blocked: the stack does not start with wait primitives (frame #0 ${stack.names[0] ?? '?'} is none)` : `${name}.blocked: false, but the stack starts with wait primitives`);
    passed++;
  }
  if (shape.truncated !== undefined) {
    if (shape.truncated !== stack.truncated) return fail(`${name}.truncated: the stack is ${stack.truncated ? '' : 'not '}cut short`);
    passed++;
  }
  for (let j = 0; j < shape.none.length; j++) {
    const cond = shape.none[j] as FrameCondition;
    const at = stack.frames.findIndex((_, i) => frameMatches(cond, stack, i));
    if (at >= 0) return fail(`${name}.none[${j}]${quote(raw?.none?.[j])}: frame ${frameText(stack, at)} is one the rule excludes`);
    passed++;
  }
  for (let k = 0; k < shape.frames.length; k++) {
    const prefix: ThreadRule = { ...CUT_RULE, base: { frames: shape.frames.slice(0, k + 1), none: [], processHas: [] } };
    if (matcher.matchRule(prefix, stack) === null) return fail(frameFailure(shape.frames, k, raw?.frames?.[k], `${name}.frames[${k}]`, stack));
    passed++;
  }
  return { name, why: null, passed, total };
}

/** A rule with no conditions but the ones explain puts in (matchRule reads only base and anyOf). */
const CUT_RULE: ThreadRule = {
  kind: 'thread',
  id: 'explain.cut',
  pack: 'explain',
  summary: '',
  explanation: '',
  fix: '',
  sources: [],
  file: '',
  builtin: true,
  base: { frames: [], none: [], processHas: [] },
  anyOf: [],
  unlessRules: [],
  effect: { evidence: 'inferred' },
};

/** Why frame condition k finds no frame (the conditions before it matched): its name, then its other parts, then its place. */
function frameFailure(conds: FrameCondition[], k: number, raw: FrameConditionRaw | undefined, path: string, stack: PreparedStack): string {
  const cond = conds[k] as FrameCondition;
  const label = `${path}${quote(raw)}`;
  const named = namedFrames(cond, stack);
  if (named.length === 0) return `${label}: no frame ${cond.fn ? 'has that function' : 'has that library/file'}`;
  // Every frame with the name fails another part: say what the first one lacks.
  const detailed = named.filter((i) => failingPart(cond, stack, i, raw) === null);
  if (detailed.length === 0) return `${label}: frame ${frameText(stack, named[0] as number)} ${failingPart(cond, stack, named[0] as number, raw) as string}`;
  // Name and details hold somewhere: the position or the order fails.
  const placed = detailed.filter((i) => frameMatches(cond, stack, i));
  const first = detailed[0] as number;
  if (placed.length === 0) return `${label}: frame ${frameText(stack, first)} matches, but not where ${positionText(cond, stack)}`;
  const prev = k > 0 ? ` after the frame of ${path.replace(/\[\d+\]$/, `[${k - 1}]`)}` : '';
  const order = cond.next ? `right${prev} (next: true)` : cond.maxGap !== undefined ? `within ${cond.maxGap} frames${prev} (maxGap)` : `further out${prev}`;
  return `${label}: frame ${frameText(stack, placed[0] as number)} matches, but not ${order}`;
}

/** Frames whose function passes the condition's name test (all frames when it has none). */
function namedFrames(cond: FrameCondition, stack: PreparedStack): number[] {
  const all = stack.frames.map((_, i) => i);
  if (!cond.fn) return all;
  const nameOnly: FrameCondition = { fn: cond.fn, at: { kind: 'anywhere' }, next: false, args: [], site: false };
  return all.filter((i) => frameMatches(nameOnly, stack, i));
}

/** The first part of the condition (library, file, jitCode, an argument) the frame fails, or null. */
function failingPart(cond: FrameCondition, stack: PreparedStack, i: number, raw: FrameConditionRaw | undefined): string | null {
  const frame = stack.frames[i]!;
  const only = (part: Partial<FrameCondition>): boolean => frameMatches({ ...(cond.fn ? { fn: cond.fn } : {}), at: { kind: 'anywhere' }, next: false, args: [], site: false, ...part }, stack, i);
  if (cond.library && !only({ library: cond.library })) return frame.library === null ? `has no library (from LIB)${quote(raw?.library, ', library ')}` : `is from ${frame.library}, not the library${quote(raw?.library)}`;
  if (cond.file && !only({ file: cond.file })) return frame.file === null ? `has no source file (at FILE)${quote(raw?.file, ', file ')}` : `is at ${frame.file}, not the file${quote(raw?.file)}`;
  if (cond.jitCode !== undefined && !only({ jitCode: cond.jitCode })) return cond.jitCode ? 'is not JIT code (?? with no library and no file)' : 'is JIT code';
  for (const arg of cond.args) {
    if (only({ args: [arg] })) continue;
    const found = frame.args.find((a) => a.name === arg.name);
    if (!found) return `has no argument ${arg.name} (its arguments: ${frame.args.map((a) => a.name).join(', ') || 'none'})`;
    const want = raw?.args?.[arg.name];
    const wanted = want ? ` (the rule asks ${JSON.stringify(want)})` : '';
    return `has ${arg.name}=${found.value}${wanted}`;
  }
  return null;
}

function positionText(cond: FrameCondition, stack: PreparedStack): string {
  switch (cond.at.kind) {
    case 'top':
      return `the rule looks (at: { top: ${cond.at.n} }: frames #0–#${cond.at.n - 1})`;
    case 'within':
      return `the rule looks (at: { within: ${cond.at.n} }: the first ${cond.at.n} frames after the ${stack.blocked ? `wait primitives, which end at #${stack.acquireIndex}` : 'wait primitives; the stack has none'})`;
    case 'anywhere':
      return 'the rule looks';
  }
}

/** A rule whose frames match but that did not fire: its process-wide conditions or its unlessRules. */
function whyNotFired(matcher: Matcher, rule: ThreadRule, hit: RuleHit | null, dump: Dump, thread: ThreadAnalysis): string {
  const rules = matcher.rules;
  const blocking = rule.unlessRules.filter((id) => thread.rules.includes(id));
  if (blocking.length > 0) return `match.unlessRules: ${blocking.join(', ')} fired on this thread`;
  const pending = hit?.alternatives[0]?.pendingProcess ?? [];
  for (const index of pending) {
    const cond = rules.processConditions[index] as FrameCondition;
    const found = dump.backtraces.some((bt) => {
      const s = matcher.prepare(bt);
      return s.frames.some((_, i) => frameMatches(cond, s, i));
    });
    if (!found) return 'match.processHas: no backtrace of the dump has a frame the rule requires of the process';
  }
  return 'it matched, but another of its alternatives was taken and did not hold';
}

/** `#3 ___pthread_mutex_lock`. */
function frameText(stack: PreparedStack, i: number): string {
  const f = stack.frames[i];
  return f ? `#${f.level} ${f.function}` : `#${i}`;
}

/** ` (function: pthread_mutex_lock)`: how a condition was written, short. */
function quote(raw: FrameConditionRaw | NamePatternRaw | undefined, prefix = ' '): string {
  if (raw === undefined) return '';
  if (typeof raw === 'object' && !Array.isArray(raw) && ('function' in raw || 'library' in raw || 'file' in raw || 'jitCode' in raw || 'at' in raw)) {
    const c = raw as FrameConditionRaw;
    const parts: string[] = [];
    if (c.function !== undefined) parts.push(`function ${patternText(c.function)}`);
    if (c.library !== undefined) parts.push(`library ${patternText(c.library)}`);
    if (c.file !== undefined) parts.push(`file ${patternText(c.file)}`);
    if (c.jitCode !== undefined) parts.push(`jitCode ${c.jitCode}`);
    return parts.length > 0 ? `${prefix}(${parts.join(', ')})` : '';
  }
  return `${prefix}${patternText(raw as NamePatternRaw)}`;
}

function patternText(p: NamePatternRaw): string {
  const list = (x: string | string[]): string => {
    const items = Array.isArray(x) ? x : [x];
    const shown = items.slice(0, 3).join(' | ');
    return items.length > 3 ? `${shown} | … (${items.length - 3} more)` : shown;
  };
  if (typeof p === 'string' || Array.isArray(p)) return list(p);
  const parts: string[] = [];
  if (p.exact !== undefined) parts.push(list(p.exact));
  if (p.prefix !== undefined) parts.push(`prefix ${list(p.prefix)}`);
  if (p.glob !== undefined) parts.push(`glob ${list(p.glob)}`);
  if (p.regex !== undefined) parts.push(`regex /${p.regex}/`);
  return `${parts.join(' or ')}${p.underscores === 'ignore' ? ' (leading underscores ignored)' : ''}`;
}

/** The explanation as text: the thread, the rules that fired, matched and nearly matched, each with why. */
export function renderExplanation(e: ExplanationInput): string {
  const t = e.thread;
  const lines: string[] = [];
  const who = `Thread ${t.key}${t.lwp !== null ? ` (LWP ${t.lwp})` : ''}${t.name ? ` "${t.name}"` : ''}`;
  lines.push(`${who}: ${t.stateText}${t.stateRule ? ` (state from ${t.stateRule})` : ''}`);
  lines.push(e.primitives.acquire !== null ? `  ${e.primitives.count} wait primitive frame${e.primitives.count === 1 ? '' : 's'} on top; acquire site ${e.primitives.acquire}` : '  not blocked: frame #0 is no wait primitive');
  const group = (title: string, status: RuleVerdict['status']): void => {
    const list = e.rules.filter((r) => r.status === status);
    lines.push('', `${title} (${list.length}):`);
    if (list.length === 0) lines.push('  none');
    const width = Math.max(0, ...list.map((r) => r.ruleId.length));
    for (const r of list) {
      if (status === 'fired') lines.push(`  ${r.ruleId.padEnd(width)}  at ${r.site ?? '?'}`);
      else if (status === 'matched') lines.push(`  ${r.ruleId.padEnd(width)}  at ${r.site ?? '?'}, but did not fire: ${r.why}`);
      else lines.push(`  ${r.ruleId.padEnd(width)}  ${r.passed}/${r.total} conditions; ${r.why}`);
    }
  };
  group('Fired', 'fired');
  if (e.rules.some((r) => r.status === 'matched')) group('Matched its frames, did not fire', 'matched');
  group('Nearly matched (the first condition that failed)', 'near');
  lines.push('', `${e.unrelated} other rule${e.unrelated === 1 ? '' : 's'}: no frame has a function they name.`);
  return `${lines.join('\n')}\n`;
}

type ExplanationInput = Pick<ThreadExplanation, 'thread' | 'primitives' | 'rules' | 'unrelated'>;
