/**
 * The iterative SCC (src/graph/scc.ts) against graphology-components' recursive one: same
 * components, same order, same node order inside each — and no stack overflow on a deep chain.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { DirectedGraph } from 'graphology';
import { stronglyConnectedComponents as library } from 'graphology-components';
import { componentsOfEdges, stronglyConnectedComponents } from '../../src/graph/scc.js';
import { buildWaitGraph, findCycleComponents } from '../../src/graph/index.js';
import type { Edge } from '../../src/model/analysis.js';

function graphOf(nodes: number, edges: Array<[number, number]>): DirectedGraph {
  const g = new DirectedGraph();
  for (let i = 0; i < nodes; i++) g.addNode(`n${i}`);
  for (const [a, b] of edges) g.mergeEdge(`n${a % nodes}`, `n${b % nodes}`);
  return g;
}

test('same components, in the same order, as graphology-components on random graphs (self-loops included)', () => {
  fc.assert(
    fc.property(fc.integer({ min: 0, max: 30 }), fc.array(fc.tuple(fc.nat(60), fc.nat(60)), { maxLength: 90 }), (nodes, edges) => {
      const g = graphOf(Math.max(nodes, 1), edges);
      assert.deepEqual(stronglyConnectedComponents(g), library(g));
    }),
    { numRuns: 500, seed: 7 },
  );
});

test('the array version gives the components of the wait graph buildWaitGraph makes, in the same order (self-loops, parallel edges, both node kinds)', () => {
  fc.assert(
    fc.property(fc.array(fc.tuple(fc.nat(25), fc.nat(25)), { maxLength: 120 }), (pairs) => {
      // Even numbers are threads, odd ones resources, as the analysis names them.
      const name = (i: number): string => (i % 2 === 0 ? `thread:${i}` : `res:mutex:0x${i.toString(16)}`);
      const edges: Edge[] = pairs.map(([a, b]) => ({ kind: 'waits', from: name(a), to: name(b), evidence: 'inferred', ruleId: 'test', site: null, description: '' }));
      assert.deepEqual(componentsOfEdges(edges), stronglyConnectedComponents(buildWaitGraph(edges)));
    }),
    { numRuns: 500, seed: 11 },
  );
});

test('a 100,000-thread wait ring is found without overflowing the stack (the library version throws RangeError)', () => {
  const n = 100_000;
  const edges: Edge[] = [];
  for (let i = 1; i <= n; i++) {
    const next = (i % n) + 1;
    edges.push({ kind: 'waits-thread', from: `thread:${i}`, to: `thread:${next}`, evidence: 'inferred', ruleId: 'test.join', site: null, description: 'joins', viaState: 'x' });
  }
  const g = new DirectedGraph();
  for (const e of edges) g.mergeEdge(e.from, e.to);
  assert.throws(() => library(g), RangeError);
  const components = findCycleComponents(edges);
  assert.equal(components.length, 1);
  assert.equal(components[0]!.threads.length, n);
  assert.equal(components[0]!.cycle.length, n);
});
