/**
 * Runs thread rules over one backtrace. Per-backtrace work only: what depends on other threads
 * (`processHas`, `unlessRules`, all-of waits) is left as data in the hits and settled once the
 * whole dump has been read (see analyze/), so a dump can be analysed while it streams.
 *
 * One path. `createMatcher(rules)` compiles the rule set once: every distinct name test
 * (`function:` pattern) gets a number, and every frame condition carries its test's number. A
 * stack is reduced to a fingerprint — per frame, its interned name and the answers of the few
 * frame conditions that look past the name (library, file, jitCode, args) — and searched through
 * its frames' name-test bits (BitSet). With the memo on (the default), a stack whose fingerprint
 * was seen reuses that search: thread pools print the same stack hundreds of times, so a
 * 10,000-thread dump holds about a thousand distinct ones. With it off every stack takes the
 * same path and nothing is remembered. Only captured argument values are read per stack.
 *
 * A matcher owns every table it fills (interned names, name facts, fingerprints, answers of
 * costly patterns): one matcher per analysis session (analyze/analyzer.ts), nothing kept in the
 * module.
 */
import type { Backtrace, Frame } from '../model/dump.js';
import { detach } from '../model/text-hygiene.js';
import { hasPointerValue, parseArgValue, type ParsedArgValue } from './arg-values.js';
import { BitSet } from './bit-set.js';
import { normalizeFunctionName } from './function-names.js';
import type { NameTest } from './pattern.js';
import type { FrameCondition, LoadedRules, Position, Shape, ThreadRule } from './types.js';

