/**
 * Holders the text itself proves through thread identities (rules-domain §1.4): a wait on
 * `thread-exit:N` — pthread_join's `threadid=N`, printed in decimal (`140031051290304`) or hex —
 * is a wait for the thread whose header shows that pthread_t (`Thread 0x7f5b8511e6c0 (LWP …)`).
 * The resource is renamed to the hex form the headers use, and the joined thread holds it
 * (proven: both numbers are in the text).
 */
import type { Edge, ThreadAnalysis } from '../model/analysis.js';
import { resourceNode, threadNode } from '../model/ids.js';
import { normalizeAddress } from '../rules/arg-values.js';

const THREAD_EXIT = 'res:thread-exit:';

/** `140031051290304` or `0x7f5b8511e6c0` → `0x7f5b8511e6c0`; anything else → null. */
export function pthreadIdFrom(text: string): string | null {
  const t = text.trim();
  if (/^0x[0-9a-fA-F]{1,16}$/.test(t)) return normalizeAddress(t);
  if (/^\d{1,20}$/.test(t)) {
    const n = BigInt(t);
    return n > 0n && n < 1n << 64n ? `0x${n.toString(16)}` : null;
  }
  return null;
}

export function resolveThreadExits(threads: ReadonlyArray<Pick<ThreadAnalysis, 'key' | 'ptid'>>, edges: Edge[]): void {
  const waits = edges.filter((e) => e.kind === 'waits' && e.to.startsWith(THREAD_EXIT));
  // Most dumps join nothing: skip normalising every thread's pthread_t.
  if (waits.length === 0) return;
  const byPtid = new Map<string, string>();
  for (const t of threads) if (t.ptid !== null) byPtid.set(normalizeAddress(t.ptid), t.key);
  // Hold edges already there, by `from→to` (a Set, not a scan of `edges` per wait: a dump where
  // thousands of threads join each other was quadratic here).
  const holds = new Set<string>();
  for (const e of edges) if (e.kind === 'holds') holds.add(`${e.from}\n${e.to}`);
  for (const wait of waits) {
    const raw = wait.to.slice(THREAD_EXIT.length);
    const ptid = pthreadIdFrom(raw);
    if (ptid === null) continue;
    const node = resourceNode(`thread-exit:${ptid}`);
    wait.to = node;
    if (raw !== ptid) wait.description = wait.description.split(raw).join(ptid);
    const key = byPtid.get(ptid);
    if (key === undefined) continue;
    const holdKey = `${node}\n${threadNode(key)}`;
    if (holds.has(holdKey)) continue;
    holds.add(holdKey);
    edges.push({
      kind: 'holds',
      from: node,
      to: threadNode(key),
      evidence: 'proven',
      ruleId: 'thread-identity',
      site: null,
      description: `its header shows pthread_t ${ptid}`,
    });
  }
}
