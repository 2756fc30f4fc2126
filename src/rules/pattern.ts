/**
 * Name patterns for rules, all of which run in time linear (or at worst length × pattern) in the
 * name they test, so no rule — built-in or written by a user — can stall the analysis:
 *
 * - `exact`: one of a set of names (hash lookup).
 * - `prefix`: starts with one of a list.
 * - `glob`: `*` any run of characters, `?` one character, `\` escapes; matched by the classic
 *   two-pointer wildcard algorithm (no backtracking beyond the last `*`, O(n·m) worst case).
 * - `regex`: a JavaScript regex accepted only in a safe subset (see checkRegexSafety): no
 *   backreferences or lookaround, no quantified groups, at most one unbounded quantifier, matched
 *   from the first character. With one unbounded quantifier and no quantified groups a
 *   backtracking engine does at most O(n·m) work from the anchored start.
 */
import { stripLeadingUnderscores } from './function-names.js';

/**
 * Tests a name. A pure function of the name: the matcher (match.ts) remembers answers per
 * distinct name for the analysis it runs, so a pattern holds no cache of its own.
 * `leading`, when set, says what a passing name must start with (see LeadingChars); `costly`
 * says the test does more than a hash lookup (the matcher remembers its answers per string).
 */
export type NameTest = ((name: string) => boolean) & { readonly leading?: LeadingChars; readonly costly?: boolean };

/** The pattern as written in a rule file, after schema validation. */
export interface NamePatternSpec {
  exact?: string | string[];
  prefix?: string | string[];
  glob?: string | string[];
  regex?: string;
  /** Compare with leading underscores removed on both sides (`___pthread_mutex_lock` ≡ `pthread_mutex_lock`). */
  underscores?: 'ignore' | 'exact';
}

export type NamePatternInput = string | string[] | NamePatternSpec;

/** Thrown by compilePattern; the loader turns it into a RuleError naming file and place. */
export class PatternError extends Error {}

const asList = (v: string | string[]): string[] => (Array.isArray(v) ? v : [v]);

export function compilePattern(input: NamePatternInput): NameTest {
  const spec: NamePatternSpec = typeof input === 'string' || Array.isArray(input) ? { exact: input } : input;
  const kinds = (['exact', 'prefix', 'glob', 'regex'] as const).filter((k) => spec[k] !== undefined);
  if (kinds.length !== 1) {
    throw new PatternError(`a name pattern needs exactly one of exact, prefix, glob, regex (got ${kinds.length === 0 ? 'none' : kinds.join(', ')})`);
  }
  const ignore = spec.underscores === 'ignore';
  const prep = (s: string): string => (ignore ? stripLeadingUnderscores(s) : s);
  let test: (name: string) => boolean;
  if (spec.exact !== undefined) {
    const set = new Set(asList(spec.exact).map(prep));
    test = (name) => set.has(name);
  } else if (spec.prefix !== undefined) {
    const list = asList(spec.prefix).map(prep);
    if (list.some((p) => p.length === 0)) throw new PatternError('an empty prefix matches every name');
    test = (name) => list.some((p) => name.startsWith(p));
  } else if (spec.glob !== undefined) {
    const globs = asList(spec.glob).map((g) => compileGlob(prep(g)));
    test = (name) => globs.some((g) => g(name));
  } else {
    const source = spec.regex ?? '';
    checkRegexSafety(source);
    let re: RegExp;
    try {
      re = new RegExp(source.startsWith('^') ? source : `^(?:${source})`);
    } catch (error) {
      throw new PatternError(`invalid regex: ${(error as Error).message}`);
    }
    test = (name) => re.test(name);
  }
  const full = ignore ? (name: string): boolean => test(stripLeadingUnderscores(name)) : test;
  const first = firstCharsOf(spec, prep);
  return Object.assign(full, {
    ...(first !== null ? { leading: { chars: first, underscores: ignore } satisfies LeadingChars } : {}),
    costly: spec.exact === undefined || ignore,
  });
}

/**
 * What a name must start with for a test to pass: one of `chars` (UTF-16 code units), read after
 * the name's leading underscores when `underscores` is set (`underscores: ignore` patterns). Lets
 * a caller that tests many names against many patterns skip the patterns a name cannot match
 * without calling them (rules/match.ts, once per distinct name).
 */
export interface LeadingChars {
  chars: ReadonlySet<number>;
  underscores: boolean;
}

/** The first characters a name passing `test` can have, or undefined when any (regexes, globs that open with a wildcard, tests not made by compilePattern). */
export function leadingCharsOf(test: NameTest): LeadingChars | undefined {
  return test.leading;
}

function firstCharsOf(spec: NamePatternSpec, prep: (s: string) => string): Set<number> | null {
  let heads: string[];
  if (spec.exact !== undefined) heads = asList(spec.exact).map(prep);
  else if (spec.prefix !== undefined) heads = asList(spec.prefix).map(prep);
  else if (spec.glob !== undefined) heads = asList(spec.glob).map((g) => globFirstChar(prep(g)));
  else return null;
  const chars = new Set<number>();
  for (const head of heads) {
    // An empty head (the empty name, a glob opening with `*` or `?`): any first character.
    if (head.length === 0) return null;
    chars.add(head.charCodeAt(0));
  }
  return chars;
}

