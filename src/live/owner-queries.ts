/**
 * Which owners to ask gdb for, and how to read its answers: the one table of owner shapes
 * (model/owner-shapes.ts names them; rules say `owner: pthread-mutex`). Each shape's query is
 * built here, filled only with validated hex addresses; rule files (which users can write) never
 * put text into a gdb command. Answers are integers parsed from gdb's own output.
 */
import type { Analysis, OwnerFact, ResourceId } from '../model/analysis.js';
import type { OwnerShape } from '../model/owner-shapes.js';

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

interface ShapeQuery {
  /** The resource identity must be a lock's address (SAFE_ADDRESS); false: the shape names one lock of the process. */
  address: boolean;
  /** With `address: false`, the identities the shape accepts (a fixed list of names, never rule text). */
  names?: readonly string[];
  expressions: (address: string) => string[];
  answer: AnswerKind;
  label: (address: string) => string;
}

/** The one table: what gdb is asked for each owner shape. */
const SHAPES: Readonly<Record<OwnerShape, ShapeQuery>> = {
  'pthread-mutex': { address: true, expressions: (a) => [`((pthread_mutex_t *) ${a})->__data.__owner`], answer: 'lwp', label: (a) => `mutex ${a}` },
  'pthread-rwlock': { address: true, expressions: (a) => [`((pthread_rwlock_t *) ${a})->__data.__cur_writer`], answer: 'lwp', label: (a) => `rwlock ${a} (writer)` },
  gil: { address: false, expressions: () => [...GIL_HOLDER_EXPRESSIONS], answer: 'ptid', label: () => 'the CPython GIL' },
  // jl_mutex_t = { _Atomic(jl_task_t *) owner; uint32_t count; } (JuliaLang/julia src/julia_locks.h).
  'jl-mutex': { address: true, expressions: (a) => [`((jl_task_t *) ((jl_mutex_t *) ${a})->owner)->ptls->system_id`], answer: 'ptid', label: (a) => `jl_mutex_t ${a}` },
  // GRecMutex's first word `p` is the recursive pthread mutex g_rec_mutex_impl_new allocated
  // (GNOME/glib glib/gthread-posix.c): read as a plain pointer, so GLib's types are not needed.
  'grec-mutex': { address: true, expressions: (a) => [`((pthread_mutex_t *) *(void **) ${a})->__data.__owner`], answer: 'lwp', label: (a) => `GRecMutex ${a}` },
  // rlockobject = { PyObject_HEAD; PyThread_type_lock rlock_lock; unsigned long rlock_owner; … } (Modules/_threadmodule.c, 3.11).
  'py-rlock': { address: true, expressions: (a) => [`((rlockobject *) ${a})->rlock_owner`], answer: 'ptid', label: (a) => `threading.RLock ${a}` },
  // The loader's locks are fields of ld.so's `_rtld_global` (`__rtld_lock_recursive_t` = { pthread_mutex_t
  // mutex; }, bminor/glibc sysdeps/generic/ldsodefs.h); checked with gdb 13 on glibc 2.36.
  'rtld-lock': {
    address: false,
    names: ['dl_load_lock', 'dl_load_write_lock', 'dl_load_tls_lock'],
    expressions: (name) => [`_rtld_global._${name}.mutex.__data.__owner`],
    answer: 'lwp',
    label: (name) => `the dynamic loader's ${name}`,
  },
};

/** The shape a resource kind has when its rule names none: the pthread objects and the GIL. */
function defaultShape(resource: ResourceId): OwnerShape | null {
  if (resource === 'py:gil') return 'gil';
  const kind = resource.slice(0, resource.indexOf(':'));
  return kind === 'mutex' ? 'pthread-mutex' : kind === 'rwlock' ? 'pthread-rwlock' : null;
}

/**
 * The query for one resource id, by the owner shape its rule names (`shape`), else by its kind
 * (`mutex:ADDR` a pthread mutex, `rwlock:ADDR` a pthread rwlock, `py:gil`); null when gdb cannot
 * be asked about it.
 */
export function queryFor(resource: ResourceId, shape?: OwnerShape | null): OwnerQuery | null {
  const chosen = shape ?? defaultShape(resource);
  if (chosen === null || !(chosen in SHAPES)) return null;
  const q = SHAPES[chosen];
  const identity = resource.slice(resource.indexOf(':') + 1);
  if (q.address && !SAFE_ADDRESS.test(identity)) return null;
  if (q.names !== undefined && !q.names.includes(identity)) return null;
  return { resource, expressions: q.expressions(identity), answer: q.answer, label: q.label(identity) };
}

