/** analyze/explain.ts: for one thread, what fired, what matched without firing, and the first failed condition of near misses. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../src/analyze/index.js';
import { explainThread, renderExplanation } from '../../src/analyze/explain.js';
import { parseDump } from '../../src/parse/index.js';
import { loadRules } from '../../src/rules/index.js';
import { FOUNDING, PACKS } from '../helpers/paths.js';

const rules = loadRules();

function explain(text: string, key: string, set = rules) {
  const dump = parseDump(text);
  return explainThread(dump, analyze(dump, { rules: set }), set, key);
}

const MUTEX = readFileSync(join(PACKS, 'glibc', 'glibc.mutex.wait.txt'), 'utf8');

test('a rule that fired, and a near miss with the part of the closest frame that failed', () => {
  const e = explain(MUTEX, '5')!;
  assert.deepEqual(e.rules.filter((r) => r.status === 'fired').map((r) => [r.ruleId, r.site]), [['glibc.mutex.wait-nodebug', '#1 pthread_mutex_lock']]);
  const near = e.rules.find((r) => r.ruleId === 'glibc.mutex.wait');
  assert.equal(near?.status, 'near');
  assert.match(near?.why ?? '', /^match\.anyOf\[0\]\.frames\[0\]: frame #1 pthread_mutex_lock has no argument mutex \(its arguments: none\)$/);
  assert.ok(e.unrelated > 20, 'rules with no function of the stack are counted, not listed');
  assert.ok(!e.rules.some((r) => r.ruleId.startsWith('julia.')));
});

test('frames that match but a rule that did not fire: unlessRules', () => {
  const e = explain(readFileSync(FOUNDING, 'utf8'), '7')!;
  const future = e.rules.find((r) => r.ruleId === 'libstdcxx.future.get');
  assert.equal(future?.status, 'matched');
  assert.equal(future?.why, 'match.unlessRules: orc.reenter-wait fired on this thread');
  assert.match(renderExplanation(e), /^Matched its frames, did not fire \(1\):\n {2}libstdcxx\.future\.get {2}at #2 std::future<unsigned long>::get\(\), but did not fire: match\.unlessRules: orc\.reenter-wait fired on this thread$/m);
});

test('position, order, blocked and argument failures are told apart', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-explain-'));
  const rule = (id: string, match: unknown): string => {
    const path = join(dir, `${id}.json`);
    writeFileSync(path, JSON.stringify({ id, pack: 'mine', summary: 's', match, effect: { evidence: 'proven', state: 'x' }, explanation: 'e', fix: 'f', sources: ['s'] }));
    return path;
  };
  const set = loadRules({
    noBuiltins: true,
    cwd: dir,
    extraFiles: [
      rule('mine.top', { frames: [{ function: 'take_a_then_b', at: 'top' }] }),
      rule('mine.order', { frames: [{ function: 'start_thread' }, { function: 'take_a_then_b' }] }),
      rule('mine.unblocked', { frames: [{ function: 'take_a_then_b' }], blocked: false }),
      rule('mine.arg', { frames: [{ function: { exact: 'pthread_mutex_lock', underscores: 'ignore' }, args: { mutex: { symbol: 'lock_a' } } }] }),
      rule('mine.next', { frames: [{ function: { exact: 'lll_lock_wait', underscores: 'ignore' } }, { function: 'take_a_then_b', next: true }] }),
    ],
  });
  const why = (id: string): string | null | undefined => explain(MUTEX, '2', set)!.rules.find((r) => r.ruleId === id)?.why;
  assert.equal(why('mine.top'), 'match.frames[0]: frame #4 take_a_then_b matches, but not where the rule looks (at: { top: 1 }: frames #0–#0)');
  assert.equal(why('mine.order'), 'match.frames[1]: frame #4 take_a_then_b matches, but not further out after the frame of match.frames[0]');
  assert.equal(why('mine.unblocked'), 'match.blocked: false, but the stack starts with wait primitives');
  assert.match(why('mine.arg') ?? '', /^match\.frames\[0\]: frame #3 ___pthread_mutex_lock has mutex=0x561c67ba50e0 <lock_b>$/);
  assert.equal(why('mine.next'), 'match.frames[1]: frame #4 take_a_then_b matches, but not right after the frame of match.frames[0] (next: true)');
  assert.equal(explain(MUTEX, '99', set), null);
});
