/**
 * Strongly connected components without recursion. graphology-components' version is the same
 * path-based algorithm (Gabow) written recursively: a wait chain tens of thousands of threads
 * deep (thread N joins N+1 …) overflowed the call stack. This one keeps its own stack of
 * (node, next-neighbour) frames and visits nodes, neighbours and pops in exactly the library's
 * order, so it returns the same components in the same order (test/graph/scc.test.ts checks
 * that against the library on random graphs).
 */
import type { DirectedGraph } from 'graphology';

interface DfsFrame {
  node: string;
  neighbors: string[];
  next: number;
}

export function stronglyConnectedComponents(graph: DirectedGraph): string[][] {
  const components: string[][] = [];
  let count = 1;
  const P: string[] = [];
  const S: string[] = [];
  const preorder = new Map<string, number>();
  const assigned = new Set<string>();
  const stack: DfsFrame[] = [];

  const enter = (node: string): void => {
    preorder.set(node, count++);
    P.push(node);
    S.push(node);
    stack.push({ node, neighbors: graph.outboundNeighbors(node), next: 0 });
  };

  for (const root of graph.nodes()) {
    if (assigned.has(root)) continue;
    enter(root);
    while (stack.length > 0) {
      const frame = stack[stack.length - 1] as DfsFrame;
      if (frame.next < frame.neighbors.length) {
        const neighbor = frame.neighbors[frame.next++] as string;
        const order = preorder.get(neighbor);
        if (order === undefined) {
          enter(neighbor);
        } else if (!assigned.has(neighbor)) {
          while ((preorder.get(P[P.length - 1] as string) as number) > order) P.pop();
        }
        continue;
      }
      // Every neighbour done: close the node, as the recursive version does on return.
      stack.pop();
      const node = frame.node;
      if (P[P.length - 1] === node) {
        const component: string[] = [];
        let popped: string;
        do {
          popped = S.pop() as string;
          component.push(popped);
          assigned.add(popped);
        } while (popped !== node);
        components.push(component);
        P.pop();
      }
    }
  }
  return components;
}

/**
 * The same components in the same order as `stronglyConnectedComponents` on the graph
 * buildWaitGraph makes of these edges (nodes in order of first appearance, `from` before `to`;
 * self-loops add their node but no edge; parallel edges merged; neighbours in order of their first
 * edge), computed on integer arrays instead of a graphology graph: on a 300 MB dump the graph of
 * 180,000 threads' edges took ~120 MB, more than the rest of the cross-thread stage. Node names
 * must not look like array indices (`thread:…` and `res:…` never do): graphology keeps a node's
 * neighbours in an object, whose integer-like keys come first in numeric order.
 */
export function componentsOfEdges(edges: ReadonlyArray<{ from: string; to: string }>): string[][] {
  const ids = new Map<string, number>();
  const names: string[] = [];
  const id = (name: string): number => {
    let i = ids.get(name);
    if (i === undefined) {
      i = names.length;
      ids.set(name, i);
      names.push(name);
    }
    return i;
  };
  const froms = new Int32Array(edges.length);
  const tos = new Int32Array(edges.length);
  let m = 0;
  for (const e of edges) {
    const from = id(e.from);
    const to = id(e.to);
    if (from === to) continue;
    froms[m] = from;
    tos[m] = to;
    m++;
  }
  const n = names.length;
  // Neighbours by node (compressed rows, in edge order), then each row without repeats.
  const start = new Int32Array(n + 1);
  for (let k = 0; k < m; k++) start[(froms[k] as number) + 1] = (start[(froms[k] as number) + 1] as number) + 1;
  for (let i = 0; i < n; i++) start[i + 1] = (start[i + 1] as number) + (start[i] as number);
  const fill = start.slice(0, n);
  const row = new Int32Array(m);
  for (let k = 0; k < m; k++) {
    const from = froms[k] as number;
    row[fill[from] as number] = tos[k] as number;
    fill[from] = (fill[from] as number) + 1;
  }
  const end = new Int32Array(n);
  const seenFrom = new Int32Array(n).fill(-1);
  for (let i = 0; i < n; i++) {
    let w = start[i] as number;
    for (let r = start[i] as number; r < (fill[i] as number); r++) {
      const to = row[r] as number;
      if (seenFrom[to] === i) continue;
      seenFrom[to] = i;
      row[w++] = to;
    }
    end[i] = w;
  }

  const components: string[][] = [];
  let count = 1;
  const preorder = new Int32Array(n); // 0: not visited yet
  const assigned = new Uint8Array(n);
  const P: number[] = [];
  const S: number[] = [];
  const stackNode: number[] = [];
  const stackNext: number[] = [];
  const enter = (node: number): void => {
    preorder[node] = count++;
    P.push(node);
    S.push(node);
    stackNode.push(node);
    stackNext.push(start[node] as number);
  };
  for (let root = 0; root < n; root++) {
    if (assigned[root] === 1) continue;
    enter(root);
    while (stackNode.length > 0) {
      const top = stackNode.length - 1;
      const node = stackNode[top] as number;
      const next = stackNext[top] as number;
      if (next < (end[node] as number)) {
        stackNext[top] = next + 1;
        const neighbor = row[next] as number;
        const order = preorder[neighbor] as number;
        if (order === 0) enter(neighbor);
        else if (assigned[neighbor] === 0) {
          while ((preorder[P[P.length - 1] as number] as number) > order) P.pop();
        }
        continue;
      }
      stackNode.pop();
      stackNext.pop();
      if (P[P.length - 1] === node) {
        const component: string[] = [];
        let popped: number;
        do {
          popped = S.pop() as number;
          component.push(names[popped] as string);
          assigned[popped] = 1;
        } while (popped !== node);
        components.push(component);
        P.pop();
      }
    }
  }
  return components;
}
