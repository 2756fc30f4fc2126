/**
 * Owner answers in the text → facts about the waits they answer (rules-domain §1.4, §10). The
 * parser records each `print` answer that shows a lock's owner with what the transcript says
 * about it (OwnerHint: the expression, an address it resolved, the variable it names, the thread
 * and frame gdb had selected, that frame's source line). Here each is linked to a wait:
 *
 * 1. by address — `p *(pthread_mutex_t*)0x7f8529449278`, `$3`'s pointer, a register, `*mutex` of
 *    the selected frame — when some wait names it; when none does and the print was typed in a
 *    thread whose frames give no address (libc without debug info), it names that thread's wait;
 * 2. by symbol — `p qemu_global_mutex` and a frame's `mutex=0x56340218ffa0 <qemu_global_mutex>`;
 * 3. by the selected frame's source line — `18  pthread_mutex_lock(&mutexB);` then `p mutexB`;
 * 4. by context alone — a print typed in `thread N` / `frame K` is about thread N's wait when its
 *    frames give no address and it is the only lock printed there.
 *
 * An answer that links to nothing is reported with the reason and the one gdb command whose answer
 * would link it. Linked answers become OwnerFacts; `applyFacts` turns facts (from the text or from
 * gdb live) into proven hold edges.
 */
import type { Edge, OwnerFact, UnlinkedOwner } from '../model/analysis.js';
import type { OwnerHint } from '../model/dump.js';
import { resourceNode, threadNode } from '../model/ids.js';
import { printExpression } from '../parse/print-value.js';
import { shapeOfExpression } from '../live/owner-queries.js';
import { safeGdbCommand } from './gdb-commands.js';
import { normalizeAddress, type ParsedArgValue } from '../rules/arg-values.js';
import type { ThreadWork } from './threads.js';

/** A wait as the linker sees it: its edge (whose resource may be renamed) and the arguments its rule captured. */
export interface LinkableWait {
  edge: Edge;
  lockLike: boolean;
  captures: Record<string, ParsedArgValue>;
  /** The gdb command a report shows for the holder; set here for a mutex known only by its thread. */
  ownerQuery: string | null;
  ownerAnswer: 'lwp' | 'ptid' | null;
}

/**
 * The query for a mutex wait whose frames give no address (libc without debug info): the thread
 * sleeps in the futex syscall at frame #0, whose first argument — `$rdi` on x86-64 — is the
 * futex word, the mutex's first field. `thread apply` prints the thread's header before the
 * answer, so the answer links back to this wait by its thread. Checked with gdb 13 on
 * fixtures/programs/abba.c with libc's debug info hidden.
 */
export function registerQueryFor(threadKey: string): string | null {
  return /^\d+(?:\.\d+)?$/.test(threadKey) ? `thread apply ${threadKey} print *(pthread_mutex_t *) $rdi` : null;
}

export interface OwnerLinks {
  facts: OwnerFact[];
  unlinked: UnlinkedOwner[];
  notes: string[];
}

type LockKind = 'mutex' | 'rwlock';

interface Target {
  resource: string;
  how: string;
}

const UNKNOWN = ':unknown@';

/** Links every owner hint; waits named only by context get the printed address as their resource. */
export function linkOwnerHints(hints: readonly OwnerHint[], waits: readonly LinkableWait[], works: readonly ThreadWork[]): OwnerLinks {
  const out: OwnerLinks = { facts: [], unlinked: [], notes: [] };
  if (hints.length > 0) linkAll(hints, waits, works, out);
  // What is still known only by its thread gets the one question that names its owner.
  for (const w of waits) {
    if (!w.lockLike || w.ownerQuery !== null || !w.edge.to.startsWith(`res:mutex${UNKNOWN}`)) continue;
    const query = registerQueryFor(w.edge.from.slice('thread:'.length));
    if (query === null) continue;
    w.ownerQuery = query;
    w.ownerAnswer = 'lwp';
  }
  return out;
}