/** A backtrace prepared for matching: normalised names and where the wait primitives end. */
export interface PreparedStack<Memo = unknown> {
  frames: Frame[];
  /** Shared with other stacks of the same fingerprint: read only. */
  names: string[];
  /** Index of the first frame that is not a wait primitive (0 when the top frame is not one). */
  acquireIndex: number;
  /** True when the stack starts with at least one wait primitive. */
  blocked: boolean;
  truncated: boolean;
  /** What the matcher found for every stack of this one's fingerprint. */
  fingerprint: Fingerprint<Memo>;
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
 * What every stack of one fingerprint shares: the search's answers, and a slot for the caller's
 * own memo of such stacks (`Memo`, e.g. analyze/summary.ts StackMemo).
 */
export interface Fingerprint<Memo = unknown> {
  codes: Float64Array;
  truncated: boolean;
  names: string[];
  acquireIndex: number;
  blocked: boolean;
  /**
   * Where the thread waits, as reports show it: the first frame from the acquire site on that no
   * lock wrapper (LoadedRules.lockWrappers) matches; the acquire site when all after it are.
   */
  waitSite: number;
  /** Every thread rule's positions, in rule order. */
  positions: RulePositions[];
  /** The process-wide conditions some frame meets. */
  process: number[];
  /** match()'s answer, once it is known to capture no argument (frozen), else null. */
  hits: RuleHit[] | null;
  /** The caller's memo for stacks of this fingerprint; null until the caller sets it. */
  memo: Memo | null;
  next: Fingerprint<Memo> | null;
}

export interface MatcherOptions {
  /** Remember fingerprints (default true). Off, every stack is searched afresh on the same path. */
  memo?: boolean;
}

export interface Matcher<Memo = unknown> {
  readonly rules: LoadedRules;
  /** The stack's names, acquire site and rule positions (from the memo when its fingerprint was seen). */
  prepare(bt: Pick<Backtrace, 'frames' | 'truncated'>): PreparedStack<Memo>;
  /** Every thread rule's hit on a prepared stack, in rule order. */
  match(stack: PreparedStack<Memo>): RuleHit[];
  /** Sets `flags[i]` for each process-wide condition (`processHas`) some frame of the stack meets. */
  markProcessConditions(stack: PreparedStack<Memo>, flags: boolean[]): void;
  /** One rule (of this rule set, or one cut from its conditions) on a prepared stack: for explain. */
  matchRule(rule: ThreadRule, stack: PreparedStack<Memo>): RuleHit | null;
}

// ---------------------------------------------------------------------------------------------
// The compiled rule set.

/** A frame condition with its name test's number (test 0 passes every name: a condition with no `function:`). */
interface Cond {
  source: FrameCondition;
  test: number;
  at: Position;
  next: boolean;
  maxGap: number | undefined;
  library: StringTest | undefined;
  file: StringTest | undefined;
  jitCode: boolean | undefined;
  args: Array<{ name: string; value: StringTest | undefined; symbol: StringTest | undefined; address: boolean | undefined }>;
}

type StringTest = (s: string) => boolean;

interface CompiledShape {
  source: Shape;
  frames: Cond[];
  none: Cond[];
}

interface CompiledRule {
  rule: ThreadRule;
  base: CompiledShape;
  anyOf: CompiledShape[];
  /** Numbers of the name tests the base shape requires (each must pass on some frame). */
  required: Int32Array;
}

/**
 * Where a rule matched, without the argument values: the frame positions of its base shape and of
 * each `anyOf` shape that matched (null when the rule has no `anyOf`). Depends only on what the
 * stack fingerprint holds, so the memo keeps it.
 */
export interface RulePositions {
  rule: CompiledRule;
  base: number[];
  alts: Array<{ shape: CompiledShape; positions: number[] }> | null;
  /**
   * The hit itself when it captures no argument (then it is the same for every stack of the
   * fingerprint): made once, frozen, shared. Undefined until first built; null when it captures.
   */
  fixed?: RuleHit | null;
}

/** What the rule set's conditions say about one name, computed once per distinct name. */
interface NameFacts {
  /** Test t passes on the name. */
  tests: BitSet;
  /**
   * Indexes into `detailed` of the conditions whose name test passes and whose other parts
   * (library, file, jitCode, args) can differ between frames of this name: one fingerprint bit each.
   */
  details: Int32Array;
}

/** A stack being searched: its frames' name-test bits, each and together. */
interface Search {
  stack: PreparedStack<unknown>;
  frameTests: BitSet[];
  present: BitSet;
}

/** The raw → normalised name table bounds memory (and keeps name ids below NAME_SPAN). */
const INTERN_LIMIT = 65536;
/** Fingerprints a matcher remembers before it starts over (bounds memory when every stack differs). */
const MEMO_LIMIT = 8192;
/** Frames the remembered fingerprints may hold in all (~16 bytes a frame), whatever their lengths. */
const MEMO_FRAME_LIMIT = 1 << 20;
/** Frames a stack may have to be fingerprinted (longer ones are rare and searched on their own). */
const MEMO_MAX_FRAMES = 4096;
/** A frame code is `nameId + 2^16 × detailBits`; names have ids below INTERN_LIMIT = 2^16. */
const NAME_SPAN = 65536;
/** Detail bits per frame that fit an exact double with the name id (2^16 × 2^31 < 2^53). */
const MAX_DETAIL_BITS = 31;
/** Answers a costly pattern remembers before it starts over; strings repeat across frames. */
const STRING_MEMO_LIMIT = 4096;
const EMPTY_POSITIONS = Object.freeze([]) as unknown as number[];

const looksPastName = (c: FrameCondition): boolean => c.library !== undefined || c.file !== undefined || c.jitCode !== undefined || c.args.length > 0;

export function createMatcher<Memo = unknown>(rules: LoadedRules, options: MatcherOptions = {}): Matcher<Memo> {
  return new RuleMatcher<Memo>(rules, options.memo ?? true);
}

class RuleMatcher<Memo> implements Matcher<Memo> {
  /** Every distinct name test; test 0 passes every name. */
  private readonly tests: NameTest[] = [];
  private readonly testIndex = new Map<NameTest, number>();
  /** Costly patterns (globs, regexes, prefixes) wrapped to remember their answers per string. */
  private readonly stringTests = new Map<NameTest, StringTest>();
  private readonly conds = new Map<FrameCondition, Cond>();
  private readonly primitives: Cond[];
  private readonly lockWrappers: Cond[];
  private readonly processConds: Cond[];
  private readonly threadRules: CompiledRule[];
  /** Every frame condition of the rule set that looks past the name. */
  private readonly detailed: Cond[];
  /** Which tests a name can pass, by its first character (see testsByChar). */
  private readonly byChar: TestsByChar;