/** The first character of every name a glob matches (escape resolved), or '' when it opens with a wildcard. */
function globFirstChar(glob: string): string {
  const c = glob[0];
  if (c === undefined || c === '*' || c === '?') return '';
  return c === '\\' ? (glob[1] ?? '') : c;
}

/** Glob tokens: literal characters, `?` (any one) and `*` (any run). */
type GlobToken = { kind: 'char'; ch: string } | { kind: 'any' } | { kind: 'star' };

function globTokens(glob: string): GlobToken[] {
  const tokens: GlobToken[] = [];
  for (let i = 0; i < glob.length; i++) {
    const c = glob[i] as string;
    if (c === '\\') {
      const next = glob[i + 1];
      if (next === undefined) throw new PatternError(`glob ${JSON.stringify(glob)} ends with a lone backslash`);
      tokens.push({ kind: 'char', ch: next });
      i++;
    } else if (c === '*') {
      if (tokens[tokens.length - 1]?.kind !== 'star') tokens.push({ kind: 'star' });
    } else if (c === '?') tokens.push({ kind: 'any' });
    else tokens.push({ kind: 'char', ch: c });
  }
  return tokens;
}

const literal = (t: GlobToken | undefined): t is { kind: 'char'; ch: string } => t?.kind === 'char';

/** The literal characters before the first wildcard. */
function literalHead(tokens: GlobToken[]): string {
  let head = '';
  for (let i = 0; literal(tokens[i]); i++) head += (tokens[i] as { ch: string }).ch;
  return head;
}

/**
 * A glob's test, tokenized on its first call: the built-in packs hold ~1,000 globs and a run tests
 * few of them (the matcher skips a pattern whose first characters a name cannot have), so
 * tokenizing every glob up front was most of the rules' ~18 ms compile at each start (issue 18,
 * figure 4). The one malformed glob, a lone backslash at the end, is still refused at once.
 */
export function compileGlob(glob: string): NameTest {
  let trailing = 0;
  while (glob[glob.length - 1 - trailing] === '\\') trailing++;
  // Escapes pair from the left, so a run of backslashes at the end leaves one alone when it is odd.
  if (trailing % 2 === 1) throw new PatternError(`glob ${JSON.stringify(glob)} ends with a lone backslash`);
  // The text before the first `*`, `?` or `\`, found without tokenizing: a name must start with
  // it, and most names a glob is asked about do not, so most globs are never tokenized (~2 ms of
  // the founding report's start; issue 18, figure 4).
  const special = glob.search(/[*?\\]/);
  const head = special < 0 ? glob : glob.slice(0, special);
  let test: ((name: string) => boolean) | null = null;
  return (name) => name.startsWith(head) && (test ??= globTest(glob))(name);
}

function globTest(glob: string): (name: string) => boolean {
  const tokens = globTokens(glob);
  const minLength = tokens.filter((t) => t.kind !== 'star').length;
  if (!tokens.some((t) => t.kind === 'any')) {
    const runs = literalRuns(tokens);
    return (name) => name.length >= minLength && runsMatch(runs, name);
  }
  // The literal text before the first wildcard and after the last one: most names fail on these,
  // which are one startsWith/endsWith each instead of the wildcard walk.
  const head = literalHead(tokens);
  let tail = '';
  if (head.length < tokens.length) for (let i = tokens.length - 1; literal(tokens[i]); i--) tail = (tokens[i] as { ch: string }).ch + tail;
  return (name) => name.length >= minLength && name.startsWith(head) && name.endsWith(tail) && globMatch(tokens, name);
}

/** The literal text between a glob's stars, in order (`*locker*` → ['', 'locker', '']). */
function literalRuns(tokens: GlobToken[]): string[] {
  const runs = [''];
  for (const t of tokens) {
    if (t.kind === 'star') runs.push('');
    else runs[runs.length - 1] += (t as { ch: string }).ch;
  }
  return runs;
}

/**
 * A glob with `*` and no `?` (`*locker*`, `*_malloc_mutex_lock_slow`, `*libc.so*`): the first run at
 * the start, the last at the end, and each one between found leftmost after the one before — where
 * a `*`-only glob matches at all, the leftmost places match too. Native startsWith, endsWith and
 * indexOf instead of the character walk, which cold (as every start runs it, ~1,200 times for the
 * founding report) cost ~2 ms (issue 18, figure 4). `name` is at least as long as the runs together.
 */
function runsMatch(runs: string[], name: string): boolean {
  const first = runs[0] as string;
  if (runs.length === 1) return name === first;
  const last = runs[runs.length - 1] as string;
  if (!name.startsWith(first) || !name.endsWith(last)) return false;
  const end = name.length - last.length;
  let at = first.length;
  for (let i = 1; i < runs.length - 1; i++) {
    const run = runs[i] as string;
    const found = name.indexOf(run, at);
    if (found < 0 || found + run.length > end) return false;
    at = found + run.length;
  }
  return true;
}

