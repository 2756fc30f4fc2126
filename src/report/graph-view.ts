/**
 * The wait-for graph as the picture formats (DOT/SVG, Mermaid) draw it: nodes with label lines,
 * edges with short verbs, and what belongs to a deadlock marked so it can be highlighted. Both
 * pictures are built from these views, so they show the same graph.
 */
import type { Analysis, Deadlock, Edge, Evidence, ThreadAnalysis, ThreadKey } from '../model/analysis.js';
import { compareThreadKeys, parseNodeId, resourceNode, threadNode } from '../model/ids.js';
import { compareText, deadlockRows, edgeVerb, threadList, threadsByKey, threadTitle } from './cycle-view.js';

export interface ViewNode {
  /** The model's node id (`thread:7`, `res:orc:lazy-compile`), or `group:1,3,4` for a bucket. */
  id: string;
  kind: 'thread' | 'resource';
  /** First line is the name; further lines describe it. */
  label: string[];
  /** In a deadlock's strongly connected component. */
  inDeadlock: boolean;
  /** A resource some thread waits for but nobody is known to hold. */
  holderUnknown: boolean;
}

export interface ViewEdge {
  from: string;
  to: string;
  label: string;
  evidence: Evidence;
  inDeadlock: boolean;
}

export interface GraphView {
  nodes: ViewNode[];
  edges: ViewEdge[];
}

/**
 * Every thread and resource that takes part in a wait or a hold. Threads outside deadlocks that
 * nothing waits on and that wait for exactly the same things in the same state are drawn as one
 * node ("threads 1, 3, 4, 5, 6"), so a dump with 60 parked workers stays readable.
 */
export function wholeGraphView(analysis: Analysis): GraphView {
  const threads = threadsByKey(analysis);
  const deadlockThreads = new Set(analysis.deadlocks.flatMap((d) => d.threads));
  const deadlockResources = new Set(analysis.deadlocks.flatMap((d) => d.resources));
  const deadlockEdges = new Set<Edge>();
  for (const deadlock of analysis.deadlocks) {
    for (const row of deadlockRows(analysis, deadlock)) {
      deadlockEdges.add(row.wait);
      if (row.hold) deadlockEdges.add(row.hold);
    }
  }

  const incoming = new Set<string>();
  const outgoing = new Map<string, Edge[]>();
  const nodeIds = new Set<string>();
  for (const edge of analysis.edges) {
    nodeIds.add(edge.from);
    nodeIds.add(edge.to);
    incoming.add(edge.to);
    const list = outgoing.get(edge.from) ?? [];
    list.push(edge);
    outgoing.set(edge.from, list);
  }
  const held = new Set(analysis.edges.filter((e) => e.kind === 'holds').map((e) => e.from));

  // Buckets of interchangeable leaf waiters.
  const groupOf = new Map<string, string>();
  const buckets = new Map<string, ThreadKey[]>();
  for (const id of nodeIds) {
    const ref = parseNodeId(id);
    if (ref.kind !== 'thread' || deadlockThreads.has(ref.key) || incoming.has(id)) continue;
    const thread = threads.get(ref.key);
    const out = (outgoing.get(id) ?? []).map((e) => `${e.kind}>${e.to}>${e.evidence}>${edgeVerb(e)}`).sort(compareText);
    const key = `${thread?.state ?? ''}|${out.join('|')}`;
    const list = buckets.get(key) ?? [];
    list.push(ref.key);
    buckets.set(key, list);
  }
  for (const members of buckets.values()) {
    if (members.length < 2) continue;
    members.sort(compareThreadKeys);
    const groupId = `group:${members.join(',')}`;
    for (const key of members) groupOf.set(threadNode(key), groupId);
  }

  const nodes = new Map<string, ViewNode>();
  for (const id of nodeIds) {
    const groupId = groupOf.get(id);
    if (groupId) {
      if (!nodes.has(groupId)) {
        const members = groupId.slice('group:'.length).split(',');
        const sample = threads.get(members[0]!);
        nodes.set(groupId, {
          id: groupId,
          kind: 'thread',
          label: [`${members.length} threads: ${threadList(members)}`, ...(sample ? [sample.stateText] : [])],
          inDeadlock: false,
          holderUnknown: false,
        });
      }
      continue;
    }
    const ref = parseNodeId(id);
    if (ref.kind === 'thread') {
      const thread = threads.get(ref.key);
      nodes.set(id, {
        id,
        kind: 'thread',
        label: [threadTitle(ref.key), ...(thread ? [thread.stateText, ...codeLine(thread)] : [])],
        inDeadlock: deadlockThreads.has(ref.key),
        holderUnknown: false,
      });
    } else {
      nodes.set(id, {
        id,
        kind: 'resource',
        label: held.has(id) ? [ref.key] : [ref.key, 'holder unknown'],
        inDeadlock: deadlockResources.has(ref.key),
        holderUnknown: !held.has(id),
      });
    }
  }

  const edges = new Map<string, ViewEdge>();
  // Edge keys use small serial numbers, not the node ids: a group id lists every member, and a
  // fresh key string holding it would be hashed anew for each edge (quadratic with 100,000 waiters).
  const serial = new Map<string, number>();
  const serialOf = (id: string): number => {
    let n = serial.get(id);
    if (n === undefined) serial.set(id, (n = serial.size));
    return n;
  };
  for (const edge of analysis.edges) {
    const from = groupOf.get(edge.from) ?? edge.from;
    const to = groupOf.get(edge.to) ?? edge.to;
    const view: ViewEdge = { from, to, label: edgeVerb(edge), evidence: edge.evidence, inDeadlock: deadlockEdges.has(edge) };
    const key = `${serialOf(from)}\u0000${serialOf(to)}\u0000${view.label}`;
    const existing = edges.get(key);
    // A group's members share the edge; it is proven only if every member's is.
    if (existing) {
      existing.inDeadlock ||= view.inDeadlock;
      if (view.evidence === 'inferred') existing.evidence = 'inferred';
    } else {
      edges.set(key, view);
    }
  }
  return finish([...nodes.values()], [...edges.values()]);
}

