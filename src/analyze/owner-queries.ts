/**
 * The owner lookups still open in an analysis, for live mode: each unresolved wait whose rule
 * carries an `ownerQuery`, de-duplicated by resource. Live mode runs the query in gdb, maps the
 * answer (an LWP or a pthread_t) to an OwnerFact and analyses again, so the cycle becomes proven.
 */
import type { Analysis, ResourceId, ThreadKey } from '../model/analysis.js';

export interface OwnerQuery {
  resource: ResourceId;
  /** The address in the resource id (`mutex:0x55…`), or null. */
  address: string | null;
  /** The gdb command, e.g. `print ((pthread_mutex_t *) 0x5555555580a0)->__data.__owner`. */
  query: string;
  /** What the command prints: the holder's LWP or its pthread_t. */
  answer: 'lwp' | 'ptid';
  /** Threads waiting for the resource. */
  waiters: ThreadKey[];
}

export function openOwnerQueries(analysis: Analysis): OwnerQuery[] {
  const byResource = new Map<ResourceId, OwnerQuery>();
  for (const u of analysis.unresolved) {
    if (u.gdbCommand === null) continue;
    const existing = byResource.get(u.resource);
    if (existing) {
      if (!existing.waiters.includes(u.thread)) existing.waiters.push(u.thread);
      continue;
    }
    const identity = u.resource.slice(u.resource.indexOf(':') + 1);
    byResource.set(u.resource, {
      resource: u.resource,
      address: /^0x[0-9a-f]+$/i.test(identity) ? identity : null,
      query: u.gdbCommand,
      answer: u.ownerAnswer ?? 'lwp',
      waiters: [u.thread],
    });
  }
  return [...byResource.values()];
}
