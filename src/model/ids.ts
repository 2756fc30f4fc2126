/**
 * The one home of the wait-for graph's node ids and of the order of thread keys. Every stage that
 * names a node (analyze makes edges, graph finds cycles, every report draws them) or sorts
 * threads (threads, cycles, blocked-behind lists, table rows) uses these, so no two of them can
 * disagree on what `thread:9` is or on which thread comes first.
 *
 * Node ids are `thread:KEY` for a thread (`thread:9`, `thread:bt@119`) and `res:ID` for a
 * resource (`res:mutex:0x5555555580a0`, `res:julia:gc-stop`).
 */
import type { ResourceId, ThreadKey } from './analysis.js';

export const threadNode = (key: ThreadKey): string => `thread:${key}`;
export const resourceNode = (id: ResourceId): string => `res:${id}`;
export const isThreadNode = (node: string): boolean => node.startsWith('thread:');
/** The key or resource id inside a node id: `thread:9` → `9`, `res:mutex:0x5` → `mutex:0x5`. */
export const nodeKey = (node: string): string => node.slice(node.indexOf(':') + 1);

/** A node id split into its kind and key. */
export type NodeRef = { kind: 'thread'; key: ThreadKey } | { kind: 'resource'; key: ResourceId };

export function parseNodeId(id: string): NodeRef {
  if (id.startsWith('thread:')) return { kind: 'thread', key: id.slice('thread:'.length) };
  if (id.startsWith('res:')) return { kind: 'resource', key: id.slice('res:'.length) };
  // Unknown prefixes are drawn as resources rather than dropped, so nothing silently disappears.
  return { kind: 'resource', key: id };
}

/**
 * Orders thread keys as gdb numbers them: numerically (`9` before `10`), a dotted `inferior.thread`
 * number by its parts (`1.3` before `2`, `2` before `2.4` before `10`), then the headerless
 * backtraces `bt@LINE` by line (`bt@5` before `bt@119`), then any other key; equal ranks fall back
 * to code-unit order, so the order is total and the same on every machine.
 *
 *   bt@119, 2.4, 10, 2, 1.3  →  1.3, 2, 2.4, 10, bt@119
 */
export function compareThreadKeys(a: ThreadKey, b: ThreadKey): number {
  // Plain gdb numbers (most keys): one number each, no splitting (sorts of 100,000 threads).
  if (isDigits(a) && isDigits(b)) {
    const x = Number(a);
    const y = Number(b);
    if (x !== y) return x - y;
    return compareCodeUnits(a, b);
  }
  const ka = keyOrder(a);
  const kb = keyOrder(b);
  if (ka.rank !== kb.rank) return ka.rank - kb.rank;
  const n = Math.max(ka.parts.length, kb.parts.length);
  for (let i = 0; i < n; i++) {
    // A number that is a prefix of another comes first (`2` before `2.4`).
    const x = ka.parts[i] ?? -1;
    const y = kb.parts[i] ?? -1;
    if (x !== y) return x - y;
  }
  return compareCodeUnits(a, b);
}

/** Rank 0: a gdb number (`2`, `1.3`); 1: a headerless backtrace (`bt@119`); 2: anything else. */
function keyOrder(key: ThreadKey): { rank: number; parts: number[] } {
  if (GDB_NUMBER.test(key)) return { rank: 0, parts: key.split('.').map(Number) };
  const headerless = HEADERLESS.exec(key);
  if (headerless !== null) return { rank: 1, parts: [Number(headerless[1])] };
  return { rank: 2, parts: [] };
}

const GDB_NUMBER = /^\d+(?:\.\d+)*$/;
const HEADERLESS = /^bt@(\d+)$/;

function isDigits(key: string): boolean {
  if (key.length === 0) return false;
  for (let i = 0; i < key.length; i++) {
    const c = key.charCodeAt(i);
    if (c < 48 || c > 57) return false;
  }
  return true;
}

function compareCodeUnits(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}
