/**
 * What the text alone settles (no gdb): `print` output of a mutex is a proven owner, pthread_join's
 * threadid names the joined thread's header, waits with unknown holders carry the gdb command that
 * would settle them, and a process where every thread waits with no time limit is said to look hung.
 * Inputs are the captured dumps in fixtures/live (real gdb output).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyze } from '../../src/analyze/index.js';
import { parseDump } from '../../src/parse/index.js';
import { pthreadIdFrom } from '../../src/analyze/thread-identity.js';
import { LIVE_FIXTURES } from './harness.js';

const read = (name: string): string => readFileSync(join(LIVE_FIXTURES, name), 'utf8');

/** `Thread N (Thread 0x… (LWP L) "NAME")` → L. */
function lwpOf(text: string, name: string): number {
  const m = new RegExp(`\\(LWP (\\d+)\\) "${name}"\\)`).exec(text);
  assert.ok(m, `thread ${name} in the dump`);
  return Number(m[1]);
}

function addressOf(text: string, symbol: string): string {
  const m = new RegExp(`mutex=(0x[0-9a-f]+) <${symbol}>`).exec(text);
  assert.ok(m, `${symbol} in the dump`);
  return m[1] as string;
}

const printed = (address: string, owner: number): string =>
  `(gdb) print *(pthread_mutex_t *) ${address}\n$1 = {__data = {__lock = 2, __count = 0, __owner = ${owner}, __nusers = 1, __kind = 0, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\\002", '\\000' <repeats 38 times>, __align = 2}\n`;

test('print output of both mutexes turns the ABBA hang into a proven deadlock', () => {
  const text = read('abba.txt');
  const plain = analyze(parseDump(text));
  assert.equal(plain.verdict, 'hang', 'without owners the text only shows two waits');
  const withOwners = text + printed(addressOf(text, 'lock_a'), lwpOf(text, 'abba-ab')) + printed(addressOf(text, 'lock_b'), lwpOf(text, 'abba-ba'));
  const a = analyze(parseDump(withOwners));
  assert.equal(a.verdict, 'deadlock');
  assert.equal(a.deadlocks[0]?.evidence, 'proven');
  assert.deepEqual(a.deadlocks[0]?.threads, ['2', '3']);
  assert.deepEqual(a.facts.map((f) => f.origin), ['text', 'text']);
  assert.deepEqual(a.deadlocks[0]?.blockedBehind, ['1'], 'main, joining abba-ab, is blocked behind the cycle');
});

test('an owner printed for only one mutex proves that hold and leaves the other unresolved', () => {
  const text = read('abba.txt');
  const a = analyze(parseDump(text + printed(addressOf(text, 'lock_b'), lwpOf(text, 'abba-ba'))));
  assert.equal(a.verdict, 'hang');
  const lockA = `mutex:${addressOf(text, 'lock_a')}`;
  assert.deepEqual(a.unresolved.map((u) => u.resource), [lockA]);
  assert.equal(a.unresolved[0]?.gdbCommand, `print ((pthread_mutex_t *) ${addressOf(text, 'lock_a')})->__data.__owner`, 'the exact gdb command that settles it');
  assert.ok(a.edges.some((e) => e.kind === 'holds' && e.evidence === 'proven' && e.ruleId === 'owner-hint' && e.to === 'thread:3'));
});

test('pthread_join(threadid=N) waits for the thread whose header shows N (decimal or hex)', () => {
  assert.equal(pthreadIdFrom('140737351583488'), '0x7ffff7d90700'); // rules-domain §1.4
  assert.equal(pthreadIdFrom('0x00007F5B8511E6C0'), '0x7f5b8511e6c0');
  assert.equal(pthreadIdFrom('0'), null);
  assert.equal(pthreadIdFrom('<optimized out>'), null);
  assert.equal(pthreadIdFrom('99999999999999999999999'), null);
  const text = read('join-holds-mutex.txt');
  const a = analyze(parseDump(text));
  const joiner = a.threads.find((t) => t.name === 'joiner');
  const updater = a.threads.find((t) => t.name === 'updater');
  assert.ok(joiner && updater && updater.ptid);
  const resource = `thread-exit:${updater.ptid}`;
  assert.deepEqual(joiner.waitsFor, [resource]);
  assert.deepEqual(updater.holds, [resource]);
  const hold = a.edges.find((e) => e.kind === 'holds' && e.from === `res:${resource}`);
  assert.equal(hold?.evidence, 'proven');
  // The joiner holds state_lock, which only memory shows; from text the updater's wait is unresolved.
  assert.equal(a.verdict, 'hang');
  assert.deepEqual(a.hung, [updater.key]);
});

test('a hung process is called hung, and says why; a healthy one is not, and says why not', () => {
  for (const name of ['abba.txt', 'abba.nodebug.txt', 'join-holds-mutex.txt', 'py-gil-vs-mutex.txt']) {
    const a = analyze(parseDump(read(name)));
    assert.notEqual(a.verdict, 'ok', name);
    assert.ok(a.verdictReasons.length > 0, name);
    if (a.verdict === 'hang') assert.equal(a.verdictReasons[0]?.kind, 'all-blocked', name);
  }
  for (const name of ['healthy-sleepers.txt', 'healthy-producer-consumer.txt', 'py-healthy-workers.txt']) {
    const a = analyze(parseDump(read(name)));
    assert.equal(a.verdict, 'ok', name);
    assert.equal(a.verdictReasons[0]?.kind, 'can-progress', name);
    assert.doesNotMatch(a.verdictReasons.map((r) => r.text).join(' ') + a.notes.join(' '), /looks hung|cannot end|no thread in the dump holds/, `${name}: nothing says hung`);
  }
});