/** Only the deadlock's threads and resources and the waits and holds between them. */
export function deadlockView(analysis: Analysis, deadlock: Deadlock): GraphView {
  const threads = threadsByKey(analysis);
  const nodes = new Map<string, ViewNode>();
  const edges = new Map<string, ViewEdge>();
  const addThread = (key: ThreadKey): string => {
    const id = threadNode(key);
    if (!nodes.has(id)) {
      const thread = threads.get(key);
      nodes.set(id, { id, kind: 'thread', label: [threadTitle(key), ...(thread ? [thread.stateText, ...codeLine(thread)] : [])], inDeadlock: true, holderUnknown: false });
    }
    return id;
  };
  const addEdge = (from: string, to: string, edge: Edge): void => {
    const label = edgeVerb(edge);
    const key = `${from}\u0000${to}\u0000${label}`;
    if (!edges.has(key)) edges.set(key, { from, to, label, evidence: edge.evidence, inDeadlock: true });
  };
  for (const row of deadlockRows(analysis, deadlock)) {
    const waiter = addThread(row.waiter);
    const holder = addThread(row.holder);
    if (row.resource === null) {
      addEdge(waiter, holder, row.wait);
      continue;
    }
    const resource = resourceNode(row.resource);
    if (!nodes.has(resource)) {
      nodes.set(resource, { id: resource, kind: 'resource', label: [row.resource], inDeadlock: true, holderUnknown: false });
    }
    addEdge(waiter, resource, row.wait);
    if (row.hold) addEdge(resource, holder, row.hold);
  }
  return finish([...nodes.values()], [...edges.values()]);
}

/** Threads (by number) before resources (by id): a stable order for deterministic output. */
function sortNodes(nodes: ViewNode[]): ViewNode[] {
  return nodes.sort((a, b) => {
    if (a.kind !== b.kind) return a.kind === 'thread' ? -1 : 1;
    if (a.kind === 'thread') return compareThreadKeys(nodeSortKey(a.id), nodeSortKey(b.id));
    return compareText(a.id, b.id);
  });
}

function nodeSortKey(id: string): string {
  if (id.startsWith('group:')) return id.slice('group:'.length).split(',')[0]!;
  return parseNodeId(id).key;
}

/** Edges in node order (by source, then target), so the picture's text diff stays readable. */
function finish(nodes: ViewNode[], edges: ViewEdge[]): GraphView {
  const sorted = sortNodes(nodes);
  const position = new Map(sorted.map((node, index) => [node.id, index]));
  const at = (id: string): number => position.get(id) ?? Number.MAX_SAFE_INTEGER;
  edges.sort((a, b) => at(a.from) - at(b.from) || at(a.to) - at(b.to) || compareText(a.label, b.label));
  return { nodes: sorted, edges };
}

/** `at abba.c:17: pthread_mutex_lock(&lock_b);` when `--source` read the line the thread waits at; nothing otherwise. */
function codeLine(thread: ThreadAnalysis): string[] {
  const site = thread.acquireSite;
  return site?.code !== undefined ? [`at ${site.file ?? '?'}:${site.line ?? '?'}: ${site.code}`] : [];
}