function linkAll(hints: readonly OwnerHint[], waits: readonly LinkableWait[], works: readonly ThreadWork[], out: OwnerLinks): void {
  const index = indexWaits(waits);
  const threads = new Set(works.map((w) => w.key));
  const crowded = crowdedSelections(hints);
  for (const hint of hints) {
    const kind = lockKind(hint);
    const answer = answerText(hint);
    // The answer to a query of the owner-shape table (what attach and --gdb-commands ask): the lock is in the expression.
    const shaped = hint.expression === null ? null : shapeOfExpression(hint.expression);
    if (shaped !== null && !(kind !== null && index.byResource.has(shaped.resource) === false && contextRenames(hint, kind, index, threads, crowded))) {
      const resource = shapedResource(shaped, index);
      if (hint.ownerLwp === 0) out.notes.push(`Line ${hint.sourceLine}: ${resource} is not held (${hint.expression} → 0).`);
      else out.facts.push(fact(hint, resource, shaped.answer === 'lwp' ? { lwp: hint.ownerLwp } : { ptid: `0x${BigInt(hint.ownerLwp).toString(16)}` }, shaped.shape === 'gil' ? 'the GIL holder' : 'by its address'));
      continue;
    }
    if (kind === null) {
      // The GIL's holder: one lock per process, named by the expression itself.
      if (hint.ownerLwp !== 0) out.facts.push(fact(hint, 'py:gil', { ptid: `0x${BigInt(hint.ownerLwp).toString(16)}` }, 'the GIL holder'));
      else out.notes.push(`Line ${hint.sourceLine}: the CPython GIL is not held (${hint.expression ?? 'print'} → 0).`);
      continue;
    }
    const target = linkOne(hint, kind, index, threads, crowded);
    if ('reason' in target) {
      out.unlinked.push({ sourceLine: hint.sourceLine, expression: hint.expression, answer, reason: target.reason, gdbCommand: linkCommand(hint) });
      continue;
    }
    if (target.rename) renameWait(target.rename, target.resource, hint);
    if (target.named && target.named.edge.to.includes(UNKNOWN)) {
      // Still no address, but the lock has a name now.
      const name = printedObject(hint) ?? hint.expression ?? '';
      target.named.edge.description = `waits for the ${kind} ${name} (its source line names it; gdb did not print its address)`;
      target.named.edge.basis = 'owner-print';
    }
    if (hint.ownerLwp === 0) {
      const readers = hint.readers !== undefined && hint.readers > 0 ? `, held for reading by ${hint.readers} thread${hint.readers === 1 ? '' : 's'} (glibc does not record which)` : ' (not held when printed)';
      out.notes.push(`Line ${hint.sourceLine}: ${target.resource} has ${answer}${readers}.`);
      continue;
    }
    out.facts.push(fact(hint, target.resource, { lwp: hint.ownerLwp }, target.how));
  }
}

/** The wait resource a shaped query names: the wait on that lock with that shape, else the shape's own kind. */
function shapedResource(shaped: NonNullable<ReturnType<typeof shapeOfExpression>>, index: WaitIndex): string {
  if (shaped.resource === 'py:gil' || index.byResource.has(shaped.resource)) return shaped.resource;
  const identity = shaped.resource.slice(shaped.resource.indexOf(':') + 1);
  for (const [resource, waits] of index.byResource) {
    if (resource.endsWith(`:${identity}`) && waits.some((w) => w.edge.ownerShape === shaped.shape)) return resource;
  }
  return shaped.resource;
}

/** True when a hint's own address names no wait but its selected thread's unknown wait is the one it answers. */
function contextRenames(hint: OwnerHint, kind: LockKind, index: WaitIndex, threads: Set<string>, crowded: Set<number>): boolean {
  const target = linkOne(hint, kind, index, threads, crowded);
  return !('reason' in target) && target.rename !== undefined;
}

/** Which lock kind an owner field belongs to; null for the GIL holder. */
function lockKind(hint: OwnerHint): LockKind | null {
  return hint.field === '__owner' ? 'mutex' : hint.field === '__cur_writer' ? 'rwlock' : null;
}

function answerText(hint: OwnerHint): string {
  return `${hint.field} = ${hint.ownerLwp}`;
}

function fact(hint: OwnerHint, resource: string, holder: OwnerFact['holder'], how: string): OwnerFact {
  const where = hint.context ? contextText(hint.context) : '';
  return {
    resource,
    holder,
    origin: 'text',
    query: hint.expression,
    answer: String(hint.ownerLwp),
    sourceLine: hint.sourceLine,
    link: `${how}${where}`,
    ...(hint.shared === true ? { shared: true as const } : {}),
  };
}