  /** Raw function name → its normalised form and id (below INTERN_LIMIT). */
  private interned = new Map<string, { name: string; id: number }>();
  private idsByName = new Map<string, number>();
  private namesById: string[] = [];
  /** By name id. */
  private facts: Array<NameFacts | undefined> = [];
  /** Frame codes beyond MAX_DETAIL_BITS: `nameId:bits` → a code below 0. */
  private wideCodes = new Map<string, number>();
  private table = new Map<number, Fingerprint<Memo>>();
  private size = 0;
  /** Frames held by the remembered fingerprints. */
  private frameCount = 0;
  /** Scratch buffers, grown as needed. */
  private codes = new Float64Array(64);
  private ids: number[] = [];

  constructor(
    readonly rules: LoadedRules,
    private readonly memo: boolean,
  ) {
    this.tests.push(() => true);
    this.primitives = rules.primitives.map((c) => this.cond(c));
    this.lockWrappers = rules.lockWrappers.map((c) => this.cond(c));
    this.processConds = rules.processConditions.map((c) => this.cond(c));
    this.threadRules = rules.threadRules.map((r) => this.compileRule(r));
    this.detailed = [...this.conds.values()].filter((c) => looksPastName(c.source));
    this.byChar = testsByChar(this.tests);
  }

  /** The condition compiled, its name test numbered (once per condition object). */
  private cond(c: FrameCondition): Cond {
    let compiled = this.conds.get(c);
    if (compiled !== undefined) return compiled;
    let test = 0;
    if (c.fn !== undefined) {
      const known = this.testIndex.get(c.fn);
      if (known !== undefined) test = known;
      else {
        test = this.tests.length;
        this.tests.push(c.fn);
        this.testIndex.set(c.fn, test);
      }
    }
    compiled = {
      source: c,
      test,
      at: c.at,
      next: c.next,
      maxGap: c.maxGap,
      library: this.stringTest(c.library),
      file: this.stringTest(c.file),
      jitCode: c.jitCode,
      args: c.args.map((a) => ({ name: a.name, value: this.stringTest(a.value), symbol: this.stringTest(a.symbol), address: a.address })),
    };
    this.conds.set(c, compiled);
    return compiled;
  }

  private stringTest(test: NameTest | undefined): StringTest | undefined {
    if (test === undefined || test.costly !== true) return test;
    let memo = this.stringTests.get(test);
    if (memo === undefined) {
      const answers = new Map<string, boolean>();
      memo = (s) => {
        let hit = answers.get(s);
        if (hit === undefined) {
          hit = test(s);
          if (answers.size >= STRING_MEMO_LIMIT) answers.clear();
          answers.set(s, hit);
        }
        return hit;
      };
      this.stringTests.set(test, memo);
    }
    return memo;
  }

  private compileShape(shape: Shape): CompiledShape {
    return { source: shape, frames: shape.frames.map((c) => this.cond(c)), none: shape.none.map((c) => this.cond(c)) };
  }

  private compileRule(rule: ThreadRule): CompiledRule {
    const base = this.compileShape(rule.base);
    return { rule, base, anyOf: rule.anyOf.map((s) => this.compileShape(s)), required: Int32Array.from(base.frames.filter((c) => c.source.fn !== undefined), (c) => c.test) };
  }

