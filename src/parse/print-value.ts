/**
 * What a gdb `print` answer and its command say about a lock's owner (rules-domain §7.0, §10).
 * Pure, linear-time readers of one answer or one expression; the builder (builder.ts) keeps the
 * transcript state (history values, registers, the selected frame) they are resolved against.
 *
 * Answer shapes read here (real samples):
 * - `{__data = {__lock = 2, __count = 0, __owner = 428, __nusers = 1, …}, __size = "…", __align = 2}`
 * - `{lock = {_data = {lock = 2, __count = 0, __owner = 11212, …}, …}, file = 0x563401c07e4b "util/main-loop.c", line = 240, initialized = true}`
 *   (QEMU's QemuMutex, as a mail archive mangled it)
 * - `{<std::__mutex_base> = {_M_mutex = {__data = {__lock = 2, __count = 0, __owner = 31666, …}, …}}, <No data fields>}` (std::mutex)
 * - `pthread_mutex_t = {Type = Normal, Status = Acquired, possibly with waiters, Owner ID = 20497, …}` (glibc's pretty printer)
 * - `{__data = {__readers = 0, __writers = 1, …, __cur_writer = 31337, …}, …}`, `pthread_rwlock_t = {Kind = Prefer readers, Readers = 0, Writer ID = 31338, Shared = No}`
 * - `20595` (a scalar answer to `print ((pthread_mutex_t *) 0x…)->__data.__owner`)
 * - `(pthread_mutex_t *) 0x5555555580a0 <lock_b>` (a pointer answer: `print &lock_b`, `print mutex`)
 */
import { skipCharLiteral, skipString } from './frame-body.js';

export type OwnerFieldName = '__owner' | '__cur_writer' | 'thread_id';

/** One owner field found in a printed value. */
export interface OwnerField {
  field: OwnerFieldName;
  /** The printed number (an LWP; 0 = not held). */
  value: number;
  /**
   * Members from the printed value to the lock object that holds the field (base classes and
   * `__data` left out): `['lock']` for a QemuMutex, `[]` when the value is the lock itself.
   */
  lockPath: string[];
  /** Every member on the way to the lock object is the first of its parent: the lock starts where the value starts. */
  atStart: boolean;
  /** rwlock: how many readers hold it (`__readers >> 3`, old glibc's `__nr_readers`, the printer's `Readers`). */
  readers?: number;
  /** The mutex's `__lock` word (0: unlocked), when printed. */
  lockWord?: number;
  /**
   * The lock is process-shared (PTHREAD_PROCESS_SHARED): a mutex's `__kind` has
   * PTHREAD_MUTEX_PSHARED_BIT (128), an rwlock's `__shared` is not 0, the printers say `Shared = Yes`.
   */
  shared?: true;
}

/** Deeper nesting than this is read as flat text (bounded work and stack on hostile input). */
const MAX_DEPTH = 64;

interface Level {
  /** Member name of this struct in its parent; null for the printed value itself. */
  name: string | null;
  /** Index of this struct among its parent's members. */
  index: number;
  /** Members read so far. */
  members: number;
  /** Owner-related scalars read directly in this struct. */
  owner: { field: OwnerFieldName; value: number } | null;
  readers: number | null;
  lockWord: number | null;
  shared: boolean;
}

const DATA_MEMBER = /^_{1,2}data$/;

/**
 * The owner fields in a printed value (the text after `$N = `). Strings, char literals and
 * `<repeats N times>` are skipped; unknown shapes give no field rather than a wrong one.
 */
