/**
 * `--source DIR` in the analysis: asks the source reader (src/source/) about every frame with a
 * file and line, and turns the locks each function still holds at its line into hold edges
 * (evidence `inferred`, basis `source`), once the lock's identity links it to a lock the dump
 * names:
 * - `&lock_a` / `accounts` by the symbol gdb prints after an address (`mutex=0x… <lock_a>`), when
 *   exactly one address carries it;
 * - `this->mu_` / `mu_` / `&s->lock` by the object: the frame's own `this` (or `s`) plus the field,
 *   when another thread's waiting frame, with the same `this`, asks for that field at its line;
 * - `m` (a pointer argument) by the address the frame's argument holds.
 * A hold no identity links is a note ("holds some mutex (`lock_b` at file:line)") and no edge: it
 * cannot close a cycle. A frame whose line waits in a condition wait does not hold the mutex the
 * wait lets go, nor, when that mutex cannot be named, anything its callers took.
 */
import type { Edge, FrameRef } from '../model/analysis.js';
import type { Dump, Frame } from '../model/dump.js';
import { resourceNode, threadNode } from '../model/ids.js';
import type { SourceAnswer, SourceHold, SourceLockRef, SourceProbe } from '../model/source.js';
import { parseArgValue } from '../rules/arg-values.js';
import type { SourceReader } from '../source/index.js';
import type { ThreadWork } from './threads.js';

export interface SourceStageInput {
  reader: SourceReader;
  dump: Dump;
  works: readonly ThreadWork[];
  edges: Edge[];
}

export interface SourceStageOutput {
  /** Hold edges to add (basis `source`). */
  holds: Edge[];
  /** The code of each read frame, by `backtrace:level`, for acquire sites. */
  code: Map<string, string>;
  notes: string[];
}

/** Names a condition wait's frame carries its mutex under (glibc: `___pthread_cond_wait (cond=…, mutex=…)`). */
const COND_WAIT = /pthread_cond_(?:timed|clock)?wait|g_cond_wait|qemu_cond_(?:timed)?wait/;

