/**
 * The matcher's memos give exactly what a fresh search gives, and the search finds what a naive
 * reference search finds:
 * - a matcher with its memo on (a stack reuses the search of an earlier stack with the same
 *   fingerprint) against one with it off, on every backtrace of the fixtures (and the shared
 *   corpus when present), each seen twice, and on random stacks built from those frames with
 *   their arguments, libraries and JIT-ness changed (what the fingerprint must tell apart);
 * - the fingerprint's wide path (over 31 detail bits for one name), the interning table
 *   starting over mid-dump, and the memo starting over when full;
 * - the first characters a pattern's names must have (the memo calls only the tests a new name's
 *   first character allows): no name passes a test without one of them,
 * - a glob's literal head/tail shortcut against a reference regex, normalizeAddress against its
 *   regexes, expandTemplate against its regex-replace definition.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Backtrace, Frame } from '../../src/model/dump.js';
import { parseDump } from '../../src/parse/index.js';
import { loadRules } from '../../src/rules/index.js';
import { conditionHoldsAt, createMatcher, type Matcher, type PreparedStack } from '../../src/rules/match.js';
import { hasPointerValue, normalizeAddress, parseArgValue, type ParsedArgValue } from '../../src/rules/arg-values.js';
import { expandTemplate } from '../../src/rules/template.js';
import { compileGlob, compilePattern, leadingCharsOf, type NamePatternSpec } from '../../src/rules/pattern.js';
import type { FrameCondition, LoadedRules, Shape, ThreadRule } from '../../src/rules/types.js';
import { FIXTURES, HAS_SHARED_CORPUS, SHARED_CORPUS } from '../helpers/paths.js';
import { prng } from '../helpers/prng.js';

function textFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...textFiles(path));
    else if (name.endsWith('.txt')) out.push(path);
  }
  return out;
}

function backtracesOf(files: string[]): Backtrace[] {
  return files.flatMap((f) => parseDump(readFileSync(f, 'utf8')).backtraces);
}

/** One matcher with its memo on and one with it off per rule set, kept across the stacks of a test (as a session does). */
const matchers = new WeakMap<LoadedRules, { memo: Matcher; fresh: Matcher }>();
const matchersOf = (rules: LoadedRules): { memo: Matcher; fresh: Matcher } => {
  let m = matchers.get(rules);
  if (m === undefined) matchers.set(rules, (m = { memo: createMatcher(rules), fresh: createMatcher(rules, { memo: false }) }));
  return m;
};

/** Compares the memoised and the fresh analysis of one stack. */
function sameAsDirect(rules: LoadedRules, bt: Pick<Backtrace, 'frames' | 'truncated'>, what: string): void {
  const { memo: memoed, fresh } = matchersOf(rules);
  const memo = memoed.prepare(bt);
  const direct = fresh.prepare(bt);
  assert.deepEqual(memo.names, direct.names, `${what}: names`);
  assert.equal(memo.acquireIndex, direct.acquireIndex, `${what}: acquireIndex`);
  assert.equal(memo.blocked, direct.blocked, `${what}: blocked`);
  assert.equal(memo.fingerprint.waitSite, direct.fingerprint.waitSite, `${what}: wait site`);
  assert.deepEqual(memoed.match(memo), fresh.match(direct), `${what}: hits`);
  const memoFlags = rules.processConditions.map(() => false);
  const directFlags = rules.processConditions.map(() => false);
  memoed.markProcessConditions(memo, memoFlags);
  fresh.markProcessConditions(direct, directFlags);
  assert.deepEqual(memoFlags, directFlags, `${what}: process conditions`);
}

/**
 * The reference search, written for reading, not speed: a shape holds when no frame meets a
 * `none` condition and frames p0 < p1 < … meet its frame conditions in order (with `next` and
 * `maxGap`), every condition tested by conditionHoldsAt (its name test called directly).
 */
function referenceHolds(shape: Shape, stack: PreparedStack): boolean {
  if (shape.blocked !== undefined && shape.blocked !== stack.blocked) return false;
  if (shape.truncated !== undefined && shape.truncated !== stack.truncated) return false;
  const n = stack.frames.length;
  for (const c of shape.none) for (let i = 0; i < n; i++) if (conditionHoldsAt(c, stack, i)) return false;
  const place = (k: number, from: number, prev: number): boolean => {
    if (k === shape.frames.length) return true;
    const c = shape.frames[k] as FrameCondition;
    for (let i = from; i < n; i++) {
      if (k > 0 && c.next && i !== prev + 1) continue;
      if (k > 0 && c.maxGap !== undefined && i > prev + 1 + c.maxGap) continue;
      if (conditionHoldsAt(c, stack, i) && place(k + 1, i + 1, i)) return true;
    }
    return false;
  };
  return place(0, 0, -1);
}