  prepare(bt: Pick<Backtrace, 'frames' | 'truncated'>): PreparedStack<Memo> {
    const frames = bt.frames;
    const n = frames.length;
    if (n > MEMO_MAX_FRAMES) return this.prepareLong(bt);
    // Room for every name of this stack, so its ids are of one numbering.
    if (this.interned.size + n > INTERN_LIMIT) this.startOver();
    if (this.codes.length < n) this.codes = new Float64Array(Math.max(n, this.codes.length * 2));
    const h = this.fingerprint(frames, n, bt.truncated);
    if (this.memo) {
      const codes = this.codes;
      for (let e = this.table.get(h) ?? null; e !== null; e = e.next) {
        if (e.codes.length !== n || e.truncated !== bt.truncated) continue;
        let same = true;
        for (let i = 0; i < n && same; i++) same = e.codes[i] === codes[i];
        if (same) return { frames, names: e.names, acquireIndex: e.acquireIndex, blocked: e.blocked, truncated: bt.truncated, fingerprint: e };
      }
    }
    return this.remember(bt, h);
  }

  /** Fills `codes` and `ids` for the frames; returns the fingerprint's hash. */
  private fingerprint(frames: Frame[], n: number, truncated: boolean): number {
    const codes = this.codes;
    const ids = this.ids;
    let h = 0x811c9dc5 ^ n ^ (truncated ? 0x5bd1e995 : 0);
    for (let i = 0; i < n; i++) {
      const frame = frames[i] as Frame;
      const entry = this.intern(frame.function);
      const id = entry.id;
      ids[i] = id;
      const details = (this.facts[id] ?? this.factsOf(entry.name, id)).details;
      const code = details.length === 0 ? id : this.detailCode(id, details, frame);
      codes[i] = code;
      h = Math.imul(h ^ (code >>> 0), 16777619);
      if (code >= 4294967296) h = Math.imul(h ^ Math.floor(code / 4294967296), 16777619);
    }
    return h;
  }

  private intern(raw: string): { name: string; id: number } {
    let entry = this.interned.get(raw);
    if (entry === undefined) {
      // Keys and names are copied out of the input: a parser string is often a slice that would
      // keep its whole input chunk alive as long as this table holds it.
      const name = detach(normalizeFunctionName(raw));
      let id = this.idsByName.get(name);
      if (id === undefined) {
        id = this.idsByName.size;
        this.idsByName.set(name, id);
        this.namesById.push(name);
      }
      entry = { name, id };
      this.interned.set(detach(raw), entry);
    }
    return entry;
  }

  /** Forgets every name and fingerprint (the tables are full). */
  private startOver(): void {
    this.interned = new Map();
    this.idsByName = new Map();
    this.namesById = [];
    this.facts = [];
    this.wideCodes = new Map();
    this.table = new Map();
    this.size = 0;
    this.frameCount = 0;
  }

  private factsOf(name: string, id: number): NameFacts {
    const facts = this.computeFacts(name);
    this.facts[id] = facts;
    return facts;
  }

  private computeFacts(name: string): NameFacts {
    const tests = new BitSet(this.tests.length);
    // Only the tests the name's first character (after underscores, for some) allows can pass.
    const byChar = this.byChar;
    this.runTests(byChar.any, name, tests);
    this.runTests(byChar.plain.get(name.charCodeAt(0)), name, tests);
    let u = 0;
    while (name.charCodeAt(u) === 95 /* _ */) u++;
    this.runTests(byChar.stripped.get(name.charCodeAt(u)), name, tests);
    const details: number[] = [];
    this.detailed.forEach((c, j) => {
      if (!tests.has(c.test)) return;
      // `jitCode` reads the raw name `??`, which only the name `??` comes from: for any other
      // name a jitCode-only condition has one answer for every frame, so it needs no bit.
      if (name !== '??' && c.jitCode === true) return;
      if (name !== '??' && c.jitCode === false && c.library === undefined && c.file === undefined && c.args.length === 0) return;
      details.push(j);
    });
    return { tests, details: Int32Array.from(details) };
  }