export function sourceHolds(input: SourceStageInput): SourceStageOutput {
  const { dump, works, edges } = input;
  // One probe per distinct (file, line, function, callee): a pool of alike threads asks once.
  const probes: SourceProbe[] = [];
  const probeOf = new Map<string, number>();
  const framesOf = new Map<number, Array<{ frame: Frame; probe: number }>>();
  for (const w of works) {
    const bt = dump.backtraces[w.primary.index];
    if (bt === undefined) continue;
    const list: Array<{ frame: Frame; probe: number }> = [];
    bt.frames.forEach((frame, i) => {
      if (frame.file === null || frame.line === null || frame.kind !== 'normal' || frame.language !== undefined) return;
      const callee = i > 0 ? (bt.frames[i - 1] as Frame).function : null;
      const key = `${frame.file}\u0000${frame.line}\u0000${frame.function}\u0000${callee ?? ''}`;
      let id = probeOf.get(key);
      if (id === undefined) {
        id = probes.length;
        probeOf.set(key, id);
        probes.push({ id, path: frame.file, line: frame.line, function: frame.function, callee });
      }
      list.push({ frame, probe: id });
    });
    framesOf.set(w.primary.index, list);
  }
  const report = input.reader.read(probes);
  const answers = new Map<number, SourceAnswer>(report.answers.map((a) => [a.id, a]));
  const notes = [...report.notes];

  // Symbols gdb printed after addresses, anywhere in the dump: `<lock_a>` → its addresses.
  const symbols = new Map<string, Set<string>>();
  for (const bt of dump.backtraces) {
    for (const frame of bt.frames) {
      for (const arg of frame.args) {
        const v = parseArgValue(arg.value);
        if (v.address === null || v.symbol === null || v.symbol.includes('+')) continue;
        const set = symbols.get(v.symbol);
        if (set) set.add(v.address);
        else symbols.set(v.symbol, new Set([v.address]));
      }
    }
  }
  // Waits by the lock's address (`mutex:0x…` → that resource).
  const waitByAddress = new Map<string, string>();
  for (const e of edges) {
    if (e.kind !== 'waits') continue;
    const id = e.to.slice('res:'.length);
    const address = /:(0x[0-9a-f]+)$/.exec(id)?.[1];
    if (address !== undefined && !waitByAddress.has(address)) waitByAddress.set(address, id);
  }
  // The lock a waiting frame asks for at its line, linked to the wait: by its object (`this` or a
  // pointer argument, plus the field) and, for a variable of the file's scope, by file and name
  // (which holds even when gdb printed no address: libc without debug info).
  const byMember = new Map<string, string>();
  const byGlobal = new Map<string, string>();
  const waitsOf = new Map<string, Edge[]>();
  for (const e of edges) {
    if (e.kind !== 'waits' || e.site === null) continue;
    const list = waitsOf.get(e.from);
    if (list) list.push(e);
    else waitsOf.set(e.from, [e]);
  }
  for (const w of works) {
    const mine = waitsOf.get(threadNode(w.key)) ?? [];
    if (mine.length !== 1) continue;
    const e = mine[0] as Edge;
    const resource = e.to.slice('res:'.length);
    const site = e.site as FrameRef;
    const asking = (framesOf.get(w.primary.index) ?? []).find(({ frame, probe }) => frame.level > site.level && (answers.get(probe)?.waits.length ?? 0) > 0);
    if (asking === undefined) continue;
    const answer = answers.get(asking.probe) as SourceAnswer;
    if (answer.waits.length !== 1) continue;
    const wanted = answer.waits[0] as SourceLockRef;
    if (wanted.global !== undefined && answer.file !== undefined) byGlobal.set(`${answer.file}\u0000${wanted.global}`, resource);
    const member = wanted.member;
    const base = member === undefined ? null : argAddress(asking.frame, member.root);
    if (member !== undefined && base !== null && member.path !== '' && /:0x[0-9a-f]+$/.test(resource)) byMember.set(`${base}${member.path}`, resource);
  }
  const resolve = (lock: SourceLockRef, frame: Frame, file: string | undefined): { resource: string; name: string } | null => {
    const found = new Set<string>();
    for (const s of lock.symbols) for (const a of symbolAddresses(symbols, s)) found.add(a);
    if (found.size === 1) {
      const address = [...found][0] as string;
      return { resource: waitByAddress.get(address) ?? `${lock.kind}:${address}`, name: lock.symbols[0] as string };
    }
    if (found.size > 1) return null;
    const global = lock.global !== undefined && file !== undefined ? byGlobal.get(`${file}\u0000${lock.global}`) : undefined;
    if (global !== undefined) return { resource: global, name: lock.global as string };
    const member = lock.member;
    if (member === undefined) return null;
    const base = argAddress(frame, member.root);
    if (base === null) return null;
    if (member.path === '') return { resource: waitByAddress.get(base) ?? `${lock.kind}:${base}`, name: lock.text };
    const resource = byMember.get(`${base}${member.path}`);
    return resource === undefined ? null : { resource, name: `${member.root}${member.path}` };
  };

  const holds: Edge[] = [];
  const code = new Map<string, string>();
  const existing = new Set(edges.filter((e) => e.kind === 'holds').map((e) => `${e.from}\u0000${e.to}`));
  const provenHolder = new Map<string, string>();
  for (const e of edges) if (e.kind === 'holds' && e.evidence === 'proven') provenHolder.set(e.from, e.to);
  for (const w of works) {
    const frames = framesOf.get(w.primary.index) ?? [];
    // What condition waits on this stack let go: named (dropped from every frame) or not (then
    // nothing the frames above the wait took is claimed).
    const released = new Set<string>();
    let releasedUnknownFrom = -1;
    for (const { frame } of frames) if (COND_WAIT.test(frame.function)) for (const arg of frame.args) if (arg.name === 'mutex') {
      const a = parseArgValue(arg.value).address;
      if (a !== null) released.add(waitByAddress.get(a) ?? a);
    }
    for (const { frame, probe } of frames) {
      const answer = answers.get(probe);
      for (const r of answer?.released ?? []) {
        const named = resolve(r, frame, answer?.file);
        if (named !== null) released.add(named.resource);
        else if (releasedUnknownFrom < 0) releasedUnknownFrom = frame.level;
      }
    }
    for (const { frame, probe } of frames) {
      const answer = answers.get(probe);
      if (answer === undefined || answer.status !== 'read') continue;
      if (answer.code !== undefined) code.set(`${w.primary.index}:${frame.level}`, answer.code);
      for (const hold of answer.holds) {
        const shown = answer.file ?? frame.file ?? '?';
        const linked = resolve(hold.lock, frame, answer.file);
        if (releasedUnknownFrom >= 0 && frame.level > releasedUnknownFrom) continue;
        if (linked === null) {
          notes.push(`${threadTitle(w)} holds some ${hold.lock.kind} (\`${lockName(hold.lock)}\` at ${shown}:${hold.line}: \`${hold.code}\`), read from --source; no frame's arguments name that lock, so it closes no cycle.`);
          continue;
        }
        if (released.has(linked.resource) || released.has(linked.resource.replace(/^[^:]*:/, ''))) continue;
        const from = resourceNode(linked.resource);
        const to = threadNode(w.key);
        if (existing.has(`${from}\u0000${to}`)) continue;
        const proven = provenHolder.get(from);
        if (proven !== undefined && proven !== to) continue;
        existing.add(`${from}\u0000${to}`);
        holds.push(holdEdge(w, frame, hold, linked, shown));
      }
    }
  }
  return { holds, code, notes };
}