function contextText(c: NonNullable<OwnerHint['context']>): string {
  return c.frame === null ? `, printed in thread ${c.thread}` : `, printed in thread ${c.thread}'s frame ${c.frame}`;
}

interface WaitIndex {
  byResource: Map<string, LinkableWait[]>;
  /** Variable name → resources whose address a captured argument shows with that symbol. */
  bySymbol: Map<string, Set<string>>;
  byThread: Map<string, LinkableWait[]>;
}

function indexWaits(waits: readonly LinkableWait[]): WaitIndex {
  const byResource = new Map<string, LinkableWait[]>();
  const bySymbol = new Map<string, Set<string>>();
  const byThread = new Map<string, LinkableWait[]>();
  for (const w of waits) {
    if (!w.lockLike) continue;
    const resource = w.edge.to.slice('res:'.length);
    push(byResource, resource, w);
    push(byThread, w.edge.from.slice('thread:'.length), w);
    for (const cap of Object.values(w.captures)) {
      if (cap.symbol === null || cap.address === null || cap.symbol.includes('+')) continue;
      if (resource !== `${resource.slice(0, resource.indexOf(':'))}:${cap.address}`) continue;
      let set = bySymbol.get(cap.symbol);
      if (set === undefined) bySymbol.set(cap.symbol, (set = new Set()));
      set.add(resource);
    }
  }
  return { byResource, bySymbol, byThread };
}

function push<T>(map: Map<string, T[]>, key: string, value: T): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

/**
 * Selections in which more than one lock was printed: there, the selection alone does not say
 * which print answers the thread's wait.
 */
function crowdedSelections(hints: readonly OwnerHint[]): Set<number> {
  const locks = new Map<number, Set<string>>();
  for (const h of hints) {
    if (h.context === undefined || h.context.from === 'bt-full') continue;
    const id = h.address ?? h.variable ?? h.lockExpression ?? h.expression ?? `line ${h.sourceLine}`;
    let set = locks.get(h.context.selection);
    if (set === undefined) locks.set(h.context.selection, (set = new Set()));
    set.add(id);
  }
  const crowded = new Set<number>();
  for (const [selection, set] of locks) if (set.size > 1) crowded.add(selection);
  return crowded;
}

function linkOne(hint: OwnerHint, kind: LockKind, index: WaitIndex, threads: Set<string>, crowded: Set<number>): (Target & { rename?: LinkableWait; named?: LinkableWait }) | { reason: string } {
  const context = hint.context;
  const contextWait = (): LinkableWait | { reason: string } => {
    if (context === undefined || context.from === 'bt-full') return { reason: 'no thread was selected when it was printed' };
    if (!threads.has(context.thread)) return { reason: `it was printed in thread ${context.thread}, which has no backtrace in the text` };
    if (crowded.has(context.selection)) return { reason: `several locks were printed in thread ${context.thread}'s ${context.frame === null ? 'selection' : `frame ${context.frame}`}` };
    const mine = (index.byThread.get(context.thread) ?? []).filter((w) => w.edge.to.startsWith(`res:${kind}:`));
    const unknown = mine.filter((w) => w.edge.to.includes(UNKNOWN));
    if (unknown.length === 1 && mine.length === 1) return unknown[0] as LinkableWait;
    if (mine.length === 0) return { reason: `thread ${context.thread}, where it was printed, waits for no ${kind}` };
    return { reason: `thread ${context.thread}'s frames show which ${kind} it waits for, and the print does not name it` };
  };
  // The source line of the selected frame names the lock the thread waits for.
  const named = context?.source !== undefined ? sourceLocks(context.source) : null;
  const printed = printedObject(hint);
  // Only a print of a name (`mutexB`, `*m`) can be compared with the names a source line takes.
  const sourceSays = named !== null && named.length > 0 && printed !== null ? named.includes(printed) : null;

  if (hint.address !== null) {
    const resource = `${kind}:${normalizeAddress(hint.address)}`;
    if (index.byResource.has(resource)) return { resource, how: 'by its address' };
    const w = contextWait();
    if (!('reason' in w) && sourceSays !== false) return { resource, how: 'by the selected thread', rename: w };
    // A lock no thread waits for: still a fact about it.
    return { resource, how: 'by its address' };
  }
  if (hint.variable !== undefined) {
    const resources = [...(index.bySymbol.get(hint.variable) ?? [])].filter((r) => r.startsWith(`${kind}:`));
    if (resources.length === 1) return { resource: resources[0] as string, how: `by the symbol <${hint.variable}>` };
    if (resources.length > 1) return { reason: `${resources.length} different locks are named <${hint.variable}> in the frames` };
  }
  if (sourceSays === true && context !== undefined) {
    const mine = (index.byThread.get(context.thread) ?? []).filter((w) => w.edge.to.startsWith(`res:${kind}:`));
    if (mine.length === 1) {
      const w = mine[0] as LinkableWait;
      return { resource: w.edge.to.slice('res:'.length), how: `by the source line ${JSON.stringify(codeOf(context.source as string))}`, named: w };
    }
  }
  if (sourceSays === false) return { reason: `thread ${context?.thread}'s source line ${JSON.stringify(codeOf(context?.source ?? ''))} takes another lock` };
  const w = contextWait();
  // `*(pthread_mutex_t *) $rdi` with no register shown: only a locked mutex there says the register held its address.
  const register = hint.expression === null ? undefined : printExpression(hint.expression)?.base;
  if (!('reason' in w) && register?.kind === 'convenience' && !/^\d+$/.test(register.name) && !(hint.lockWord !== undefined && hint.lockWord !== 0)) {
    return { reason: `$${register.name} does not point at a locked mutex (its __lock is ${hint.lockWord ?? 'not shown'})` };
  }
  if (!('reason' in w)) {
    const resource = w.edge.to.slice('res:'.length);
    return { resource, how: 'by the selected thread' };
  }
  if (hint.expression === null) return { reason: context?.from === 'bt-full' ? `it is a \`bt full\` local of thread ${context.thread}'s frame ${context.frame}, whose address gdb does not print` : 'the command that printed it is not in the text' };
  if (hint.variable !== undefined) return { reason: `no frame names <${hint.variable}>, and ${w.reason}` };
  return { reason: `its expression names no address the text shows, and ${w.reason}` };
}

