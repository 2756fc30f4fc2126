import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { analyzeText } from '../../src/analyze/index.js';

const FOUNDING = readFileSync(fileURLToPath(new URL('../../../fixtures/enzyme-autodiff-deferred.txt', import.meta.url)), 'utf8');
const ZOO = readFileSync(fileURLToPath(new URL('../../../fixtures/live/wait-zoo.txt', import.meta.url)), 'utf8');

test('atStageEnd is called three times per dump (after the threads\' records, the cross-thread stage and the verdict) and changes nothing', () => {
  for (const text of [FOUNDING, ZOO]) {
    let calls = 0;
    const withHook = analyzeText(text, { keepFrames: false, atStageEnd: () => calls++ });
    const without = analyzeText(text, { keepFrames: false });
    assert.equal(calls, 3);
    const { dump: _a, ...seen } = withHook;
    const { dump: _b, ...plain } = without;
    assert.deepEqual(seen, plain);
  }
});

test('threads that hold or wait for nothing share one frozen empty list; the others have their own', () => {
  const analysis = analyzeText(ZOO, { keepFrames: false });
  const idle = analysis.threads.filter((t) => t.holds.length === 0);
  const holding = analysis.threads.filter((t) => t.holds.length > 0);
  assert.ok(idle.length >= 2 && holding.length >= 2, 'the zoo has threads of both kinds');
  for (const t of idle) assert.ok(Object.isFrozen(t.holds));
  assert.equal(new Set(idle.map((t) => t.holds)).size, 1);
  for (const t of holding) assert.ok(!Object.isFrozen(t.holds));
  assert.equal(new Set(holding.map((t) => t.holds)).size, holding.length);
  // Equal rule lists are one list.
  const byIds = new Map<string, string[]>();
  for (const t of analysis.threads) {
    const known = byIds.get(t.rules.join(','));
    if (known !== undefined) assert.equal(t.rules, known);
    else byIds.set(t.rules.join(','), t.rules);
  }
});