  /** Adds to `tests` the tests of `list` that `name` passes. */
  private runTests(list: Int32Array | undefined, name: string, tests: BitSet): void {
    if (list === undefined) return;
    for (let k = 0; k < list.length; k++) {
      const t = list[k] as number;
      if ((this.tests[t] as NameTest)(name)) tests.add(t);
    }
  }

  /** A frame's code when some conditions look past its name: `nameId + 2^16 × bits` (or a wide code). */
  private detailCode(id: number, details: Int32Array, frame: Frame): number {
    if (details.length <= MAX_DETAIL_BITS) {
      let bits = 0;
      for (let j = 0; j < details.length; j++) if (detailsHold(this.detailed[details[j] as number] as Cond, frame)) bits += 2 ** j;
      return id + NAME_SPAN * bits;
    }
    let key = `${id}:`;
    for (let j = 0; j < details.length; j++) key += detailsHold(this.detailed[details[j] as number] as Cond, frame) ? '1' : '0';
    let wide = this.wideCodes.get(key);
    if (wide === undefined) {
      wide = -1 - this.wideCodes.size;
      this.wideCodes.set(key, wide);
    }
    return wide;
  }

  /**
   * A fingerprint not seen yet (or the memo off): searches the stack and, with the memo on, keeps
   * the answers. Kept out of prepare so the per-backtrace path stays small.
   */
  private remember(bt: Pick<Backtrace, 'frames' | 'truncated'>, h: number): PreparedStack<Memo> {
    const n = bt.frames.length;
    const ids = this.ids;
    const names: string[] = new Array<string>(n);
    const frameTests: BitSet[] = new Array<BitSet>(n);
    for (let i = 0; i < n; i++) {
      const id = ids[i] as number;
      names[i] = this.namesById[id] as string;
      frameTests[i] = (this.facts[id] as NameFacts).tests;
    }
    const entry = this.search(bt, names, frameTests, this.codes.slice(0, n));
    if (this.memo) {
      if (this.size >= MEMO_LIMIT || this.frameCount + n > MEMO_FRAME_LIMIT) {
        this.table.clear();
        this.size = 0;
        this.frameCount = 0;
      }
      entry.next = this.table.get(h) ?? null;
      this.table.set(h, entry);
      this.size++;
      this.frameCount += n;
    }
    return { frames: bt.frames, names, acquireIndex: entry.acquireIndex, blocked: entry.blocked, truncated: bt.truncated, fingerprint: entry };
  }

  /** A stack too long to fingerprint: its names normalised and tested here, nothing kept. */
  private prepareLong(bt: Pick<Backtrace, 'frames' | 'truncated'>): PreparedStack<Memo> {
    const n = bt.frames.length;
    const seen = new Map<string, { name: string; facts: NameFacts }>();
    const names: string[] = new Array<string>(n);
    const frameTests: BitSet[] = new Array<BitSet>(n);
    for (let i = 0; i < n; i++) {
      const raw = (bt.frames[i] as Frame).function;
      let known = seen.get(raw);
      if (known === undefined) {
        const name = detach(normalizeFunctionName(raw));
        known = { name, facts: this.computeFacts(name) };
        seen.set(raw, known);
      }
      names[i] = known.name;
      frameTests[i] = known.facts.tests;
    }
    const entry = this.search(bt, names, frameTests, new Float64Array(0));
    return { frames: bt.frames, names, acquireIndex: entry.acquireIndex, blocked: entry.blocked, truncated: bt.truncated, fingerprint: entry };
  }

