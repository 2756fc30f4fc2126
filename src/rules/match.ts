/**
 * Runs thread rules over one backtrace. Per-backtrace work only: what depends on other threads
 * (`processHas`, `unlessRules`, all-of waits) is left as data in the hits and settled once the
 * whole dump has been read (see analyze/), so a dump can be analysed while it streams.
 *
 * Two paths give the same hits. The direct one (`prepareStack` + `matchBacktrace`) searches every
 * rule's shape in the stack. The memoised one (`prepareStackFor`) first reduces the stack to a
 * fingerprint — per frame, its interned name and the answers of the few frame conditions that look
 * past the name (library, file, jitCode, args) — and reuses the search of an earlier stack with the
 * same fingerprint: thread pools print the same stack hundreds of times, so a 10,000-thread dump
 * holds about a thousand distinct ones. Only captured argument values are read per stack.
 */
import type { Backtrace, Frame } from '../model/dump.js';
import { detach } from '../model/text-hygiene.js';
import { hasPointerValue, parseArgValue, type ParsedArgValue } from './arg-values.js';
import { normalizeFunctionName } from './function-names.js';
import { internEpoch, leadingCharsOf, type NameTest } from './pattern.js';
import type { FrameCondition, LoadedRules, Shape, ThreadRule } from './types.js';

/** A backtrace prepared for matching: normalised names and where the wait primitives end. */
export interface PreparedStack {
  frames: Frame[];
  /** Shared with other stacks of the same fingerprint: read only. */
  names: string[];
  /** Interned ids of `names` (valid for `epoch`), so patterns can memoise by number. Read only. */
  ids: number[];
  epoch: number;
  /** Index of the first frame that is not a wait primitive (0 when the top frame is not one). */
  acquireIndex: number;
  /** True when the stack starts with at least one wait primitive. */
  blocked: boolean;
  truncated: boolean;
  /** Set by prepareStackFor: the memo entry of this stack's fingerprint (under `memo.rules`). */
  memo?: StackMemo;
}

/**
 * Raw function name → its normalised form, shared by every stack: a dump of 100,000 threads holds
 * a few thousand distinct names, so each is normalised once, and every stack refers to the same
 * string objects (whose hashes V8 caches), which keeps the patterns' memo lookups cheap.
 */
const INTERN_LIMIT = 65536;
interface Interned {
  name: string;
  id: number;
}
const interned = new Map<string, Interned>();
const idsByName = new Map<string, number>();
/** Interned id → normalised name (this epoch). */
const namesById: string[] = [];

function internName(raw: string): Interned {
  let entry = interned.get(raw);
  if (entry === undefined) {
    if (interned.size >= INTERN_LIMIT) {
      interned.clear();
      idsByName.clear();
      namesById.length = 0;
      internEpoch.value++;
    }
    // Keys and names are copied out of the input: a parser string is often a slice that would
    // keep its whole input chunk alive as long as this table holds it.
    const name = detach(normalizeFunctionName(raw));
    let id = idsByName.get(name);
    if (id === undefined) {
      id = idsByName.size;
      idsByName.set(name, id);
      namesById.push(name);
    }
    entry = { name, id };
    interned.set(detach(raw), entry);
  }
  return entry;
}

/** Where the leading wait primitives end, and whether there are any (sets both on `stack`). */
function findAcquire(stack: PreparedStack, primitives: FrameCondition[], nb: NameBits | null = null): void {
  const n = stack.frames.length;
  let i = 0;
  if (nb === null) while (i < n && anyMatches(primitives, stack, i)) i++;
  else while (i < n && anyMatchesBits(primitives, nb.primitiveTests, stack, i, nb)) i++;
  stack.blocked = i > 0;
  // A stack made only of primitives (cut right under them) has its outermost frame as the site.
  stack.acquireIndex = Math.min(i, Math.max(0, n - 1));
}

function anyMatches(conds: FrameCondition[], stack: PreparedStack, i: number): boolean {
  for (const c of conds) if (frameMatches(c, stack, i)) return true;
  return false;
}

