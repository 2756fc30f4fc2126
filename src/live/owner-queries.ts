/**
 * Which owners to ask gdb for, and how to read its answers. Queries are built here from a fixed
 * set of shapes (glibc mutex `__owner`, rwlock `__cur_writer`, the CPython GIL holder) filled
 * only with validated hex addresses; rule files (which users can write) never put text into a
 * gdb command. Answers are integers parsed from gdb's own output.
 */
import type { Analysis, OwnerFact, ResourceId } from '../model/analysis.js';

/** The only address shape that may enter a gdb command. */
export const SAFE_ADDRESS = /^0x[0-9a-f]{1,16}$/;

export type AnswerKind = 'lwp' | 'ptid';

export interface OwnerQuery {
  resource: ResourceId;
  /** gdb expressions to try in order (version variants); the first that evaluates answers. */
  expressions: string[];
  /** What a successful answer is: an LWP (kernel tid) or a pthread_t (decimal). */
  answer: AnswerKind;
  /** Human label for the report: `mutex 0x55c6a8e3d0a0`. */
  label: string;
}

/**
 * CPython GIL holder, per version (rules-domain §6.0; checked with gdb on 3.11). Each expression is
 * the holder's `thread_id` (pthread_t) when the GIL is locked and 0 when it is free.
 *  - 3.9–3.11: `_PyRuntime.ceval.gil`, fields are `_Py_atomic_*` structs with `_value`.
 *  - 3.12: the GIL moved to the interpreter: `_PyRuntime.interpreters.main->ceval.gil` (a pointer).
 *  - 3.13+: same place, `last_holder` a plain `PyThreadState *`, `locked` a plain int.
 */
export const GIL_HOLDER_EXPRESSIONS: readonly string[] = [
  '_PyRuntime.ceval.gil.locked._value ? ((PyThreadState *) _PyRuntime.ceval.gil.last_holder._value)->thread_id : 0',
  '_PyRuntime.interpreters.main->ceval.gil->locked._value ? ((PyThreadState *) _PyRuntime.interpreters.main->ceval.gil->last_holder._value)->thread_id : 0',
  '_PyRuntime.interpreters.main->ceval.gil->locked ? _PyRuntime.interpreters.main->ceval.gil->last_holder->thread_id : 0',
];

/** The query for one resource id, or null when gdb cannot be asked about it. */
export function queryFor(resource: ResourceId): OwnerQuery | null {
  const colon = resource.indexOf(':');
  const kind = resource.slice(0, colon);
  const identity = resource.slice(colon + 1);
  if (kind === 'mutex' && SAFE_ADDRESS.test(identity)) {
    return { resource, expressions: [`((pthread_mutex_t *) ${identity})->__data.__owner`], answer: 'lwp', label: `mutex ${identity}` };
  }
  if (kind === 'rwlock' && SAFE_ADDRESS.test(identity)) {
    return { resource, expressions: [`((pthread_rwlock_t *) ${identity})->__data.__cur_writer`], answer: 'lwp', label: `rwlock ${identity} (writer)` };
  }
  if (resource === 'py:gil') {
    return { resource, expressions: [...GIL_HOLDER_EXPRESSIONS], answer: 'ptid', label: 'the CPython GIL' };
  }
  return null;
}

/**
 * Every resource some thread waits for and gdb can be asked about, once each, in a stable order.
 * Waits whose holder the text already proves are asked too: gdb's answer can only confirm or
 * correct an inference, and it costs one expression.
 */
export function planOwnerQueries(analysis: Pick<Analysis, 'edges' | 'unresolved'>): OwnerQuery[] {
  const seen = new Set<string>();
  const out: OwnerQuery[] = [];
  const consider = (resource: string): void => {
    if (seen.has(resource)) return;
    seen.add(resource);
    const q = queryFor(resource);
    if (q) out.push(q);
  };
  for (const edge of analysis.edges) {
    if (edge.kind === 'waits' && edge.to.startsWith('res:')) consider(edge.to.slice('res:'.length));
  }
  for (const u of analysis.unresolved) consider(u.resource);
  return out;
}

/**
 * Reads an integer from gdb's answer: MI's `value="20496"`, a CLI `$1 = 20496`, or a struct
 * print `{_value = 140615691774848}`. Returns null for anything else (errors, `<optimized out>`).
 */
export function parseIntegerAnswer(answer: string): bigint | null {
  const text = answer.trim().replace(/^\$\d+\s*=\s*/, '');
  const m = /^(?:\{\s*_value\s*=\s*)?(-?\d+|0x[0-9a-fA-F]+)\s*\}?$/.exec(text);
  if (!m) return null;
  try {
    return BigInt(m[1] as string);
  } catch {
    return null;
  }
}

export interface AskedQuery {
  query: OwnerQuery;
  /** The exact gdb command whose answer counted (or the last one tried). */
  command: string;
  /** What gdb answered (value or error message). */
  answer: string;
  ok: boolean;
}

/** Turns a successful answer into an OwnerFact; 0 (unlocked / no writer / GIL free) gives none. */
export function factFromAnswer(asked: AskedQuery): OwnerFact | null {
  if (!asked.ok) return null;
  const n = parseIntegerAnswer(asked.answer);
  if (n === null || n <= 0n) return null;
  const holder = asked.query.answer === 'lwp' ? { lwp: Number(n) } : { ptid: `0x${n.toString(16)}` };
  return { resource: asked.query.resource, holder, origin: 'gdb', query: asked.command, answer: asked.answer, sourceLine: null };
}