  /** The search itself: acquire site, wait site, every rule's positions, the process conditions. */
  private search(bt: Pick<Backtrace, 'frames' | 'truncated'>, names: string[], frameTests: BitSet[], codes: Float64Array): Fingerprint<Memo> {
    const present = new BitSet(this.tests.length);
    for (const tests of frameTests) present.addAll(tests);
    // Every PreparedStack is made with the same fields in the same order, so the code that reads
    // them sees one object shape.
    const stack: PreparedStack<Memo> = { frames: bt.frames, names, acquireIndex: 0, blocked: false, truncated: bt.truncated, fingerprint: null as unknown as Fingerprint<Memo> };
    const s: Search = { stack, frameTests, present };
    findAcquire(this.primitives, s);
    return {
      codes,
      truncated: bt.truncated,
      names,
      acquireIndex: stack.acquireIndex,
      blocked: stack.blocked,
      waitSite: waitSiteOf(this.lockWrappers, s),
      positions: this.matchPositions(s),
      process: this.processConditionsMet(s),
      hits: null,
      memo: null,
      next: null,
    };
  }

  /**
   * Every thread rule's positions on one stack, in rule order. A rule whose base shape requires a
   * name test that no frame passes is skipped before its shape is searched: most rules concern a
   * few functions and most stacks hold none of them.
   */
  private matchPositions(s: Search): RulePositions[] {
    const out: RulePositions[] = [];
    const rules = this.threadRules;
    next: for (let r = 0; r < rules.length; r++) {
      const rule = rules[r] as CompiledRule;
      const required = rule.required;
      for (let k = 0; k < required.length; k++) if (!s.present.has(required[k] as number)) continue next;
      const hit = rulePositions(rule, s);
      if (hit) out.push(hit);
    }
    return out;
  }

  private processConditionsMet(s: Search): number[] {
    const met: number[] = [];
    const n = s.stack.frames.length;
    this.processConds.forEach((cond, i) => {
      for (let f = 0; f < n; f++) {
        if (holdsAt(cond, s, f)) {
          met.push(i);
          return;
        }
      }
    });
    return met;
  }

  match(stack: PreparedStack<Memo>): RuleHit[] {
    const entry = stack.fingerprint;
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

  markProcessConditions(stack: PreparedStack<Memo>, flags: boolean[]): void {
    for (const i of stack.fingerprint.process) flags[i] = true;
  }

  matchRule(rule: ThreadRule, stack: PreparedStack<Memo>): RuleHit | null {
    const frameTests = stack.names.map((name) => this.computeFacts(name).tests);
    const present = new BitSet(this.tests.length);
    for (const tests of frameTests) present.addAll(tests);
    // Conditions the rule set does not hold (a rule cut down by explain shares its conditions'
    // name tests) are compiled here; a name test of another rule set has no number.
    for (const shape of [rule.base, ...rule.anyOf]) {
      for (const c of [...shape.frames, ...shape.none]) if (c.fn !== undefined && !this.testIndex.has(c.fn)) throw new Error(`matchRule: rule ${rule.id} has a name test the matcher's rule set does not`);
    }
    const found = rulePositions(this.compileRule(rule), { stack, frameTests, present });
    return found ? buildHit(found, stack) : null;
  }
}

// ---------------------------------------------------------------------------------------------
// The search, on a stack's name-test bits.

/** Where the leading wait primitives end, and whether there are any (sets both on the stack). */
function findAcquire(primitives: Cond[], s: Search): void {
  const stack = s.stack;
  const n = stack.frames.length;
  let i = 0;
  while (i < n && anyHoldsAt(primitives, s, i)) i++;
  stack.blocked = i > 0;
  // A stack made only of primitives (cut right under them) has its outermost frame as the site.
  stack.acquireIndex = Math.min(i, Math.max(0, n - 1));
}

/**
 * Where a thread waits: the first frame from the acquire site on that no lock wrapper matches
 * (std::shared_lock → std::shared_mutex::lock_shared → … is skipped to the caller); the acquire
 * site itself when every frame after it is a wrapper.
 */
function waitSiteOf(wrappers: Cond[], s: Search): number {
  const stack = s.stack;
  const n = stack.frames.length;
  let i = stack.acquireIndex;
  if (wrappers.length === 0) return i;
  while (i < n && anyHoldsAt(wrappers, s, i)) i++;
  return i < n ? i : stack.acquireIndex;
}

function anyHoldsAt(conds: Cond[], s: Search, i: number): boolean {
  for (let k = 0; k < conds.length; k++) if (holdsAt(conds[k] as Cond, s, i)) return true;
  return false;
}

/** The condition holds on frame i: in position, its name test passed, its other parts hold. */
function holdsAt(cond: Cond, s: Search, i: number): boolean {
  const frame = s.stack.frames[i];
  if (frame === undefined || !inPosition(cond.at, s.stack, i)) return false;
  if (!(s.frameTests[i] as BitSet).has(cond.test)) return false;
  return detailsHold(cond, frame);
}

function inPosition(at: Position, stack: PreparedStack<unknown>, i: number): boolean {
  switch (at.kind) {
    case 'top':
      return i < at.n;
    case 'within':
      return i >= stack.acquireIndex && i < stack.acquireIndex + at.n;
    case 'anywhere':
      return true;
  }
}

/** The parts of a frame condition that look past the function name: library, file, jitCode, args. */
function detailsHold(cond: Cond, frame: Frame): boolean {
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
      if (parsed.symbol === null || !arg.symbol(parsed.symbol)) return false;
      if (arg.address !== undefined && (parsed.address !== null) !== arg.address) return false;
    }
  }
  return true;
}