const referenceHits = (rules: LoadedRules, stack: PreparedStack): string[] =>
  rules.threadRules.filter((r: ThreadRule) => referenceHolds(r.base, stack) && (r.anyOf.length === 0 || r.anyOf.some((s) => referenceHolds(s, stack)))).map((r) => r.id);

const rules = loadRules();
const fixtureFiles = [...textFiles(FIXTURES), ...(HAS_SHARED_CORPUS ? textFiles(SHARED_CORPUS) : [])];
const real = backtracesOf(fixtureFiles);

test('memoised matching equals fresh matching, and the reference search, on every fixture backtrace, first and repeated', () => {
  assert.ok(real.length > 100, `fixtures hold backtraces (${real.length})`);
  let hits = 0;
  for (let pass = 0; pass < 2; pass++) {
    real.forEach((bt, i) => {
      sameAsDirect(rules, bt, `pass ${pass} backtrace ${i}`);
      // `??` frames in some library instead of anonymous (JIT) memory: same names, other fingerprint.
      const plugin = bt.frames.map((f) => (f.function === '??' && f.library === null ? { ...f, library: '/opt/app/libplugin.so' } : f));
      sameAsDirect(rules, { frames: plugin, truncated: bt.truncated }, `pass ${pass} backtrace ${i}, ?? in a library`);
      if (pass === 0) {
        const { fresh } = matchersOf(rules);
        const stack = fresh.prepare(bt);
        const found = fresh.match(stack).map((h) => h.ruleId);
        assert.deepEqual(found, referenceHits(rules, stack), `backtrace ${i}: the rules the reference search finds`);
        hits += found.length;
      }
    });
  }
  assert.ok(hits > 50, `the fixtures exercise the rules (${hits} hits)`);
});

/** Variants of a frame the fingerprint must tell apart from it (or may not, when no rule can). */
function variant(frame: Frame, pick: number): Frame {
  switch (pick) {
    case 0:
      return { ...frame, args: [] };
    case 1:
      return { ...frame, args: frame.args.map((a) => ({ ...a, value: '<optimized out>' })) };
    case 2:
      return { ...frame, function: '??', library: null, file: null, args: [] };
    case 3:
      return { ...frame, function: '??', library: '/lib/x86_64-linux-gnu/libc.so.6', file: null };
    case 4:
      return { ...frame, library: null };
    case 5:
      return { ...frame, args: frame.args.map((a) => ({ ...a, value: '0x55c6a8e3d0a0 <lock_a>' })) };
    case 6:
      return { ...frame, function: '??', library: '/opt/app/libplugin.so', file: null, args: [] };
    default:
      return frame;
  }
}

test('memoised matching equals direct matching on random stacks of real frames and their variants', () => {
  const pool = real.flatMap((bt) => bt.frames);
  // Near-identical stacks must meet in the memo, so the random stacks reuse a few shapes.
  fc.assert(
    fc.property(
      fc.array(fc.tuple(fc.nat(pool.length - 1), fc.nat(9)), { minLength: 0, maxLength: 14 }),
      fc.boolean(),
      fc.nat(3),
      (picks, truncated, repeat) => {
        const frames = picks.map(([i, v], level) => ({ ...variant(pool[i] as Frame, v), level }));
        for (let r = 0; r <= repeat; r++) sameAsDirect(rules, { frames, truncated }, `random stack (repeat ${r})`);
        // The same names with other details: a different fingerprint unless no rule looks.
        const other = frames.map((f, k) => variant(f, (k + repeat) % 7));
        sameAsDirect(rules, { frames: other, truncated }, 'random stack, details changed');
      },
    ),
    { numRuns: 600, seed: 7 },
  );
});

test('a rule set with more than 31 detail conditions on one name (wide fingerprint codes) matches like the direct search', () => {
  const any = compilePattern({ glob: '*' });
  const many: FrameCondition[] = Array.from({ length: 40 }, (_, k) => ({ fn: any, at: { kind: 'anywhere' }, next: false, args: [{ name: `a${k % 3}` }], site: false }));
  const wide: LoadedRules = { ...rules, primitives: [...rules.primitives, ...many] };
  const sample = real.filter((_, i) => i % 3 === 0);
  for (let pass = 0; pass < 2; pass++) sample.forEach((bt, i) => sameAsDirect(wide, bt, `wide pass ${pass} backtrace ${i}`));
});