export function ownerFields(value: string): OwnerField[] {
  const out: OwnerField[] = [];
  const stack: Level[] = [];
  const n = value.length;
  let i = skipSpaces(value, 0);
  // A pretty printer's label: `pthread_mutex_t = {…}` (transparent, not a member).
  const label = /^[A-Za-z_][\w:<>, ]*? = \{/.exec(value.slice(i, i + 200));
  if (label !== null) i += label[0].length - 1;
  if (value.charCodeAt(i) !== 123 /* { */) return out;
  stack.push({ name: null, index: 0, members: 0, owner: null, readers: null, lockWord: null, shared: false });
  i++;
  while (i < n && stack.length > 0) {
    i = skipSpaces(value, i);
    const c = value.charCodeAt(i);
    if (c === 125 /* } */) {
      close(stack, out);
      i++;
      i = skipSeparator(value, i);
      continue;
    }
    if (c === 44 /* , */) {
      i++;
      continue;
    }
    const top = stack[stack.length - 1] as Level;
    // A member head: `NAME = `, `<Base> = `, or an anonymous element.
    let name: string | null = null;
    const head = memberHead(value, i);
    if (head !== null) {
      name = head.name;
      i = head.end;
    }
    const index = top.members++;
    i = skipSpaces(value, i);
    if (value.charCodeAt(i) === 123 /* { */ && stack.length < MAX_DEPTH) {
      stack.push({ name: name ?? `[${index}]`, index, members: 0, owner: null, readers: null, lockWord: null, shared: false });
      i++;
      continue;
    }
    const end = scalarEnd(value, i);
    if (name !== null) noteScalar(top, name, value.slice(i, end).trim());
    // Always forward, whatever the text (a loop that cannot end on input is a hang).
    i = end > i ? end : i + 1;
  }
  // A value cut short (a paste ending mid-print, `'\000' <rep`): what was read still counts.
  while (stack.length > 0) close(stack, out);
  return out;
}

/** Ends the innermost struct; an owner field read in it becomes an OwnerField. */
function close(stack: Level[], out: OwnerField[]): void {
  const level = stack.pop() as Level;
  if (level.owner === null) return;
  // The lock object: the struct around `__data` (glibc), else the struct itself (pretty printer, `p m->__data`).
  const levels = [...stack, level];
  let lockDepth = levels.length - 1;
  if (level.name !== null && DATA_MEMBER.test(level.name)) lockDepth--;
  let atStart = true;
  const lockPath: string[] = [];
  for (let d = 1; d <= lockDepth; d++) {
    const l = levels[d] as Level;
    if (l.index !== 0) atStart = false;
    if (l.name !== null && !l.name.startsWith('<')) lockPath.push(l.name);
  }
  const field: OwnerField = { field: level.owner.field, value: level.owner.value, lockPath, atStart };
  if (level.readers !== null) field.readers = level.readers;
  if (level.lockWord !== null) field.lockWord = level.lockWord;
  if (level.shared) field.shared = true;
  out.push(field);
}

/** glibc's PTHREAD_MUTEX_PSHARED_BIT in a mutex's `__kind` (nptl/pthreadP.h). */
const MUTEX_PSHARED_BIT = 128;

function noteScalar(level: Level, name: string, text: string): void {
  // The glibc pretty printers: `Shared = Yes` (a process-shared mutex or rwlock).
  if (name === 'Shared') {
    if (text === 'Yes') level.shared = true;
    return;
  }
  const v = integer(text);
  if (v === null) return;
  switch (name) {
    case '__owner':
    case 'Owner ID':
      level.owner = { field: '__owner', value: v };
      return;
    case '__cur_writer':
    case '__writer':
    case 'Writer ID':
      level.owner = { field: '__cur_writer', value: v };
      return;
    case '__readers':
      // glibc ≥ 2.25: bits 0–2 are flags (PTHREAD_RWLOCK_READER_SHIFT = 3).
      level.readers = Math.floor(v / 8);
      return;
    case '__nr_readers':
    case 'Readers':
      level.readers = v;
      return;
    case '__lock':
    case 'lock':
      level.lockWord = v;
      return;
    // `{__lock = 2, __count = 0, __owner = 25470, __nusers = 1, __kind = 128, …}`: a process-shared mutex.
    case '__kind':
      if ((v & MUTEX_PSHARED_BIT) !== 0) level.shared = true;
      return;
    // `{__readers = 11, …, __cur_writer = 0, __shared = 1, …}`: a process-shared rwlock.
    case '__shared':
      if (v !== 0) level.shared = true;
      return;
  }
}

/** A decimal or hex integer as gdb prints it (`428`, `-1`, `0x1ac`), or null. */
export function integer(text: string): number | null {
  if (/^-?\d{1,19}$/.test(text)) {
    const v = Number(text);
    return Number.isSafeInteger(v) ? v : null;
  }
  if (/^0x[0-9a-fA-F]{1,13}$/.test(text)) return parseInt(text, 16);
  return null;
}

function skipSpaces(s: string, i: number): number {
  while (i < s.length && (s.charCodeAt(i) === 32 || s.charCodeAt(i) === 9 || s.charCodeAt(i) === 10)) i++;
  return i;
}

function skipSeparator(s: string, i: number): number {
  i = skipSpaces(s, i);
  return s.charCodeAt(i) === 44 ? i + 1 : i;
}

/** `NAME = ` or `<std::__mutex_base> = ` at `i`: the name and where its value starts; null otherwise. */
function memberHead(s: string, i: number): { name: string; end: number } | null {
  let j = i;
  if (s.charCodeAt(j) === 60 /* < */) {
    // A base class: `<std::__mutex_base> = {` (template arguments may nest `<…>`).
    let depth = 0;
    for (; j < s.length && j < i + 400; j++) {
      const c = s.charCodeAt(j);
      if (c === 60) depth++;
      else if (c === 62 && --depth === 0) break;
      else if (c === 44 || c === 123 || c === 125) return null;
    }
    if (depth !== 0 || !s.startsWith('> = ', j)) return null;
    return { name: s.slice(i, j + 1), end: j + 4 };
  }
  // A field name (C identifiers, `Owner ID` of the glibc printers, `[3]` array designators).
  while (j < s.length && j < i + 200) {
    const c = s.charCodeAt(j);
    if ((c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c === 46 || c === 58 || c === 91 || c === 93) j++;
    else if (c === 32 && j > i && s.charCodeAt(j + 1) !== 61 && /[A-Z]/.test(s[i] ?? '')) j++; // `Owner ID`
    else break;
  }
  if (j === i || !s.startsWith(' = ', j)) return null;
  return { name: s.slice(i, j).trim(), end: j + 3 };
}

/** End of a scalar value at `i`: the next `,` or `}` outside strings, chars and brackets (always past `i`). */
function scalarEnd(s: string, i: number): number {
  let depth = 0;
  const n = s.length;
  for (; i < n; i++) {
    const c = s.charCodeAt(i);
    if (c === 34) i = skipString(s, i) - 1;
    else if (c === 39) {
      const end = skipCharLiteral(s, i);
      if (end > 0) i = end - 1;
    } else if (c === 40 || c === 91 || c === 123) depth++; // a `{` here opened past MAX_DEPTH: skipped whole
    else if (c === 41 || c === 93 || (c === 125 && depth > 0)) depth--;
    else if (depth <= 0 && (c === 44 || c === 125)) return i;
  }
  return n;
}

/** A pointer answer: `(pthread_mutex_t *) 0x5555555580a0 <lock_b>`, `(class std::mutex *) 0x564f29c900e0 <accounts>`. */
export function pointerAnswer(value: string): { address: string; symbol: string | null } | null {
  const m = /^\s*(?:\((?:[^()]|\([^()]*\)){1,200}\)\s*)?(0x[0-9a-fA-F]{1,16})(?:\s+<([^<>\s]{1,300})>)?\s*$/.exec(value);
  if (m === null) return null;
  return { address: normalizeHex(m[1] as string), symbol: m[2] ?? null };
}

/** A plain integer answer (`140209899737720`, `0x7f8529449278`) read as an address, or null. */
export function integerAddress(value: string): string | null {
  const t = value.trim();
  if (/^0x[0-9a-fA-F]{1,16}$/.test(t)) return normalizeHex(t);
  if (/^\d{1,20}$/.test(t)) {
    const v = BigInt(t);
    return v > 0n && v < 1n << 64n ? `0x${v.toString(16)}` : null;
  }
  return null;
}

function normalizeHex(hex: string): string {
  const digits = hex.slice(2).toLowerCase().replace(/^0+(?=.)/, '');
  return `0x${digits}`;
}

/** Members that lead into a pthread mutex or rwlock without moving away from its start. */
const TRANSPARENT = new Set(['__data', '_data', '__owner', '__cur_writer', '__writer', '__readers', '__nr_readers', '__lock', '__size', '__align']);

/**
 * What a print command's expression names. `base` is the object whose value the answer prints
 * (after the transparent members above): an address (`*(pthread_mutex_t *) 0x…`,
 * `((pthread_mutex_t *) 0x…)->__data.__owner`), a pointer to dereference (`*mutex`, `*$1`,
 * `*(pthread_mutex_t *) $rdi`), or a variable (`qemu_global_mutex`, `mutexB`).
 */
export interface PrintExpression {
  base:
    | { kind: 'address'; address: string }
    | { kind: 'pointer'; name: string }
    | { kind: 'convenience'; name: string; deref: boolean }
    | { kind: 'variable'; name: string };
  /** Members after the base that are not transparent: the printed value starts at an unknown offset. */
  members: string[];
  /** The last member named (`__owner` in `….__data.__owner`), or null. */
  last: string | null;
}

const CAST = String.raw`\(\s*(?:const\s+)?(?:(?:struct|union|class)\s+)?[A-Za-z_][\w:<>, ]{0,200}?\s*\*\s*\)`;
const ATOM = String.raw`(0x[0-9a-fA-F]{1,16}|\$[A-Za-z_]\w{0,30}|\$\d{1,9}|[A-Za-z_]\w{0,200}(?:::[A-Za-z_]\w{0,200}){0,20})`;
const MEMBERS = String.raw`((?:\s*(?:\.|->)\s*[A-Za-z_]\w{0,200}){0,20})`;
// `*(T *) A`, `*A`
const DEREF = new RegExp(String.raw`^\*\s*(?:${CAST}\s*)?${ATOM}$`);
// `((T *) A)->M`, `(*(T *) A).M`, `(*A).M`
const CAST_MEMBER = new RegExp(String.raw`^\(\s*(\*\s*)?(?:${CAST}\s*)?${ATOM}\s*\)${MEMBERS}$`);
// `A->M`, `A.M`, `A`
const PLAIN = new RegExp(String.raw`^${ATOM}${MEMBERS}$`);

/** Reads a print expression, or null for one that names no object (a call, arithmetic, `&x`). */
export function printExpression(expression: string): PrintExpression | null {
  const e = expression.trim();
  if (e.length === 0 || e.length > 2000) return null;
  let m = DEREF.exec(e);
  if (m !== null) return build(m[1] as string, true, '');
  m = CAST_MEMBER.exec(e);
  if (m !== null) {
    const hasCast = new RegExp(`^\\(\\s*(\\*\\s*)?${CAST}`).test(e);
    const members = m[3] ?? '';
    // `((T *) A)->M`: A points at the object; `(*A).M` likewise; `(A).M` names A itself.
    const deref = m[1] !== undefined || hasCast;
    if (!deref && members.trimStart().startsWith('->')) return build(m[2] as string, true, members.trimStart().slice(2));
    return build(m[2] as string, deref, members.replace(/^\s*(?:\.|->)\s*/, ''));
  }
  m = PLAIN.exec(e);
  if (m !== null) {
    const members = (m[2] ?? '').trimStart();
    if (members.startsWith('->')) return build(m[1] as string, true, members.slice(2));
    return build(m[1] as string, false, members.replace(/^\.\s*/, ''));
  }
  return null;
}

function build(atom: string, deref: boolean, memberText: string): PrintExpression | null {
  const names = memberText.split(/\s*(?:\.|->)\s*/).map((s) => s.trim()).filter((s) => s.length > 0);
  const members = names.filter((s) => !TRANSPARENT.has(s));
  const last = names.length > 0 ? (names[names.length - 1] as string) : null;
  if (atom.startsWith('0x')) return deref ? { base: { kind: 'address', address: normalizeHex(atom) }, members, last } : null;
  if (atom.startsWith('$')) return { base: { kind: 'convenience', name: atom.slice(1), deref }, members, last };
  return { base: deref ? { kind: 'pointer', name: atom } : { kind: 'variable', name: atom }, members, last };
}