function rulePositions(rule: CompiledRule, s: Search): RulePositions | null {
  const base = shapePositions(rule.base, s);
  if (!base) return null;
  if (rule.anyOf.length === 0) return { rule, base, alts: null, fixed: undefined };
  const alts: Array<{ shape: CompiledShape; positions: number[] }> = [];
  for (const shape of rule.anyOf) {
    const positions = shapePositions(shape, s);
    if (positions) alts.push({ shape, positions });
  }
  return alts.length > 0 ? { rule, base, alts, fixed: undefined } : null;
}

/** Frame positions of a shape's frame conditions (empty when it has none), or null when it does not match. */
function shapePositions(shape: CompiledShape, s: Search): number[] | null {
  const stack = s.stack;
  if (shape.source.blocked !== undefined && shape.source.blocked !== stack.blocked) return null;
  if (shape.source.truncated !== undefined && shape.source.truncated !== stack.truncated) return null;
  // A condition whose name test no frame passes matches nowhere.
  for (const cond of shape.frames) if (!s.present.has(cond.test)) return null;
  for (const cond of shape.none) {
    if (!s.present.has(cond.test)) continue;
    for (let i = 0; i < stack.frames.length; i++) if (holdsAt(cond, s, i)) return null;
  }
  if (shape.frames.length === 0) return EMPTY_POSITIONS;
  return findSequence(shape.frames, s);
}

/** The frame indexes a condition's position allows: `[lo, hi)`. */
function positionRange(at: Position, stack: PreparedStack<unknown>): [number, number] {
  const n = stack.frames.length;
  switch (at.kind) {
    case 'top':
      return [0, Math.min(n, at.n)];
    case 'within':
      return [stack.acquireIndex, Math.min(n, stack.acquireIndex + at.n)];
    case 'anywhere':
      return [0, n];
  }
}

/**
 * Finds frame indexes p0 < p1 < … for the conditions, inner to outer. Leftmost choices are tried
 * first; a memo on (condition, start) keeps the search at O(conditions × frames²) even with
 * `next`/`maxGap` constraints that make the leftmost choice wrong.
 */
