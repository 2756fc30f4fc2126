/**
 * The wait-for graph: the only module that imports graphology. Nodes are `thread:KEY` and
 * `res:ID`; edges are the analysis edges (thread → resource waits, resource → thread holds,
 * thread → thread all-of waits). Finds the strongly connected components that contain a cycle,
 * one concrete cycle per component (rotated to start at the lowest thread), and the threads that
 * wait on each component from outside.
 */
import { DirectedGraph } from 'graphology';
import { componentsOfEdges, stronglyConnectedComponents } from './scc.js';
import type { Edge, ThreadKey } from '../model/analysis.js';
import { compareThreadKeys, isThreadNode, nodeKey, threadNode } from '../model/ids.js';

export interface CycleComponent {
  /** Every node of the strongly connected component. */
  nodes: string[];
  /** Its threads, in thread order. */
  threads: ThreadKey[];
  /** Its resources, sorted. */
  resources: string[];
  /** One concrete cycle as edges in order, starting with an edge out of the lowest thread. */
  cycle: Edge[];
  /** Every edge with both ends in the component. */
  edges: Edge[];
  /** Threads outside the component with a path into it, in thread order. */
  blockedBehind: ThreadKey[];
}

export function buildWaitGraph(edges: Edge[]): DirectedGraph {
  const graph = new DirectedGraph();
  for (const e of edges) {
    graph.mergeNode(e.from);
    graph.mergeNode(e.to);
    if (e.from === e.to) continue; // an all-of wait never includes its own thread
    graph.mergeEdge(e.from, e.to);
  }
  return graph;
}

/**
 * Strongly connected components of a plain directed graph given as node names and edges (the
 * candidate graph of analyze/candidates.ts), in the order stronglyConnectedComponents finds them.
 */
export function componentsOf(nodes: readonly string[], edges: ReadonlyArray<readonly [string, string]>): string[][] {
  const graph = new DirectedGraph();
  for (const n of nodes) graph.mergeNode(n);
  for (const [from, to] of edges) {
    if (from === to || !graph.hasNode(from) || !graph.hasNode(to)) continue;
    graph.mergeEdge(from, to);
  }
  return stronglyConnectedComponents(graph);
}

/** Strongly connected components that contain a cycle with at least one thread. */
export function findCycleComponents(edges: Edge[]): CycleComponent[] {
  // The components of buildWaitGraph(edges), found on integer arrays (memory: 300 MB dumps).
  const componentOf = new Map<string, number>();
  const components = componentsOfEdges(edges).filter((c) => c.length > 1 && c.some(isThreadNode));
  // Most dumps have no cycle: the maps below would index every edge of 100,000 threads for nothing.
  if (components.length === 0) return [];
  components.forEach((c, i) => c.forEach((n) => componentOf.set(n, i)));
  const edgesByFrom = new Map<string, Edge[]>();
  for (const e of edges) {
    const list = edgesByFrom.get(e.from);
    if (list) list.push(e);
    else edgesByFrom.set(e.from, [e]);
  }
  // Edges inside each component, in one pass (a dump can hold thousands of small cycles).
  const inner: Edge[][] = components.map(() => []);
  for (const e of edges) {
    if (e.from === e.to) continue;
    const c = componentOf.get(e.from);
    if (c !== undefined && componentOf.get(e.to) === c) (inner[c] as Edge[]).push(e);
  }
  const result = components.map((nodes, index) => {
    const inside = (n: string): boolean => componentOf.get(n) === index;
    const threads = nodes.filter(isThreadNode).map(nodeKey).sort(compareThreadKeys);
    const resources = nodes.filter((n) => !isThreadNode(n)).map(nodeKey).sort();
    const componentEdges = inner[index] as Edge[];
    const cycle = concreteCycle(threadNode(threads[0] as string), edgesByFrom, inside);
    return { nodes, threads, resources, cycle, edges: componentEdges, blockedBehind: [] as ThreadKey[] };
  });
  // Threads behind a component: reverse reachability from its nodes, outside it.
  const edgesByTo = new Map<string, string[]>();
  for (const e of edges) {
    if (e.from === e.to) continue;
    const list = edgesByTo.get(e.to);
    if (list) list.push(e.from);
    else edgesByTo.set(e.to, [e.from]);
  }
  result.forEach((component, index) => {
    const seen = new Set<string>(component.nodes);
    const queue = [...component.nodes];
    const behind: ThreadKey[] = [];
    while (queue.length > 0) {
      const node = queue.pop() as string;
      for (const prev of edgesByTo.get(node) ?? []) {
        if (seen.has(prev)) continue;
        seen.add(prev);
        if (componentOf.get(prev) === index) continue;
        if (isThreadNode(prev)) behind.push(nodeKey(prev));
        queue.push(prev);
      }
    }
    component.blockedBehind = behind.sort(compareThreadKeys);
  });
  return result.sort((a, b) => compareThreadKeys(a.threads[0] as string, b.threads[0] as string));
}

/**
 * Shortest cycle through `start` inside the component (breadth-first, edges tried in input
 * order, so the result is deterministic).
 */
function concreteCycle(start: string, edgesByFrom: Map<string, Edge[]>, inside: (n: string) => boolean): Edge[] {
  const via = new Map<string, Edge>();
  const queue: string[] = [start];
  let head = 0;
  while (head < queue.length) {
    const node = queue[head++] as string;
    for (const e of edgesByFrom.get(node) ?? []) {
      if (e.from === e.to || !inside(e.to)) continue;
      if (e.to === start) {
        const path: Edge[] = [e];
        let at = node;
        while (at !== start) {
          const back = via.get(at) as Edge;
          path.push(back);
          at = back.from;
        }
        return path.reverse();
      }
      if (via.has(e.to) || e.to === start) continue;
      via.set(e.to, e);
      queue.push(e.to);
    }
  }
  return [];
}
