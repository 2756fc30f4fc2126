/**
 * Live mode asks gdb who owns each lock; the dump being analysed comes from the very process under
 * suspicion. Hostile parsed values — lock arguments, symbols, thread names and function names
 * holding gdb command syntax (`shell …`, `"; …`, newlines, `$(…)`, MI escapes) — go through the
 * real parse → analyze → planOwnerQueries path, and every expression that would reach gdb must be
 * one of the fixed shapes filled with a validated hex address.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { analyzeText } from '../../src/analyze/index.js';
import { GIL_HOLDER_EXPRESSIONS, SAFE_ADDRESS, planOwnerQueries, queryFor } from '../../src/live/owner-queries.js';
import { quoteCString } from '../../src/live/mi.js';

/** The only expressions allowed to reach gdb. */
function allowed(expression: string): boolean {
  return /^\(\(pthread_(?:mutex|rwlock)_t \*\) 0x[0-9a-f]{1,16}\)->__data\.__(?:owner|cur_writer)$/.test(expression) || GIL_HOLDER_EXPRESSIONS.includes(expression);
}

const HOSTILE = [
  'shell touch /tmp/waitgraph-pwned',
  '0x1); shell id #',
  '0x1" -interpreter-exec console "shell id',
  '$(id)',
  '`id`',
  '0x1\nshell id',
  '0x1\\n-exec shell id',
  'python import os; os.system("id")',
  '0x5555555580a0 <lock; shell id>',
  '<lock_a\u001b]8;;x\u0007>',
];

function dumpWith(value: string): string {
  return [
    `Thread 3 (Thread 0x7f01 (LWP 12) "${value}"):`,
    `#0  __lll_lock_wait (futex=${value}, private=0) at ./nptl/lowlevellock.c:49`,
    `#1  0x00007f611f932482 in ___pthread_mutex_lock (mutex=${value}) at ./nptl/pthread_mutex_lock.c:93`,
    `#2  0x0000561c67ba232a in ${value.replace(/[\s()]/g, '_')} (unused=0x0) at abba.c:28`,
    'Thread 2 (Thread 0x7f02 (LWP 11) "w"):',
    '#0  __lll_lock_wait (futex=0x561c67ba50e0 <lock_b>, private=0) at ./nptl/lowlevellock.c:49',
    '#1  0x00007f611f932482 in ___pthread_mutex_lock (mutex=0x561c67ba50e0 <lock_b>) at ./nptl/pthread_mutex_lock.c:93',
    '#2  0x0000561c67ba22bd in take_a_then_b (unused=0x0) at abba.c:17',
    '',
  ].join('\n');
}

test('queryFor refuses every resource id that is not a plain lower-case hex address', () => {
  for (const value of HOSTILE) {
    assert.equal(queryFor(`mutex:${value}`), null, value);
    assert.equal(queryFor(`rwlock:${value}`), null, value);
  }
  for (const bad of ['mutex:0X1', 'mutex:0x', 'mutex:0x12345678901234567', 'mutex:0x1 ', 'mutex: 0x1', 'mutex:0x1\n', 'mutex:0xg']) assert.equal(queryFor(bad), null, JSON.stringify(bad));
  assert.ok(SAFE_ADDRESS.test('0x5555555580a0'));
});

test('hostile lock arguments, symbols, names and functions go through analysis and reach gdb only as validated addresses', () => {
  let asked = 0;
  for (const value of HOSTILE) {
    const analysis = analyzeText(dumpWith(value));
    const queries = planOwnerQueries(analysis);
    for (const q of queries) {
      for (const e of q.expressions) {
        asked++;
        assert.ok(allowed(e), `expression reaching gdb: ${JSON.stringify(e)}`);
        const quoted = quoteCString(e);
        assert.doesNotMatch(quoted, /[\r\n]/);
      }
    }
  }
  assert.ok(asked > 0, 'the clean lock of thread 2 is asked about, so the check is not vacuous');
});

test('property: any string in a lock argument yields only allowed gdb expressions', () => {
  fc.assert(
    fc.property(fc.string({ unit: 'binary', maxLength: 60 }), (value) => {
      const clean = value.replace(/[\r\n]/g, ' ');
      for (const q of planOwnerQueries(analyzeText(dumpWith(clean)))) for (const e of q.expressions) assert.ok(allowed(e), JSON.stringify(e));
    }),
    { numRuns: 200, seed: 6 },
  );
});
