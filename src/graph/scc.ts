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