/** Resource kinds of the locks a shape reads, when no wait names the lock (`mutex:ADDR`, …). */
const SHAPE_KINDS: Readonly<Record<OwnerShape, string>> = { 'pthread-mutex': 'mutex', 'pthread-rwlock': 'rwlock', gil: 'py', 'jl-mutex': 'jlmutex', 'grec-mutex': 'grecmutex', 'py-rlock': 'pyrlock', 'rtld-lock': 'loader' };

/** One shape's expressions as patterns with the address as a group, made once (the table is fixed). */
const SHAPE_PATTERNS: ReadonlyArray<{ shape: OwnerShape; pattern: RegExp; address: boolean; name?: string; answer: AnswerKind }> = (Object.keys(SHAPES) as OwnerShape[]).flatMap((shape) => {
  const q = SHAPES[shape];
  const marker = '0xfeedface';
  const escape = (e: string): string => e.replace(/[.*+?^${}()|[\]\\]/g, '\\$&').replace(/\s+/g, '\\s*');
  // A shape of named locks: one pattern per name, the name being the lock's identity.
  if (q.names !== undefined) {
    return q.names.flatMap((name) => q.expressions(name).map((e) => ({ shape, pattern: new RegExp(`^\\s*${escape(e)}\\s*$`), address: false, name, answer: q.answer })));
  }
  return q.expressions(marker).map((e) => {
    const spaced = escape(e).replace(marker, '(0x[0-9a-fA-F]{1,16})');
    return { shape, pattern: new RegExp(`^\\s*${spaced}\\s*$`), address: q.address, answer: q.answer };
  });
});

/**
 * The owner shape a printed expression asks about, and the lock it names: the reverse of the table
 * above, so an answer to any query live mode or a `--gdb-commands` file asks (`print
 * ((pthread_mutex_t *) 0x…)->__data.__owner`, the GIL variants, a GRecMutex's inner mutex) is read
 * back from a saved transcript. Null for any other expression.
 */
export function shapeOfExpression(expression: string): { shape: OwnerShape; resource: ResourceId; answer: AnswerKind } | null {
  for (const p of SHAPE_PATTERNS) {
    const m = p.pattern.exec(expression);
    if (m === null) continue;
    const kind = SHAPE_KINDS[p.shape];
    const resource = p.address ? `${kind}:${(m[1] as string).toLowerCase().replace(/^0x0+(?=.)/, '0x')}` : p.name !== undefined ? `${kind}:${p.name}` : 'py:gil';
    return { shape: p.shape, resource, answer: p.answer };
  }
  return null;
}

/** The gdb command a report shows for an unresolved wait (the first variant of the shape's query), or null. */
export function ownerCommandFor(resource: ResourceId, shape: OwnerShape): { command: string; answer: AnswerKind } | null {
  const q = queryFor(resource, shape);
  return q ? { command: `print ${q.expressions[0] as string}`, answer: q.answer } : null;
}

/**
 * Every resource some thread waits for and gdb can be asked about, once each, in a stable order.
 * Waits whose holder the text already proves are asked too: gdb's answer can only confirm or
 * correct an inference, and it costs one expression.
 */
export function planOwnerQueries(analysis: Pick<Analysis, 'edges' | 'unresolved'>): OwnerQuery[] {
  const seen = new Set<string>();
  const out: OwnerQuery[] = [];
  const consider = (resource: string, shape: OwnerShape | undefined): void => {
    if (seen.has(resource)) return;
    seen.add(resource);
    const q = queryFor(resource, shape);
    if (q) out.push(q);
  };
  for (const edge of analysis.edges) {
    if (edge.kind === 'waits' && edge.to.startsWith('res:')) consider(edge.to.slice('res:'.length), edge.ownerShape);
  }
  for (const u of analysis.unresolved) consider(u.resource, u.ownerShape);
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

/**
 * The owner questions and gdb's answers in the form of an interactive session, for a saved dump
 * (`attach --save-dump`): `(gdb) print ((pthread_mutex_t *) 0x…)->__data.__owner` then `$1 = 6171`,
 * or gdb's error line. Read back, each answer links to its wait by the address in its expression,
 * so the saved file proves what attach proved (src/analyze/owner-links.ts).
 */
export function transcriptOf(asked: readonly AskedQuery[]): string {
  const lines: string[] = [];
  let history = 0;
  for (const a of asked) {
    lines.push(`(gdb) ${a.command}`);
    lines.push(a.ok ? `$${++history} = ${a.answer.replace(/\s*\n\s*/g, ' ')}` : a.answer.replace(/\s*\n\s*/g, ' '));
  }
  return lines.length === 0 ? '' : `${lines.join('\n')}\n`;
}