test('a condition with no name test (library only) keeps every frame it can see in the fingerprint', () => {
  // Frames of application functions no name test knows are collapsed for the search unless some
  // condition looks at them without a name: here a primitive that is any frame in libplugin.
  const library = compilePattern({ glob: '*libplugin*' });
  const byLibrary: FrameCondition = { library, at: { kind: 'anywhere' }, next: false, args: [], site: false };
  const withLibrary: LoadedRules = { ...rules, primitives: [byLibrary, ...rules.primitives] };
  for (let pass = 0; pass < 2; pass++) {
    real.forEach((bt, i) => {
      const inPlugin = bt.frames.map((f, k) => (k < 2 ? { ...f, library: '/opt/app/libplugin.so' } : f));
      sameAsDirect(withLibrary, bt, `pass ${pass} backtrace ${i}`);
      sameAsDirect(withLibrary, { frames: inPlugin, truncated: bt.truncated }, `pass ${pass} backtrace ${i} in libplugin`);
    });
  }
});

test('memoised matching stays exact when the name table starts over in the middle of a dump', () => {
  const random = prng(11);
  const sample = real.filter((bt) => bt.frames.length > 0).slice(0, 200);
  // Over 65,536 distinct names force the interning table (and with it the memo) to start over.
  let serial = 0;
  for (let round = 0; round < 700; round++) {
    const bt = sample[Math.floor(random() * sample.length)] as Backtrace;
    const fresh: Frame[] = Array.from({ length: 100 }, (_, k) => ({ ...(bt.frames[0] as Frame), function: `fresh_name_${serial++}`, level: k }));
    const mixed = { frames: [...bt.frames, ...fresh].map((f, level) => ({ ...f, level })), truncated: bt.truncated };
    sameAsDirect(rules, mixed, `round ${round} mixed`);
    sameAsDirect(rules, bt, `round ${round} plain`);
  }
  assert.ok(serial > 65536);
});

test('memoised matching stays exact when the memo starts over (more distinct stacks than it keeps)', () => {
  const sample = real.filter((bt) => bt.frames.length > 0).slice(0, 50);
  // 9,000 distinct fingerprints (the memo keeps 8,192), then the first ones again.
  const stacks = Array.from({ length: 9000 }, (_, k) => {
    const bt = sample[k % sample.length] as Backtrace;
    const extra: Frame = { ...(bt.frames[0] as Frame), function: `pool_worker_${k % 4500}`, args: [] };
    return { frames: [...bt.frames, extra].map((f, level) => ({ ...f, level })), truncated: k % 3 === 0 };
  });
  stacks.forEach((st, k) => sameAsDirect(rules, st, `stack ${k}`));
  stacks.slice(0, 300).forEach((st, k) => sameAsDirect(rules, st, `stack ${k} again`));
});