/**
 * The lock objects a source line takes: `pthread_mutex_lock(&mutexB);` → `mutexB`,
 * `qemu_mutex_lock(m)` → `*m`, `std::lock_guard<std::mutex> hold(journal);` → `journal`,
 * `lk.lock();` → `lk`, `QMutexLocker locker(&m_mutex);` → `m_mutex`.
 */
export function sourceLocks(source: string): string[] {
  const out: string[] = [];
  const add = (arg: string, pointer: boolean): void => {
    const a = arg.replace(/\s+/g, '');
    if (a.length === 0) return;
    if (a.startsWith('&')) out.push(a.slice(1));
    else out.push(pointer ? `*${a}` : a);
  };
  // C calls: a function whose name has `lock` (`pthread_mutex_lock`, `g_mutex_lock`, `uv_rwlock_wrlock`, `qemu_rec_mutex_lock`).
  for (const m of source.matchAll(/\b\w*(?:lock|Lock|acquire|Acquire)\w*\s*\(\s*([^(),]{1,200})\s*[,)]/g)) add(m[1] as string, true);
  // Methods: `m.lock()`, `mu->Lock()`.
  for (const m of source.matchAll(/([\w:.>-]{1,200}?)\s*(\.|->)\s*(?:lock|Lock|lock_shared|acquire|Acquire)\s*\(\s*\)/g)) add((m[2] === '->' ? '*' : '') + (m[1] as string).replace(/\s+/g, ''), false);
  // RAII: `std::lock_guard<std::mutex> g(m);`, `std::unique_lock lk{m};`, `QMutexLocker l(&m);`, `absl::MutexLock l(&mu);`.
  for (const m of source.matchAll(/\b(?:lock_guard|unique_lock|shared_lock|scoped_lock|MutexLock|ReaderMutexLock|WriterMutexLock|QMutexLocker|QReadLocker|QWriteLocker|MutexLocker)\b[^;]{0,200}?\s\w+\s*[({]\s*([^(){},]{1,200})\s*[)},]/g)) {
    const arg = (m[1] as string).trim();
    add(arg, false);
  }
  return [...new Set(out)];
}

/** A source line without its trailing comment (C or C++ style): `pthread_mutex_lock(&lock_b); // blocks` → `pthread_mutex_lock(&lock_b);`. */
function codeOf(source: string): string {
  return source.replace(/\s*(?:\/\*.*?\*\/|\/\/.*)\s*$/, '').trim();
}