function holdEdge(w: ThreadWork, frame: Frame, hold: SourceHold, linked: { resource: string; name: string }, shown: string): Edge {
  const site: FrameRef = { backtrace: w.primary.index, level: frame.level, function: frame.function, file: frame.file, line: hold.line, sourceLine: frame.sourceLine, code: hold.code };
  return {
    kind: 'holds',
    from: resourceNode(linked.resource),
    to: threadNode(w.key),
    evidence: 'inferred',
    ruleId: 'source',
    site,
    description: `holds \`${linked.name}\` since ${shown}:${hold.line}: \`${hold.code}\``,
    basis: 'source',
  };
}

/** `&lock_a` → `lock_a`; `this->mu_` as written. */
function lockName(lock: SourceLockRef): string {
  return lock.symbols[0] ?? lock.text.replace(/^&/, '');
}

function threadTitle(w: ThreadWork): string {
  return /^\d+(?:\.\d+)?$/.test(w.key) ? `Thread ${w.key}` : `The backtrace ${w.key}`;
}

/** The address a frame argument holds (`this=0x55…`, `s=0x7f… <state>`), or null. */
function argAddress(frame: Frame, name: string): string | null {
  const arg = frame.args.find((a) => a.name === name);
  return arg === undefined ? null : parseArgValue(arg.value).address;
}

/**
 * The addresses gdb printed a symbol for that the code's name can be: the name itself, a GCC
 * static-local clone (`lock.1`), or the name inside a namespace or class (`ns::lock`, `(anonymous namespace)::lock`).
 */
function symbolAddresses(symbols: Map<string, Set<string>>, name: string): Set<string> {
  const out = new Set<string>();
  const qualified = name.includes('::');
  for (const [symbol, addresses] of symbols) {
    // `lock_a.0` (a static's clone), `abba::A::h544f1c83c2b8a7c5` (Rust's hash): the name before them.
    const plain = symbol.replace(/\.\d+$/, '').replace(/::h[0-9a-f]{16}$/, '');
    if (plain === name || (!qualified && plain.endsWith(`::${name}`)) || (qualified && plain.endsWith(name) && (plain.length === name.length || plain.endsWith(`::${name}`)))) {
      for (const a of addresses) out.add(a);
    }
  }
  return out;
}
