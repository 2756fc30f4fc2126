/**
 * model/ids.ts: the one order of thread keys, which graph (cycles, blocked-behind lists), analyze
 * (threads, hangs) and every report (thread lists, table rows) share. Before it there were two,
 * and on `bt@119, 2.4, 10, 2, 1.3` the graph said `1.3, 2, 2.4, 10, bt@119` while the text report
 * listed `2, 10, bt@119, 1.3, 2.4`.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Chalk } from 'chalk';
import fc from 'fast-check';
import { analyzeText } from '../../src/analyze/index.js';
import { findCycleComponents } from '../../src/graph/index.js';
import type { Edge } from '../../src/model/analysis.js';
import { compareThreadKeys, nodeKey, parseNodeId, resourceNode, threadNode } from '../../src/model/ids.js';
import { renderText } from '../../src/report/index.js';

const sorted = (keys: string[]): string[] => [...keys].sort(compareThreadKeys);

test('thread keys sort as gdb numbers them: numerically, dotted ids by their parts, headerless backtraces last by line', () => {
  assert.deepEqual(sorted(['bt@119', '2.4', '10', '2', '1.3']), ['1.3', '2', '2.4', '10', 'bt@119']);
  assert.deepEqual(sorted(['10', '9', '100', '1']), ['1', '9', '10', '100']);
  assert.deepEqual(sorted(['2.10', '2.9', '2', '1.12']), ['1.12', '2', '2.9', '2.10']);
  assert.deepEqual(sorted(['bt@119', 'bt@12', 'bt@5', '99999']), ['99999', 'bt@5', 'bt@12', 'bt@119']);
  // Anything else (no such key today) after both, in code-unit order, never mixed in.
  assert.deepEqual(sorted(['zeta', 'bt@3', 'alpha', '4']), ['4', 'bt@3', 'alpha', 'zeta']);
  // Equal numbers, different spellings: still a total order.
  assert.deepEqual(sorted(['07', '7']), ['07', '7']);
});

test('the order is total and consistent on any keys (antisymmetric, transitive, reflexive)', () => {
  const key = fc.oneof(
    fc.nat({ max: 300 }).map(String),
    fc.tuple(fc.nat({ max: 5 }), fc.nat({ max: 30 })).map(([a, b]) => `${a}.${b}`),
    fc.nat({ max: 500 }).map((n) => `bt@${n}`),
    fc.string({ maxLength: 4 }),
  );
  fc.assert(
    fc.property(key, key, key, (a, b, c) => {
      assert.equal(compareThreadKeys(a, a), 0);
      assert.equal(Math.sign(compareThreadKeys(a, b)) + Math.sign(compareThreadKeys(b, a)), 0, `${a} vs ${b}`);
      if (compareThreadKeys(a, b) <= 0 && compareThreadKeys(b, c) <= 0) assert.ok(compareThreadKeys(a, c) <= 0, `${a} ≤ ${b} ≤ ${c}`);
      if (compareThreadKeys(a, b) === 0) assert.equal(a, b, 'only equal keys compare equal');
    }),
  );
});

test('node ids: a thread and a resource node, and back', () => {
  assert.equal(threadNode('2.4'), 'thread:2.4');
  assert.equal(resourceNode('mutex:0x5'), 'res:mutex:0x5');
  assert.equal(nodeKey(resourceNode('mutex:0x5')), 'mutex:0x5');
  assert.deepEqual(parseNodeId(threadNode('bt@119')), { kind: 'thread', key: 'bt@119' });
  assert.deepEqual(parseNodeId(resourceNode('julia:gc-stop')), { kind: 'resource', key: 'julia:gc-stop' });
});

test('the graph orders a cycle of those threads the same way', () => {
  const keys = ['bt@119', '2.4', '10', '2', '1.3'];
  // A ring: each thread waits for a lock the next one holds.
  const edges: Edge[] = keys.flatMap((key, i): Edge[] => {
    const lock = resourceNode(`mutex:0x${i + 1}`);
    const next = keys[(i + 1) % keys.length] as string;
    return [
      { kind: 'waits', from: threadNode(key), to: lock, evidence: 'proven', ruleId: 'test', site: null, description: 'waits' },
      { kind: 'holds', from: lock, to: threadNode(next), evidence: 'proven', ruleId: 'test', site: null, description: '' },
    ];
  });
  const [component] = findCycleComponents(edges);
  assert.deepEqual(component?.threads, ['1.3', '2', '2.4', '10', 'bt@119']);
  assert.equal(component?.cycle[0]?.from, threadNode('1.3'), 'the cycle starts at the first thread');
});

test('the analysis and the text report list threads in that one order', () => {
  const frames = (fn: string): string => `#0  0x00007f0000001000 in ${fn} () from /lib/libx.so\n#1  0x00007f0000002000 in main ()\n`;
  const text =
    `Thread 10 (Thread 0x7f000000000a (LWP 110)):\n${frames('compute_a')}\n` +
    `Thread 2.4 (Thread 0x7f0000000024 (LWP 124)):\n${frames('compute_b')}\n` +
    `Thread 2 (Thread 0x7f0000000002 (LWP 102)):\n${frames('compute_c')}\n` +
    `Thread 1.3 (Thread 0x7f0000000013 (LWP 113)):\n${frames('compute_d')}\n` +
    // A headerless `bt` whose frames are no thread's: analysed on its own as bt@18.
    `(gdb) bt\n${frames('compute_e')}`;
  const analysis = analyzeText(text);
  assert.deepEqual(
    analysis.threads.map((t) => t.key),
    ['1.3', '2', '2.4', '10', 'bt@18'],
  );
  const report = renderText(analysis, { chalk: new Chalk({ level: 0 }) });
  assert.match(report, /5 threads \(running \(not blocked in a wait\)\): 1\.3, 2, 2\.4, 10, backtrace at line 18\n/);
});