/** The object a hint printed by name, in the terms sourceLocks uses (`mutexB`, `*m`), or null (an address, a register). */
function printedObject(hint: OwnerHint): string | null {
  const e = hint.expression === null ? null : printExpression(hint.expression);
  if (e === null || (e.base.kind !== 'variable' && e.base.kind !== 'pointer')) return null;
  const text = (hint.lockExpression ?? hint.expression ?? '').replace(/\s+/g, '');
  return text.startsWith('*&') ? text.slice(2) : text;
}

/** Gives a wait known only by its thread the lock the print names. */
function renameWait(w: LinkableWait, resource: string, hint: OwnerHint): void {
  const old = w.edge.to;
  w.edge.to = resourceNode(resource);
  const address = resource.slice(resource.indexOf(':') + 1);
  w.edge.description = `waits for the ${resource.startsWith('rwlock:') ? 'rwlock' : 'mutex'} ${address} (its address from the print at line ${hint.sourceLine}; ${old.slice('res:'.length)} before)`;
  w.edge.basis = 'owner-print';
}

/**
 * The gdb command whose answer would link an unlinked hint: the lock's address, asked where the
 * expression means it. Only a command that reads memory and calls nothing (the expression comes
 * from the pasted text, which anyone can write): null otherwise.
 */
export function linkCommand(hint: OwnerHint): string | null {
  const command = linkCommandOf(hint);
  return command !== null && safeGdbCommand(command) ? command : null;
}

function linkCommandOf(hint: OwnerHint): string | null {
  const c = hint.context;
  if (hint.expression === null) return hint.history !== undefined ? `print &$${hint.history}` : null;
  // A variable the lock starts at: its address is all that is missing.
  const lock = (hint.variable ?? hint.lockExpression ?? hint.expression).trim();
  const address = /^[A-Za-z_][\w:]*$/.test(lock) ? `print &${lock}` : `print &(${lock})`;
  // A name may be a frame's argument or local, a register is the selected frame's: asked where it was printed.
  const base = printExpression(hint.expression)?.base;
  if (c === undefined || base === undefined || base.kind === 'address') return address;
  return c.frame === null ? `thread apply ${c.thread} ${address}` : `thread apply ${c.thread} frame apply level ${c.frame} ${address}`;
}

/** A fact whose holder is no thread of the dump: the verdict (verdict.ts) says what that means. */
export interface AbsentHolder {
  resource: string;
  holder: OwnerFact['holder'];
  /** The lock is process-shared: the holder is a thread of another process using it. */
  shared?: true;
}

/**
 * Adds a proven hold edge per fact; a proven holder replaces holders that rules only inferred.
 * Facts from the text rest on an owner print (basis `owner-print`), those asked live on gdb.
 * Returns the facts whose holder is no thread of the dump (exited, across fork(), not shown).
 */