/**
 * Two-pointer wildcard match: on a mismatch, return to the last `*` and let it absorb one more
 * character. Each name position is revisited at most once per `*`, so the work is O(n·m).
 */
function globMatch(tokens: GlobToken[], name: string): boolean {
  let t = 0;
  let s = 0;
  let starT = -1;
  let starS = 0;
  while (s < name.length) {
    const tok = tokens[t];
    if (tok !== undefined && (tok.kind === 'any' || (tok.kind === 'char' && tok.ch === name[s]))) {
      t++;
      s++;
    } else if (tok !== undefined && tok.kind === 'star') {
      starT = t++;
      starS = s;
    } else if (starT >= 0) {
      t = starT + 1;
      s = ++starS;
    } else return false;
  }
  while (tokens[t]?.kind === 'star') t++;
  return t === tokens.length;
}

/**
 * Rejects regex features that let a backtracking engine take super-linear time: backreferences,
 * lookaround, quantifiers applied to groups (`(a+)+`, `(a|b)*`), and more than one unbounded
 * quantifier (`.*.*x` is polynomial on a miss). Character classes and escapes count as one atom.
 */
/** Product of the bounded choices (`?` counts 2, `{n,m}` counts m−n+1) a rule regex may hold. */
const MAX_BOUNDED_CHOICES = 256;

export function checkRegexSafety(source: string): void {
  let unbounded = 0;
  // Bounded choices multiply: `a?a?a?…` (2^k) and `a{0,1000}a{0,1000}b` (10^6 splits) backtrack
  // as badly as nested stars on a near miss, so their product is capped.
  let choices = 1;
  let i = 0;
  let lastAtomWasGroup = false;
  const quantifiedGroup = (): PatternError =>
    new PatternError(`regex ${JSON.stringify(source)} could take exponential time: a quantifier on a group (e.g. (a+)+) is not allowed; use a glob or list alternatives`);
  while (i < source.length) {
    const c = source[i] as string;
    if (c === '\\') {
      const next = source[i + 1] ?? '';
      if (/[1-9]/.test(next) || next === 'k') throw new PatternError(`regex ${JSON.stringify(source)} uses a backreference, which can take exponential time`);
      i += 2;
      lastAtomWasGroup = false;
      continue;
    }
    if (c === '[') {
      // Skip the class body; `]` right after `[` or `[^` is literal.
      let j = i + 1;
      if (source[j] === '^') j++;
      if (source[j] === ']') j++;
      while (j < source.length && source[j] !== ']') j += source[j] === '\\' ? 2 : 1;
      i = j + 1;
      lastAtomWasGroup = false;
      continue;
    }
    if (c === '(') {
      if (source.startsWith('(?=', i) || source.startsWith('(?!', i) || source.startsWith('(?<=', i) || source.startsWith('(?<!', i)) {
        throw new PatternError(`regex ${JSON.stringify(source)} uses lookaround, which is not allowed in rules`);
      }
      i++;
      lastAtomWasGroup = false;
      continue;
    }
    if (c === ')') {
      i++;
      lastAtomWasGroup = true;
      continue;
    }
    if (c === '*' || c === '+' || c === '?' || c === '{') {
      let isUnbounded = c === '*' || c === '+';
      let len = 1;
      if (c === '{') {
        const m = /^\{(\d+)(,(\d*))?\}/.exec(source.slice(i));
        if (!m) {
          i++;
          lastAtomWasGroup = false;
          continue; // a literal `{`
        }
        len = m[0].length;
        if (m[2] !== undefined && (m[3] ?? '') === '') isUnbounded = true;
        else if (Number(m[3] ?? m[1]) > 1000) throw new PatternError(`regex ${JSON.stringify(source)} has a repetition bound over 1000`);
        else if (m[2] !== undefined) choices *= Math.max(1, Number(m[3]) - Number(m[1]) + 1);
      } else if (c === '?') {
        choices *= 2;
      }
      // `+?`/`*?` lazy markers belong to the quantifier just read.
      if (c === '?' && i > 0 && /[*+?}]/.test(source[i - 1] ?? '') && source[i - 2] !== '\\') {
        i++;
        continue;
      }
      if (lastAtomWasGroup) throw quantifiedGroup();
      if (isUnbounded) unbounded++;
      if (choices > MAX_BOUNDED_CHOICES) {
        throw new PatternError(`regex ${JSON.stringify(source)} has too many optional or ranged repeats (${choices} ways to split a name; at most ${MAX_BOUNDED_CHOICES}), which can take very long on a miss; use a glob`);
      }
      if (unbounded > 1) {
        throw new PatternError(`regex ${JSON.stringify(source)} has more than one unbounded quantifier (*, +, {n,}), which can take polynomial time on a miss; use a glob`);
      }
      i += len;
      continue;
    }
    i++;
    lastAtomWasGroup = false;
  }
}
