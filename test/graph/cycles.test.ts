import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { findCycleComponents } from '../../src/graph/index.js';
import { compareThreadKeys } from '../../src/model/ids.js';
import type { Edge } from '../../src/model/analysis.js';

const waits = (t: string, r: string, evidence: Edge['evidence'] = 'proven'): Edge => ({
  kind: 'waits', from: `thread:${t}`, to: `res:${r}`, evidence, ruleId: 'test.wait', site: null, description: `waits for ${r}`,
});
const holds = (r: string, t: string, evidence: Edge['evidence'] = 'proven'): Edge => ({
  kind: 'holds', from: `res:${r}`, to: `thread:${t}`, evidence, ruleId: 'test.hold', site: null, description: '',
});
const waitsThread = (a: string, b: string): Edge => ({
  kind: 'waits-thread', from: `thread:${a}`, to: `thread:${b}`, evidence: 'inferred', ruleId: 'test.all', site: null, description: 'waits for all', viaState: 's',
});

/** A ring of n threads: thread i waits for lock i, held by thread i+1 (mod n). */
function ring(n: number, offset = 1): Edge[] {
  const edges: Edge[] = [];
  for (let i = 0; i < n; i++) {
    const t = String(i + offset);
    const next = String(((i + 1) % n) + offset);
    edges.push(waits(t, `mutex:0x${(i + offset).toString(16)}`), holds(`mutex:0x${(i + offset).toString(16)}`, next));
  }
  return edges;
}

test('a two-thread lock inversion is one component with a concrete cycle starting at the lowest thread', () => {
  const [c, ...rest] = findCycleComponents([...ring(2, 4)]);
  assert.equal(rest.length, 0);
  assert.ok(c);
  assert.deepEqual(c.threads, ['4', '5']);
  assert.deepEqual(c.resources, ['mutex:0x4', 'mutex:0x5']);
  assert.equal(c.cycle.length, 4);
  assert.equal(c.cycle[0]?.from, 'thread:4');
  assert.equal(c.cycle[c.cycle.length - 1]?.to, 'thread:4');
});

test('removing any edge of a cycle removes the deadlock', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 7 }), fc.nat(), (n, pick) => {
      const edges = ring(n);
      assert.equal(findCycleComponents(edges).length, 1);
      const without = edges.filter((_, i) => i !== pick % edges.length);
      assert.equal(findCycleComponents(without).length, 0);
    }),
  );
});

test('two independent cycles are both reported, in thread order', () => {
  const comps = findCycleComponents([...ring(3, 20), ...ring(2, 1)]);
  assert.deepEqual(comps.map((c) => c.threads), [['1', '2'], ['20', '21', '22']]);
});

test('a thread waiting for what it holds is a deadlock of one thread', () => {
  const comps = findCycleComponents([waits('3', 'mutex:0x10'), holds('mutex:0x10', '3'), waits('4', 'mutex:0x10')]);
  assert.equal(comps.length, 1);
  assert.deepEqual(comps[0]?.threads, ['3']);
  assert.equal(comps[0]?.cycle.length, 2);
  assert.deepEqual(comps[0]?.blockedBehind, ['4']);
});

test('an all-of wait closes a cycle through thread → thread edges; blocked-behind threads are found transitively', () => {
  const edges = [
    waitsThread('9', '7'),
    waitsThread('9', '8'),
    waits('7', 'orc:lazy-compile', 'inferred'),
    waits('8', 'orc:lazy-compile', 'inferred'),
    holds('orc:lazy-compile', '9', 'inferred'),
    holds('julia:gc-stop', '9'),
    waits('1', 'julia:gc-stop'),
    waits('3', 'julia:gc-stop'),
    waits('30', 'mutex:0x1'),
    holds('mutex:0x1', '3'),
  ];
  const [c] = findCycleComponents(edges);
  assert.ok(c);
  assert.deepEqual(c.threads, ['7', '8', '9']);
  assert.deepEqual(c.blockedBehind, ['1', '3', '30']);
  assert.equal(c.cycle[0]?.from, 'thread:7');
  assert.deepEqual(
    c.cycle.map((e) => e.kind),
    ['waits', 'holds', 'waits-thread'],
  );
});

test('a chain without a cycle has no component, and an all-of wait never points at its own thread', () => {
  assert.equal(findCycleComponents([waits('1', 'm'), holds('m', '2'), waits('2', 'n')]).length, 0);
  assert.equal(findCycleComponents([waitsThread('5', '5')]).length, 0);
});

test('thread keys sort by number, headerless backtraces last', () => {
  assert.deepEqual(['10', 'bt@3', '9', '2.4', '2.10', '1'].sort(compareThreadKeys), ['1', '2.4', '2.10', '9', '10', 'bt@3']);
});
