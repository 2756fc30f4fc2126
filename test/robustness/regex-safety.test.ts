/**
 * Rule regexes are written by users, function names by strangers. Every regex the rules loader
 * accepts (checkRegexSafety) must match or miss fast on adversarial names; the classic
 * catastrophic shapes must be refused. The accepted ones are found by generating regexes from
 * the atoms that make backtracking blow up (`a`, `.`, classes, `*`, `+`, `?`, `{m,n}`, groups, `|`).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { compilePattern, checkRegexSafety, PatternError } from '../../src/rules/pattern.js';

const CATASTROPHIC = ['(a+)+b', '(a|a)*b', '(a|aa)+c', '(.*a){12}', 'a*a*a*a*b', '.*.*=.*', '(\\w+\\s?)+$', 'a?a?a?a?a?a?a?a?a?a?a?a?aaaaaaaaaaaa', 'a{0,1000}a{0,1000}a{0,1000}b', '(?=a)a', '(a)\\1'];

test('the catastrophic classics are refused when a rule loads', () => {
  for (const source of CATASTROPHIC) assert.throws(() => checkRegexSafety(source), PatternError, source);
});

const ATOMS = ['a', 'a', 'b', '.', '[ab]', '[^b]', '\\w', '\\s', 'x'];
const QUANTS = ['', '', '', '*', '+', '?', '{0,5}', '{2}', '*?'];
const regexSource = fc
  .array(
    fc.oneof(
      fc.tuple(fc.constantFrom(...ATOMS), fc.constantFrom(...QUANTS)).map(([a, q]) => a + q),
      fc.tuple(fc.array(fc.constantFrom(...ATOMS), { minLength: 1, maxLength: 3 }), fc.constantFrom('', '*', '+', '?'), fc.boolean()).map(([atoms, q, alt]) => `(${atoms.join(alt ? '|' : '')})${q}`),
    ),
    { minLength: 1, maxLength: 8 },
  )
  .map((parts) => parts.join(''));

/** Names that make a backtracking matcher try every split: long runs with a miss at the end. */
const NAMES = ['a'.repeat(20_000), `${'a'.repeat(20_000)}c`, `${'ab'.repeat(10_000)}c`, `${'a '.repeat(10_000)}!`, 'x'.repeat(20_000)];

test('property: every regex the loader accepts runs in linear-ish time on 20,000-character adversarial names', () => {
  let accepted = 0;
  fc.assert(
    fc.property(regexSource, (source) => {
      let match: (name: string) => boolean;
      try {
        match = compilePattern({ regex: source });
      } catch (error) {
        if (error instanceof PatternError) return; // refused: fine
        throw error;
      }
      accepted++;
      for (const name of NAMES) {
        const start = process.cpuUsage();
        match(name);
        const used = process.cpuUsage(start);
        const ms = (used.user + used.system) / 1000;
        assert.ok(ms < 250, `regex ${JSON.stringify(source)} took ${ms.toFixed(0)} ms on a ${name.length}-character name`);
      }
    }),
    { numRuns: 400, seed: 11 },
  );
  assert.ok(accepted > 50, `only ${accepted} generated regexes were accepted: the property would be vacuous`);
});