/** Reference: the glob as an anchored regex (`*` any run, `?` one character, `\x` a literal x). */
function globRegex(glob: string): RegExp {
  let src = '';
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '\\' && i + 1 < glob.length) src += (glob[++i] as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    else if (c === '*') src += '[\\s\\S]*';
    else if (c === '?') src += '[\\s\\S]';
    else src += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${src}$`);
}

test('globs (with their literal head and tail shortcut) match exactly what the equivalent regex matches', () => {
  const glob = fc.array(fc.constantFrom('a', 'b', ':', '*', '?', '\\*', '\\?'), { maxLength: 8 }).map((parts) => parts.join(''));
  const name = fc.array(fc.constantFrom('a', 'b', ':', '*', '?'), { maxLength: 10 }).map((parts) => parts.join(''));
  fc.assert(
    fc.property(glob, name, (g, n) => {
      assert.equal(compileGlob(g)(n), globRegex(g).test(n), `glob ${JSON.stringify(g)} on ${JSON.stringify(n)}`);
    }),
    { numRuns: 5000, seed: 3 },
  );
});

test('a name passes a pattern only when it starts with one of the pattern\'s leading characters', () => {
  const part = fc.constantFrom('a', 'b', '_', '__', ':', '*', '?', '\\*', '\\_');
  const text = (max: number) => fc.array(part, { maxLength: max }).map((parts) => parts.join(''));
  const plain = fc.array(fc.constantFrom('a', 'b', '_', '__', ':'), { minLength: 0, maxLength: 4 }).map((parts) => parts.join(''));
  const spec = fc.oneof(
    fc.array(plain, { minLength: 1, maxLength: 3 }).map((exact): NamePatternSpec => ({ exact })),
    fc.array(plain.filter((p) => p.replace(/^_+/, '') !== ''), { minLength: 1, maxLength: 3 }).map((prefix): NamePatternSpec => ({ prefix })),
    fc.array(text(6), { minLength: 1, maxLength: 3 }).map((glob): NamePatternSpec => ({ glob })),
  );
  const name = fc.array(fc.constantFrom('a', 'b', '_', ':', '*'), { maxLength: 8 }).map((parts) => parts.join(''));
  let passed = 0;
  let known = 0;
  fc.assert(
    fc.property(spec, fc.boolean(), fc.array(name, { minLength: 1, maxLength: 8 }), (raw, ignore, names) => {
      const s: NamePatternSpec = { ...raw, underscores: ignore ? 'ignore' : 'exact' };
      const test = compilePattern(s);
      const leading = leadingCharsOf(test);
      if (leading !== undefined) known++;
      for (const n of names) {
        if (!test(n)) continue;
        passed++;
        if (leading === undefined) continue;
        assert.equal(leading.underscores, ignore);
        const first = ignore ? n.replace(/^_+/, '') : n;
        assert.ok(first.length > 0 && leading.chars.has(first.charCodeAt(0)), `${JSON.stringify(s)} passed ${JSON.stringify(n)}, which starts with none of its leading characters`);
      }
    }),
    { numRuns: 3000, seed: 7 },
  );
  // The property was exercised: patterns with known leading characters, and names that passed.
  assert.ok(known > 1000 && passed > 500, `known ${known}, passed ${passed}`);
  assert.equal(leadingCharsOf(compilePattern({ regex: 'a.*' })), undefined);
  assert.equal(leadingCharsOf(compilePattern({ glob: '*a' })), undefined);
  assert.deepEqual([...(leadingCharsOf(compilePattern({ glob: ['\\*x', 'b*'] }))?.chars ?? [])], ['*'.charCodeAt(0), 'b'.charCodeAt(0)]);
});

test('normalizeAddress (its no-regex path for plain hex) equals the regex definition', () => {
  const reference = (hex: string): string => `0x${hex.toLowerCase().replace(/^0x/, '').replace(/^0+(?=.)/, '')}`;
  const text = fc.array(fc.constantFrom('0', '0', '1', 'a', 'F', 'x', 'X', 'g', ' ', '\n'), { maxLength: 12 }).map((p) => p.join(''));
  fc.assert(
    fc.property(fc.boolean(), text, (prefixed, rest) => {
      const hex = prefixed ? `0x${rest}` : rest;
      assert.equal(normalizeAddress(hex), reference(hex), JSON.stringify(hex));
    }),
    { numRuns: 5000, seed: 5 },
  );
});

test('hasPointerValue (argument conditions that ask only for a pointer) agrees with parseArgValue', () => {
  const part = fc.constantFrom('0x', '0X', '0', '1f', 'a', 'g', ' ', '\t', '\n', '(', ')', 'int *', '<', '>', 'sym', '+8', '@entry');
  let pointers = 0;
  fc.assert(
    fc.property(fc.array(part, { maxLength: 10 }), (parts) => {
      const value = parts.join('');
      const expected = parseArgValue(value).address !== null;
      if (expected) pointers++;
      assert.equal(hasPointerValue(value), expected, JSON.stringify(value));
    }),
    { numRuns: 10000, seed: 11 },
  );
  assert.ok(pointers > 100, `only ${pointers} values held a pointer`);
  for (const value of ['0x7ffd5ca900', '  (pthread_mutex_t *) 0x55d0c0ffee <m>', '(int) 0', '<optimized out>', '0x', ' 0x1 ']) {
    assert.equal(hasPointerValue(value), parseArgValue(value).address !== null, value);
  }
});

test('expandTemplate (templates cut once, then filled) equals the regex-replace definition', () => {
  const PLACEHOLDER = /\{([^{}]+)\}/g;
  const PART = /^args\.([A-Za-z_]\w*)\.(address|symbol|value)$/;
  const reference = (template: string, captures: Record<string, ParsedArgValue>): { text: string; missing: string[] } => {
    const missing: string[] = [];
    const text = template.replace(PLACEHOLDER, (_all, inner: string) => {
      for (const alt of inner.split('|')) {
        const m = PART.exec(alt.trim());
        const cap = m ? captures[m[1] as string] : undefined;
        const value = cap && m ? cap[m[2] as 'address' | 'symbol' | 'value'] : null;
        if (value !== null && value !== undefined && value !== '') return value;
      }
      missing.push(inner.trim());
      return '?';
    });
    return { text, missing };
  };
  const piece = fc.constantFrom('mutex:', 'waits for ', '{', '}', '|', ' ', '$&', '{args.m.address}', '{args.m.symbol|args.m.address}', '{ args.f.value }', '{args.x.value|args.m.value}', '{args.constructor.value}', '{bogus}', '{args.m.address|}');
  const value = fc.option(fc.constantFrom('', '0x1', '<lock_a>', '$1'), { nil: null });
  const capture = fc.record({ value: fc.constantFrom('v', ''), address: value, symbol: value });
  fc.assert(
    fc.property(fc.array(piece, { maxLength: 8 }), fc.dictionary(fc.constantFrom('m', 'f', 'x'), capture), (pieces, captures) => {
      const template = pieces.join('');
      assert.deepEqual(expandTemplate(template, captures), reference(template, captures), JSON.stringify(template));
    }),
    { numRuns: 3000, seed: 9 },
  );
});