export function applyFacts(facts: OwnerFact[], works: ThreadWork[], edges: Edge[]): AbsentHolder[] {
  const absent: AbsentHolder[] = [];
  // Most dumps carry no owner facts: skip indexing every thread (a pthread_t each to normalise).
  if (facts.length === 0) return absent;
  const byLwp = new Map<number, string>();
  const byPtid = new Map<string, string>();
  const byId = new Map<number, string>();
  for (const w of works) {
    if (w.analysis.lwp !== null) byLwp.set(w.analysis.lwp, w.key);
    if (w.analysis.ptid !== null) byPtid.set(ptidKey(w.analysis.ptid), w.key);
    if (w.analysis.id !== null && !byId.has(w.analysis.id)) byId.set(w.analysis.id, w.key);
  }
  // Hold edges by resource node, so each fact costs O(1) however many edges the dump has.
  const holdsByNode = new Map<string, Edge[]>();
  for (const e of edges) if (e.kind === 'holds') holdsOf(e.from).push(e);
  function holdsOf(node: string): Edge[] {
    let list = holdsByNode.get(node);
    if (!list) {
      list = [];
      holdsByNode.set(node, list);
    }
    return list;
  }
  const dropped = new Set<Edge>();
  const added: Edge[] = [];
  // Process-shared locks whose owner is no thread of the dump, by resource node: their owner's name.
  const elsewhere = new Map<string, string>();
  for (const fact of facts) {
    const h = fact.holder;
    const key =
      (h.threadId !== undefined ? byId.get(h.threadId) : undefined) ??
      (h.lwp !== undefined ? byLwp.get(h.lwp) : undefined) ??
      (h.ptid !== undefined ? byPtid.get(ptidKey(h.ptid)) : undefined);
    const resource = normalizeResourceId(fact.resource);
    if (key === undefined) {
      // A process-shared lock's owner that is no thread of the dump is a thread of another process
      // that uses it: its waiters wait on the outside world, not for an owner that exited.
      if (fact.shared === true) elsewhere.set(resourceNode(resource), holderName(h));
      absent.push({ resource, holder: { ...h }, ...(fact.shared === true ? { shared: true as const } : {}) });
      continue;
    }
    const node = resourceNode(resource);
    const holds = holdsOf(node);
    if (holds.some((e) => e.evidence === 'inferred')) {
      for (const e of holds) if (e.evidence === 'inferred') dropped.add(e);
      holdsByNode.set(node, holds.filter((e) => e.evidence !== 'inferred'));
    }
    if (holdsOf(node).some((e) => e.to === threadNode(key))) continue;
    const owner = `owner ${holderName(h)}`;
    const edge: Edge = {
      kind: 'holds',
      from: node,
      to: threadNode(key),
      evidence: 'proven',
      ruleId: fact.origin === 'gdb' ? 'gdb-owner' : 'owner-hint',
      site: null,
      description:
        fact.origin === 'gdb' || fact.sourceLine === null
          ? `as memory shows (${fact.query ? `${fact.query} → ` : ''}${owner})`
          : `as the print at line ${fact.sourceLine} shows (${fact.query ? `print ${fact.query} → ` : ''}${owner}; linked ${fact.link ?? 'by its address'})`,
      basis: fact.origin === 'gdb' ? 'gdb' : 'owner-print',
    };
    added.push(edge);
    holdsOf(node).push(edge);
  }
  if (dropped.size > 0) {
    const kept = edges.filter((e) => !dropped.has(e));
    edges.length = 0;
    edges.push(...kept);
  }
  edges.push(...added);
  if (elsewhere.size > 0) waitOnOtherProcesses(elsewhere, works, edges);
  return absent;
}

/** `LWP 428`, `pthread 0x7f…`, `thread 5`: a holder as the reports name it. */
export function holderName(holder: OwnerFact['holder']): string {
  return holder.lwp !== undefined ? `LWP ${holder.lwp}` : holder.ptid !== undefined ? `pthread ${holder.ptid}` : `thread ${holder.threadId}`;
}

/**
 * The waiters of process-shared locks held by threads no dump thread is (`elsewhere`: resource node
 * → owner): they wait on another process, which can release it (the outside world, as a read on a
 * pipe is), and their state says so. One pass over the edges and one over the threads.
 */
function waitOnOtherProcesses(elsewhere: ReadonlyMap<string, string>, works: ThreadWork[], edges: readonly Edge[]): void {
  const ownerOf = new Map<string, string>();
  for (const e of edges) {
    const owner = e.kind === 'waits' ? elsewhere.get(e.to) : undefined;
    if (owner !== undefined) ownerOf.set(e.from, owner);
  }
  for (const w of works) {
    const owner = ownerOf.get(threadNode(w.key));
    if (owner === undefined) continue;
    w.analysis.outside = true;
    w.analysis.stateText = `waits for a process-shared lock whose owner, ${owner}, is a thread of another process (the other process can release it)`;
  }
}

/**
 * A pthread_t as a lookup key: gdb prints it in hex in thread headers but as a decimal number in
 * values (`thread_id = 140737351583488`, `threadid=…`), so both forms meet here.
 */
function ptidKey(ptid: string): string {
  const t = ptid.trim();
  if (/^\d+$/.test(t)) return `0x${BigInt(t).toString(16)}`;
  return normalizeAddress(t);
}

/** `mutex:0x0000AB` → `mutex:0xab`. */
export function normalizeResourceId(id: string): string {
  const i = id.indexOf(':');
  if (i < 0) return id;
  const identity = id.slice(i + 1);
  return /^0x[0-9a-fA-F]+$/.test(identity) ? `${id.slice(0, i)}:${normalizeAddress(identity)}` : id;
}