function anyMatchesBits(conds: FrameCondition[], tests: Int32Array, stack: PreparedStack, i: number, nb: NameBits): boolean {
  for (let k = 0; k < conds.length; k++) if (matchesWithTest(conds[k] as FrameCondition, tests[k] as number, stack, i, nb)) return true;
  return false;
}

/** Interns the names of `frames`; returns the epoch all ids belong to, or -1 when the table was cleared midway twice. */
function internFrames(frames: Frame[], names: string[], ids: number[]): number {
  for (let attempt = 0; attempt < 2; attempt++) {
    const epoch = internEpoch.value;
    for (let i = 0; i < frames.length; i++) {
      const entry = internName((frames[i] as Frame).function);
      names[i] = entry.name;
      ids[i] = entry.id;
    }
    // The table was cleared in the middle of this stack: earlier ids are from the old numbering.
    if (epoch === internEpoch.value) return epoch;
  }
  return -1;
}

export function prepareStack(bt: Pick<Backtrace, 'frames' | 'truncated'>, primitives: FrameCondition[]): PreparedStack {
  const frames = bt.frames;
  const names: string[] = new Array<string>(frames.length);
  const ids: number[] = new Array<number>(frames.length);
  const epoch = internFrames(frames, names, ids);
  const stack: PreparedStack = { frames, names, ids, epoch, acquireIndex: 0, blocked: false, truncated: bt.truncated, memo: undefined };
  findAcquire(stack, primitives);
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

/**
 * Where a rule matched, without the argument values: the frame positions of its base shape and of
 * each `anyOf` shape that matched (null when the rule has no `anyOf`). Depends only on what the
 * stack fingerprint holds, so the memo keeps it.
 */
interface RulePositions {
  rule: ThreadRule;
  base: number[];
  alts: Array<{ shape: Shape; positions: number[] }> | null;
  /**
   * The hit itself when it captures no argument (then it is the same for every stack of the
   * fingerprint): made once, frozen, shared. Undefined until first built; null when it captures.
   */
  fixed?: RuleHit | null;
}

function rulePositions(rule: ThreadRule, stack: PreparedStack, present: NameBits | null = null): RulePositions | null {
  const base = shapePositions(rule.base, stack, present);
  if (!base) return null;
  if (rule.anyOf.length === 0) return { rule, base, alts: null, fixed: undefined };
  const alts: Array<{ shape: Shape; positions: number[] }> = [];
  for (const shape of rule.anyOf) {
    const positions = shapePositions(shape, stack, present);
    if (positions) alts.push({ shape, positions });
  }
  return alts.length > 0 ? { rule, base, alts, fixed: undefined } : null;
}

/** The hit for matched positions: sites, and captures read from the frames at those positions. */
function buildHit(found: RulePositions, stack: PreparedStack): RuleHit {
  const { rule } = found;
  const base = shapeAlternative(rule.base, found.base, stack);
  if (found.alts === null) return { ruleId: rule.id, alternatives: [base] };
  const alternatives: HitAlternative[] = [];
  for (const { shape, positions } of found.alts) {
    const alt = shapeAlternative(shape, positions, stack);
    const useBaseSite = rule.base.frames.length > 0 && !shape.frames.some((f) => f.site);
    // Without base captures or base conditions the merged values are the alternative's own (a
    // fresh object, and the rule's own processHas list, as the base alternative's already is).
    alternatives.push({
      siteIndex: useBaseSite ? base.siteIndex : alt.siteIndex,
      captures: isEmpty(base.captures) ? alt.captures : { ...alt.captures, ...base.captures },
      pendingProcess: base.pendingProcess.length === 0 ? alt.pendingProcess : [...base.pendingProcess, ...alt.pendingProcess],
    });
  }
  return { ruleId: rule.id, alternatives };
}

function isEmpty(record: Record<string, unknown>): boolean {
  for (const _ in record) return false;
  return true;
}

export function matchThreadRule(rule: ThreadRule, stack: PreparedStack): RuleHit | null {
  const found = rulePositions(rule, stack);
  return found ? buildHit(found, stack) : null;
}

/** For each thread rule of a rule set, the name tests its base shape requires (each must match some frame). */
const requiredTests = new WeakMap<LoadedRules, NameTest[][]>();

/**
 * Runs every thread rule on one stack. A stack from prepareStackFor reuses the rule positions
 * found for an earlier stack of the same fingerprint and only reads the captured arguments.
 */
export function matchBacktrace(rules: LoadedRules, stack: PreparedStack): RuleHit[] {
  const entry = stack.memo;
  if (entry !== undefined && entry.rules === rules) {
    if (entry.hits !== null) return entry.hits;
    const hits: RuleHit[] = [];
    let fixed = true;
    for (const found of entry.positions) {
      if (found.fixed === undefined) found.fixed = capturesNothing(found) ? freezeHit(buildHit(found, stack)) : null;
      if (found.fixed === null) fixed = false;
      hits.push(found.fixed ?? buildHit(found, stack));
    }
    // No hit reads an argument: every stack of this fingerprint gets this (frozen) list.
    if (fixed) entry.hits = Object.freeze(hits) as RuleHit[];
    return hits;
  }
  return matchPositions(rules, stack).map((found) => buildHit(found, stack));
}

function capturesNothing(found: RulePositions): boolean {
  const none = (shape: Shape): boolean => shape.frames.every((c) => c.args.length === 0);
  return none(found.rule.base) && (found.alts ?? []).every((a) => none(a.shape));
}

function freezeHit(hit: RuleHit): RuleHit {
  for (const alt of hit.alternatives) Object.freeze(alt.captures);
  hit.alternatives.forEach((alt) => Object.freeze(alt));
  Object.freeze(hit.alternatives);
  return Object.freeze(hit);
}

/**
 * Every thread rule's positions on one stack, in rule order. A rule whose base shape requires a
 * function name that no frame has is skipped before its shape is searched: most rules concern a
 * few functions and most stacks hold none of them.
 */
function matchPositions(rules: LoadedRules, stack: PreparedStack, present: NameBits | null = null): RulePositions[] {
  let required = requiredTests.get(rules);
  if (required === undefined) {
    required = rules.threadRules.map((rule) => rule.base.frames.flatMap((f) => (f.fn ? [f.fn] : [])));
    requiredTests.set(rules, required);
  }
  const out: RulePositions[] = [];
  const n = stack.frames.length;
  const ids = stack.epoch === internEpoch.value ? stack.ids : null;
  const threadRules = rules.threadRules;
  next: for (let r = 0; r < threadRules.length; r++) {
    if (present !== null) {
      // The name tests some frame of the stack passes, as bits: one lookup per required test.
      for (const t of present.required[r] as Int32Array) if (((present.bits[t >>> 5] as number) & (1 << (t & 31))) === 0) continue next;
      const hit = rulePositions(threadRules[r] as ThreadRule, stack, present);
      if (hit) out.push(hit);
      continue;
    }
    for (const fn of required[r] as NameTest[]) {
      let found = false;
      for (let i = 0; i < n && !found; i++) found = fn(stack.names[i] as string, ids === null ? undefined : ids[i]);
      if (!found) continue next;
    }
    const hit = rulePositions(threadRules[r] as ThreadRule, stack);
    if (hit) out.push(hit);
  }
  return out;
}

/** Frame positions of a shape's frame conditions (empty when it has none), or null when it does not match. */
function shapePositions(shape: Shape, stack: PreparedStack, present: NameBits | null = null): number[] | null {
  if (shape.blocked !== undefined && shape.blocked !== stack.blocked) return null;
  if (shape.truncated !== undefined && shape.truncated !== stack.truncated) return null;
  // With the stack's name-test bits, a condition whose name test no frame passes matches nowhere.
  if (present !== null) for (const cond of shape.frames) if (cond.fn !== undefined && noFramePasses(present, cond.fn)) return null;
  for (const cond of shape.none) {
    if (present !== null && cond.fn !== undefined && noFramePasses(present, cond.fn)) continue;
    for (let i = 0; i < stack.frames.length; i++) if (matchesAt(cond, stack, i, present)) return null;
  }
  if (shape.frames.length === 0) return EMPTY_POSITIONS;
  return findSequence(shape.frames, stack, present);
}

const EMPTY_POSITIONS: number[] = [];

function shapeAlternative(shape: Shape, positions: number[], stack: PreparedStack): HitAlternative {
  if (shape.frames.length === 0) {
    return { siteIndex: stack.acquireIndex, captures: {}, pendingProcess: shape.processHas };
  }
  const captures: Record<string, ParsedArgValue> = {};
  shape.frames.forEach((cond, k) => {
    if (cond.args.length === 0) return;
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

/**
 * Finds frame indexes p0 < p1 < … for the conditions, inner to outer. Leftmost choices are tried
 * first; a memo on (condition, start) keeps the search at O(conditions × frames²) even with
 * `next`/`maxGap` constraints that make the leftmost choice wrong.
 */
function findSequence(conds: FrameCondition[], stack: PreparedStack, nb: NameBits | null): number[] | null {
  const n = stack.frames.length;
  if (conds.length === 1) {
    // Most rules anchor on one frame: a plain scan of the frames its position allows.
    const cond = conds[0] as FrameCondition;
    const [lo, hi] = positionRange(cond, stack);
    for (let i = lo; i < hi; i++) if (matchesAt(cond, stack, i, nb)) return [i];
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
      if (!matchesAt(cond, stack, i, nb)) continue;
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
  if (!frame || !inPosition(cond, stack, i)) return false;
  if (cond.fn && !cond.fn(stack.names[i] as string, stack.epoch === internEpoch.value ? stack.ids[i] : undefined)) return false;
  return frameDetailsMatch(cond, frame);
}

function inPosition(cond: FrameCondition, stack: PreparedStack, i: number): boolean {
  switch (cond.at.kind) {
    case 'top':
      return i < cond.at.n;
    case 'within':
      return i >= stack.acquireIndex && i < stack.acquireIndex + cond.at.n;
    case 'anywhere':
      return true;
  }
}

/**
 * frameMatches, with the name test read from the frame's name-test bits when `nb` is given (the
 * memo's miss path: no pattern closure is called, so this code stays small and fast to compile).
 */
function matchesAt(cond: FrameCondition, stack: PreparedStack, i: number, nb: NameBits | null): boolean {
  if (nb === null) return frameMatches(cond, stack, i);
  return matchesWithTest(cond, testNumber(nb, cond.fn), stack, i, nb);
}

/** `t`: the number of the condition's name test (-1: it has none; -2: unknown, test it directly). */
function matchesWithTest(cond: FrameCondition, t: number, stack: PreparedStack, i: number, nb: NameBits): boolean {
  if (t === -2) return frameMatches(cond, stack, i);
  const frame = stack.frames[i];
  if (!frame || !inPosition(cond, stack, i)) return false;
  if (t >= 0 && (((nb.frameBits[i] as Int32Array)[t >>> 5] as number) & (1 << (t & 31))) === 0) return false;
  return frameDetailsMatch(cond, frame);
}

/** The matcher's number for a name test, -1 for none, -2 for one it does not know; remembers the last one asked (scans ask for one condition frame after frame). */
function testNumber(nb: NameBits, fn: NameTest | undefined): number {
  if (fn === undefined) return -1;
  if (fn !== nb.lastTest) {
    nb.lastTest = fn;
    nb.lastNumber = nb.testIndex.get(fn) ?? -2;
  }
  return nb.lastNumber;
}

/** The parts of a frame condition that look past the function name: library, file, jitCode, args. */
function frameDetailsMatch(cond: FrameCondition, frame: Frame): boolean {
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
    if (arg.symbol === undefined) {
      // Only whether it holds a pointer (most argument conditions): no parse, no normalising.
      if (arg.address !== undefined && hasPointerValue(found.value) !== arg.address) return false;
    } else {
      const parsed = parseArgValue(found.value);
      if (arg.symbol && (parsed.symbol === null || !arg.symbol(parsed.symbol))) return false;
      if (arg.address !== undefined && (parsed.address !== null) !== arg.address) return false;
    }
  }
  return true;
}

const looksPastName = (c: FrameCondition): boolean => c.library !== undefined || c.file !== undefined || c.jitCode !== undefined || c.args.length > 0;

/** Marks the process-wide conditions (`processHas`) this stack satisfies (memoised per fingerprint for prepareStackFor stacks). */
export function markProcessConditions(rules: LoadedRules, stack: PreparedStack, flags: boolean[]): void {
  const entry = stack.memo;
  const met = entry !== undefined && entry.rules === rules ? entry.process : processConditionsMet(rules, stack, null);
  for (const i of met) flags[i] = true;
}

function processConditionsMet(rules: LoadedRules, stack: PreparedStack, nb: NameBits | null): number[] {
  const met: number[] = [];
  rules.processConditions.forEach((cond, i) => {
    const t = nb === null ? -1 : testNumber(nb, cond.fn);
    for (let f = 0; f < stack.frames.length; f++) {
      if (nb === null ? frameMatches(cond, stack, f) : matchesWithTest(cond, t, stack, f, nb)) {
        met.push(i);
        return;
      }
    }
  });
  return met;
}

// ---------------------------------------------------------------------------------------------
// The fingerprint memo.

/** What every stack of one fingerprint shares. */
export interface StackMemo {
  rules: LoadedRules;
  codes: Float64Array;
  truncated: boolean;
  names: string[];
  ids: number[];
  acquireIndex: number;
  blocked: boolean;
  /** Every thread rule's positions, in rule order. */
  positions: RulePositions[];
  /** The process-wide conditions some frame meets. */
  process: number[];
  /** matchBacktrace's answer, once it is known to capture no argument (frozen), else null. */
  hits: RuleHit[] | null;
  /** Left to the analysis (analyze/summary.ts): what it last made of a stack of this fingerprint; null until then. */
  summary: unknown;
  next: StackMemo | null;
}

/** Fingerprints a rule set remembers before it starts over (bounds memory when every stack differs). */
const MEMO_LIMIT = 8192;
/** Frames the remembered fingerprints may hold in all (~16 bytes a frame), whatever their lengths. */
const MEMO_FRAME_LIMIT = 1 << 20;
/** Frames a stack may have to be memoised (longer ones are rare and matched directly). */
const MEMO_MAX_FRAMES = 4096;
/** A frame code is `nameId + 2^16 × detailBits`; names have ids below INTERN_LIMIT = 2^16. */
const NAME_SPAN = 65536;
/** Detail bits per frame that fit an exact double with the name id (2^16 × 2^31 < 2^53). */
const MAX_DETAIL_BITS = 31;

/** What the rule set's conditions say about one interned name, computed once per name. */
interface NameFacts {
  /** Bit t set: name test t of the matcher passes. */
  bits: Int32Array;
  /**
   * Indexes into Matcher.detailed of the conditions whose name test passes and whose other parts
   * (library, file, jitCode, args) can differ between frames of this name: one fingerprint bit each.
   */
  details: Int32Array;
}

/**
 * A stack's frames as name-test bits (the memo's miss path): per frame, and OR-ed over the stack;
 * with the matcher's test numbering and, per thread rule, the tests its base shape requires.
 */
interface NameBits {
  bits: Int32Array;
  frameBits: Int32Array[];
  required: Int32Array[];
  testIndex: Map<NameTest, number>;
  /** Test numbers of the rule set's primitives, in order. */
  primitiveTests: Int32Array;
  lastTest: NameTest | undefined;
  lastNumber: number;
}

function noFramePasses(present: NameBits, fn: NameTest): boolean {
  const t = testNumber(present, fn);
  return t >= 0 && ((present.bits[t >>> 5] as number) & (1 << (t & 31))) === 0;
}

interface Matcher {
  /** Every distinct name test (`function:` pattern) of the rule set's frame conditions. */
  tests: NameTest[];
  testIndex: Map<NameTest, number>;
  /** Test numbers of the rule set's primitives, in order (-1: no name test). */
  primitiveTests: Int32Array;
  /** Per thread rule: indexes into `tests` of the name tests its base shape requires. */
  required: Int32Array[];
  /** Every frame condition of the rule set that looks past the name. */
  detailed: FrameCondition[];
  /** Per condition of `detailed`, the number of its name test (-1: none). */
  detailedTests: Int32Array;
  /** Which tests a name can pass, by its first character (see testsByChar). */
  testsByChar: TestsByChar;
  facts: Array<NameFacts | undefined>;
  /** Frame codes beyond MAX_DETAIL_BITS: `nameId:bits` → a code below 0. */
  wideCodes: Map<string, number>;
  table: Map<number, StackMemo>;
  size: number;
  /** Frames held by the remembered fingerprints. */
  frames: number;
  epoch: number;
  /** Scratch buffers, grown as needed. */
  codes: Float64Array;
  ids: number[];
}

const matchers = new WeakMap<LoadedRules, Matcher>();

function matcherOf(rules: LoadedRules): Matcher {
  let m = matchers.get(rules);
  if (m === undefined) {
    const conds = new Set<FrameCondition>([...rules.primitives, ...rules.processConditions]);
    for (const rule of rules.threadRules) {
      for (const shape of [rule.base, ...rule.anyOf]) for (const c of [...shape.frames, ...shape.none]) conds.add(c);
    }
    const testIndex = new Map<NameTest, number>();
    for (const c of conds) if (c.fn && !testIndex.has(c.fn)) testIndex.set(c.fn, testIndex.size);
    m = {
      tests: [...testIndex.keys()],
      testIndex,
      primitiveTests: Int32Array.from(rules.primitives, (c) => (c.fn ? (testIndex.get(c.fn) as number) : -1)),
      required: rules.threadRules.map((rule) => Int32Array.from(rule.base.frames.flatMap((f) => (f.fn ? [testIndex.get(f.fn) as number] : [])))),
      detailed: [...conds].filter(looksPastName),
      detailedTests: Int32Array.from([...conds].filter(looksPastName), (c) => (c.fn ? (testIndex.get(c.fn) as number) : -1)),
      testsByChar: testsByChar([...testIndex.keys()]),
      facts: [],
      wideCodes: new Map(),
      table: new Map(),
      size: 0,
      frames: 0,
      epoch: internEpoch.value,
      codes: new Float64Array(64),
      ids: [],
    };
    matchers.set(rules, m);
  }
  if (m.epoch !== internEpoch.value) resetMatcher(m);
  return m;
}

function resetMatcher(m: Matcher): void {
  m.facts = [];
  m.wideCodes.clear();
  m.table.clear();
  m.size = 0;
  m.frames = 0;
  m.epoch = internEpoch.value;
}

/**
 * The rule set's name tests grouped by the first character a passing name must have
 * (pattern.ts, leadingCharsOf): most names can pass only a few of the dozens of tests, so a
 * new name calls those alone (30 MB bench dump, 1,500 names, 67 tests: factsOf ~36 → ~11 ms
 * inclusive in CLI profiles, median of 4 runs each).
 */
interface TestsByChar {
  /** Tests any name may pass. */
  any: Int32Array;
  /** By the name's first character. */
  plain: Map<number, Int32Array>;
  /** By the first character after the name's leading underscores (`underscores: ignore`). */
  stripped: Map<number, Int32Array>;
}

function testsByChar(tests: NameTest[]): TestsByChar {
  const any: number[] = [];
  const plain = new Map<number, number[]>();
  const stripped = new Map<number, number[]>();
  tests.forEach((test, t) => {
    const leading = leadingCharsOf(test);
    if (leading === undefined) return void any.push(t);
    const by = leading.underscores ? stripped : plain;
    for (const c of leading.chars) {
      const list = by.get(c);
      if (list === undefined) by.set(c, [t]);
      else list.push(t);
    }
  });
  const typed = (by: Map<number, number[]>): Map<number, Int32Array> => new Map([...by].map(([c, list]) => [c, Int32Array.from(list)]));
  return { any: Int32Array.from(any), plain: typed(plain), stripped: typed(stripped) };
}

/** Sets in `bits` the tests of `list` that `name` passes. */
function runTests(m: Matcher, list: Int32Array | undefined, name: string, id: number, bits: Int32Array): void {
  if (list === undefined) return;
  for (let k = 0; k < list.length; k++) {
    const t = list[k] as number;
    if ((m.tests[t] as NameTest)(name, id)) bits[t >>> 5] = (bits[t >>> 5] as number) | (1 << (t & 31));
  }
}

function factsOf(m: Matcher, name: string, id: number): NameFacts {
  let facts = m.facts[id];
  if (facts === undefined) {
    const bits = new Int32Array((m.tests.length + 31) >>> 5);
    // Only the tests the name's first character (after underscores, for some) allows can pass.
    const byChar = m.testsByChar;
    runTests(m, byChar.any, name, id, bits);
    runTests(m, byChar.plain.get(name.charCodeAt(0)), name, id, bits);
    let u = 0;
    while (name.charCodeAt(u) === 95 /* _ */) u++;
    runTests(m, byChar.stripped.get(name.charCodeAt(u)), name, id, bits);
    const details: number[] = [];
    m.detailed.forEach((c, j) => {
      const t = m.detailedTests[j] as number;
      if (t >= 0 && ((bits[t >>> 5] as number) & (1 << (t & 31))) === 0) return;
      // `jitCode` reads the raw name `??`, which only the name `??` comes from: for any other
      // name a jitCode-only condition has one answer for every frame, so it needs no bit.
      if (name !== '??' && c.jitCode === true) return;
      if (name !== '??' && c.jitCode === false && c.library === undefined && c.file === undefined && c.args.length === 0) return;
      details.push(j);
    });
    facts = { bits, details: Int32Array.from(details) };
    m.facts[id] = facts;
  }
  return facts;
}

/** The name-test bits of a stack's frames, each and together. */
function nameBits(m: Matcher, stack: PreparedStack): NameBits {
  const bits = new Int32Array((m.tests.length + 31) >>> 5);
  const frameBits: Int32Array[] = new Array<Int32Array>(stack.ids.length);
  for (let i = 0; i < stack.ids.length; i++) {
    const own = factsOf(m, stack.names[i] as string, stack.ids[i] as number).bits;
    frameBits[i] = own;
    for (let w = 0; w < bits.length; w++) bits[w] = (bits[w] as number) | (own[w] as number);
  }
  return { bits, frameBits, required: m.required, testIndex: m.testIndex, primitiveTests: m.primitiveTests, lastTest: undefined, lastNumber: -1 };
}

/**
 * prepareStack for the analysis of a whole dump under `rules`: the stack's names, acquire site and
 * `blocked` come from the memo when a stack with the same fingerprint was seen, and matchBacktrace
 * and markProcessConditions reuse that stack's search. Same results as prepareStack.
 *
 * Kept small on purpose: it runs once per backtrace, while the miss path (remember) runs once per
 * distinct stack and stays out of this function's optimised code.
 */
export function prepareStackFor(rules: LoadedRules, bt: Pick<Backtrace, 'frames' | 'truncated'>): PreparedStack {
  const frames = bt.frames;
  const n = frames.length;
  if (n > MEMO_MAX_FRAMES) return prepareStack(bt, rules.primitives);
  const m = matcherOf(rules);
  if (m.codes.length < n) m.codes = new Float64Array(Math.max(n, m.codes.length * 2));
  const epoch = internEpoch.value;
  const h = fingerprint(m, frames, n, bt.truncated);
  // The interning table started over in the middle of this stack: its ids mix two numberings.
  if (epoch !== internEpoch.value) {
    resetMatcher(m);
    return prepareStack(bt, rules.primitives);
  }
  const codes = m.codes;
  for (let e = m.table.get(h) ?? null; e !== null; e = e.next) {
    if (e.codes.length !== n || e.truncated !== bt.truncated) continue;
    let same = true;
    for (let i = 0; i < n && same; i++) same = e.codes[i] === codes[i];
    if (same) return { frames, names: e.names, ids: e.ids, epoch, acquireIndex: e.acquireIndex, blocked: e.blocked, truncated: bt.truncated, memo: e };
  }
  return remember(m, rules, bt, h, epoch);
}

/** Fills `m.codes` and `m.ids` for the frames; returns the fingerprint's hash. */
function fingerprint(m: Matcher, frames: Frame[], n: number, truncated: boolean): number {
  const codes = m.codes;
  const ids = m.ids;
  let h = 0x811c9dc5 ^ n ^ (truncated ? 0x5bd1e995 : 0);
  for (let i = 0; i < n; i++) {
    const frame = frames[i] as Frame;
    const entry = internName(frame.function);
    const id = entry.id;
    ids[i] = id;
    const details = (m.facts[id] ?? factsOf(m, entry.name, id)).details;
    const code = details.length === 0 ? id : detailCode(m, id, details, frame);
    codes[i] = code;
    h = Math.imul(h ^ (code >>> 0), 16777619);
    if (code >= 4294967296) h = Math.imul(h ^ Math.floor(code / 4294967296), 16777619);
  }
  return h;
}

/** A frame's code when some conditions look past its name: `nameId + 2^16 × bits` (or a wide code). */
function detailCode(m: Matcher, id: number, details: Int32Array, frame: Frame): number {
  if (details.length <= MAX_DETAIL_BITS) {
    let bits = 0;
    for (let j = 0; j < details.length; j++) if (frameDetailsMatch(m.detailed[details[j] as number] as FrameCondition, frame)) bits += 2 ** j;
    return id + NAME_SPAN * bits;
  }
  let key = `${id}:`;
  for (let j = 0; j < details.length; j++) key += frameDetailsMatch(m.detailed[details[j] as number] as FrameCondition, frame) ? '1' : '0';
  let wide = m.wideCodes.get(key);
  if (wide === undefined) {
    wide = -1 - m.wideCodes.size;
    m.wideCodes.set(key, wide);
  }
  return wide;
}

/** A fingerprint not seen yet: prepares the stack the direct way and keeps it in the memo. */
function remember(m: Matcher, rules: LoadedRules, bt: Pick<Backtrace, 'frames' | 'truncated'>, h: number, epoch: number): PreparedStack {
  const n = bt.frames.length;
  const stackIds = m.ids.slice(0, n);
  // Every PreparedStack is made with the same fields in the same order (memo included), so the
  // code that reads them sees one object shape.
  const stack: PreparedStack = { frames: bt.frames, names: stackIds.map((id) => namesById[id] as string), ids: stackIds, epoch, acquireIndex: 0, blocked: false, truncated: bt.truncated, memo: undefined };
  const nb = nameBits(m, stack);
  findAcquire(stack, rules.primitives, nb);
  if (m.size >= MEMO_LIMIT || m.frames + n > MEMO_FRAME_LIMIT) {
    m.table.clear();
    m.size = 0;
    m.frames = 0;
  }
  const entry: StackMemo = {
    rules,
    codes: m.codes.slice(0, n),
    truncated: bt.truncated,
    names: stack.names,
    ids: stack.ids,
    acquireIndex: stack.acquireIndex,
    blocked: stack.blocked,
    positions: matchPositions(rules, stack, nb),
    process: processConditionsMet(rules, stack, nb),
    hits: null,
    summary: null,
    next: m.table.get(h) ?? null,
  };
  m.table.set(h, entry);
  m.size++;
  m.frames += n;
  stack.memo = entry;
  return stack;
}