function findSequence(conds: Cond[], s: Search): number[] | null {
  const stack = s.stack;
  const n = stack.frames.length;
  if (conds.length === 1) {
    // Most rules anchor on one frame: a plain scan of the frames its position allows.
    const cond = conds[0] as Cond;
    const [lo, hi] = positionRange(cond.at, stack);
    for (let i = lo; i < hi; i++) if (holdsAt(cond, s, i)) return [i];
    return null;
  }
  const failed = new Set<number>();
  const out: number[] = [];
  const search = (k: number, from: number, prev: number): boolean => {
    if (k === conds.length) return true;
    const key = k * (n + 2) + (prev + 1);
    if (failed.has(key)) return false;
    const cond = conds[k] as Cond;
    const [lo, hi] = positionRange(cond.at, stack);
    let last = hi - 1;
    if (k > 0 && cond.next) last = Math.min(last, from);
    if (k > 0 && cond.maxGap !== undefined) last = Math.min(last, prev + 1 + cond.maxGap);
    for (let i = Math.max(from, lo); i <= last; i++) {
      if (!holdsAt(cond, s, i)) continue;
      out[k] = i;
      if (search(k + 1, i + 1, i)) return true;
    }
    failed.add(key);
    return false;
  };
  return search(0, 0, -1) ? out.slice(0, conds.length) : null;
}

// ---------------------------------------------------------------------------------------------
// Hits.

/** The hit for matched positions: sites, and captures read from the frames at those positions. */
function buildHit(found: RulePositions, stack: PreparedStack<unknown>): RuleHit {
  const { rule } = found.rule;
  const base = shapeAlternative(rule.base, found.base, stack);
  if (found.alts === null) return { ruleId: rule.id, alternatives: [base] };
  const alternatives: HitAlternative[] = [];
  for (const { shape, positions } of found.alts) {
    const alt = shapeAlternative(shape.source, positions, stack);
    const useBaseSite = rule.base.frames.length > 0 && !shape.source.frames.some((f) => f.site);
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

function shapeAlternative(shape: Shape, positions: number[], stack: PreparedStack<unknown>): HitAlternative {
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

function capturesNothing(found: RulePositions): boolean {
  const none = (shape: Shape): boolean => shape.frames.every((c) => c.args.length === 0);
  return none(found.rule.rule.base) && (found.alts ?? []).every((a) => none(a.shape.source));
}

function freezeHit(hit: RuleHit): RuleHit {
  for (const alt of hit.alternatives) Object.freeze(alt.captures);
  hit.alternatives.forEach((alt) => Object.freeze(alt));
  Object.freeze(hit.alternatives);
  return Object.freeze(hit);
}

/**
 * One condition on one frame, its name test called directly: for explain, which probes
 * conditions cut from a rule's (`{ fn, library }` alone), and for analyze/reentry.ts, which skips
 * lock wrappers frame by frame. Not a matching path: rules are matched by a Matcher.
 */
export function conditionHoldsAt(cond: FrameCondition, stack: Pick<PreparedStack<unknown>, 'frames' | 'names' | 'acquireIndex'>, i: number): boolean {
  const frame = stack.frames[i];
  if (frame === undefined || !inPosition(cond.at, stack as PreparedStack<unknown>, i)) return false;
  if (cond.fn && !cond.fn(stack.names[i] as string)) return false;
  return detailsHold({ source: cond, test: 0, at: cond.at, next: cond.next, maxGap: cond.maxGap, library: cond.library, file: cond.file, jitCode: cond.jitCode, args: cond.args.map((a) => ({ name: a.name, value: a.value, symbol: a.symbol, address: a.address })) }, frame);
}

// ---------------------------------------------------------------------------------------------
// Name tests by first character.

/**
 * The rule set's name tests grouped by the first character a passing name must have
 * (pattern.ts, LeadingChars): most names can pass only a few of the dozens of tests, so a new
 * name calls those alone (30 MB bench dump, 1,500 names, 67 tests: factsOf ~36 → ~11 ms
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
    const leading = test.leading;
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
