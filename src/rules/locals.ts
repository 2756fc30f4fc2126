/**
 * Locals rules: a `bt full` local that is a held guard is a hold (issue 12 §2). The rule names the
 * shape of the local's printed value — its members, the type gdb prints before it (Rust), or a
 * bare pointer — and which member gives the lock's address; this module compiles such rules and
 * reads one local against them. Which locals count (the frames they stand in, the guard being
 * built while its thread waits) is the analysis's business (analyze/locals-holds.ts).
 *
 * Value shapes read here (real gdb 13 samples):
 * - `{_M_device = @0x55e87e3180e0}` (std::lock_guard<std::mutex>: a reference)
 * - `{_M_device = 0x5565c26f3280 <rw>, _M_owns = false}` (std::unique_lock), `{_M_pm = 0x… <rw>, _M_owns = true}` (std::shared_lock)
 * - `{_M_devices = std::tuple containing = {[1] = @0x5565c26f31c0, [2] = @0x5565c26f3200}}` (std::scoped_lock of two)
 * - `std::sync::poison::mutex::MutexGuard<u64> {lock: 0x563abe658af0, poison: std::sync::poison::Guard {panicking: false}}` (Rust)
 * - `0x5555555580a0 <mutex>` (a bare pointer)
 */
import type { RuleError } from '../errors.js';
import { normalizeAddress } from './arg-values.js';
import { compilePattern, PatternError, type NamePatternInput } from './pattern.js';
import type { LocalsRuleRaw } from './schema.js';
import type { LocalField, LocalsRule, RuleMeta } from './types.js';

/** What a matched local gives templates: its name and, per captured member, its addresses, symbol and value. */
export interface LocalCapture {
  name: string;
  /** The function of the frame the local belongs to, as printed. */
  function: string;
  fields: Record<string, { addresses: string[]; symbol: string | null; value: string }>;
}

/** How a compile error names the file, line and field (compile.ts's Fail). */
type Fail = (path: ReadonlyArray<PropertyKey>, message: string) => RuleError;

/** Longer values are not read (a huge struct is no guard; bounded work on hostile input). */
const MAX_VALUE = 4096;

export function compileLocalsRule(raw: LocalsRuleRaw, meta: RuleMeta, fail: Fail): LocalsRule {
  const pattern = (p: NamePatternInput | undefined, path: PropertyKey[]) => {
    if (p === undefined) return undefined;
    try {
      return compilePattern(p);
    } catch (error) {
      if (error instanceof PatternError) throw fail(path, error.message);
      throw error;
    }
  };
  const local = raw.match.local;
  const fields: LocalField[] = Object.entries(local.fields ?? {}).map(([name, f]) => {
    const value = pattern(f.value, ['match', 'local', 'fields', name, 'value']);
    const kinds = [f.address, f.addresses, f.taggedPointer].filter((x) => x === true).length;
    if (kinds > 1) throw fail(['match', 'local', 'fields', name], 'give one of address, addresses, taggedPointer');
    return { name, ...(f.address !== undefined ? { address: f.address } : {}), ...(f.addresses ? { addresses: true } : {}), ...(f.taggedPointer ? { taggedPointer: true } : {}), ...(value ? { value } : {}) };
  });
  if (fields.length === 0 && local.pointer !== true) throw fail(['match', 'local'], 'a local condition needs fields or pointer: true');
  if (fields.length > 0 && local.pointer === true) throw fail(['match', 'local'], 'a bare pointer has no fields: give fields or pointer: true, not both');
  const captured = new Set(fields.filter((f) => f.address === true || f.addresses === true || f.taggedPointer === true).map((f) => f.name));
  if (local.pointer === true) captured.add('value');
  const check = (text: string | undefined, path: PropertyKey[]): void => {
    if (text === undefined) return;
    for (const m of text.matchAll(/\{([^{}]+)\}/g)) {
      for (const alt of (m[1] as string).split('|').map((s) => s.trim())) {
        if (alt === 'local.name' || alt === 'frame.function') continue;
        const p = /^local\.([A-Za-z_]\w*)\.(address|symbol|value)$/.exec(alt);
        if (!p) throw fail(path, `unknown placeholder {${alt}}: use {local.name}, {frame.function} or {local.FIELD.address|symbol|value}`);
        if (!captured.has(p[1] as string) && p[2] !== 'value') throw fail(path, `placeholder {${alt}} names ${p[1]}, which is no address member of match.local (address, addresses, taggedPointer${local.pointer ? ', or value for pointer: true' : ''})`);
      }
    }
  };
  raw.effect.holds.forEach((h, i) => {
    check(h.resource, ['effect', 'holds', i, 'resource']);
    check(h.description, ['effect', 'holds', i, 'description']);
  });
  const name = pattern(local.name, ['match', 'local', 'name']);
  const type = pattern(local.type, ['match', 'local', 'type']);
  const notIn = pattern(raw.match.notIn, ['match', 'notIn']);
  return {
    kind: 'locals',
    ...meta,
    ...(name ? { name } : {}),
    ...(type ? { type } : {}),
    pointer: local.pointer === true,
    fields,
    exact: local.exact ?? true,
    ...(notIn ? { notIn } : {}),
    effect: raw.effect,
  };
}

/** A printed value split once: the type gdb put before it (or null) and its top-level members (null: not a struct). */
export interface ReadValue {
  type: string | null;
  members: Map<string, string> | null;
  /** The value itself, trimmed. */
  text: string;
}

/** Reads a local's value; null when it is too long to be a guard. */
export function readLocalValue(value: string): ReadValue | null {
  if (value.length > MAX_VALUE) return null;
  const text = value.trim();
  let at = 0;
  let type: string | null = null;
  if (!text.startsWith('{')) {
    const open = typePrefixEnd(text);
    if (open < 0) return { type: null, members: null, text };
    type = text.slice(0, open).trim();
    at = open;
  }
  const members = readMembers(text, at);
  return { type, members, text };
}

/** Where a Rust-style `TYPE {` prefix ends (the brace), or -1: the first ` {` outside <…> and (…). */
function typePrefixEnd(text: string): number {
  let angle = 0;
  let paren = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i];
    if (c === '<') angle++;
    else if (c === '>') angle = Math.max(0, angle - 1);
    else if (c === '(') paren++;
    else if (c === ')') paren = Math.max(0, paren - 1);
    else if (c === '{' && angle === 0 && paren === 0 && i > 0 && text[i - 1] === ' ') return i;
    else if ((c === '=' || c === ',') && angle === 0 && paren === 0) return -1;
  }
  return -1;
}

/** The top-level members of the `{…}` at `open`: `name = value` (C, C++) or `name: value` (Rust). */
function readMembers(text: string, open: number): Map<string, string> | null {
  const close = matchingBrace(text, open);
  if (close < 0) return null;
  const members = new Map<string, string>();
  for (const part of splitTopLevel(text.slice(open + 1, close))) {
    const m = /^\s*([A-Za-z_]\w*|\[\d+\]|<[^=]*?>)\s*(?: = |: )([\s\S]*)$/.exec(part);
    if (m === null) continue;
    members.set(m[1] as string, (m[2] as string).trim());
  }
  return members;
}

/** The index after the string literal at `i` (escapes honoured), or the end. */
function skipString(s: string, i: number): number {
  for (let j = i + 1; j < s.length; j++) {
    const c = s.charCodeAt(j);
    if (c === 92 /* \\ */) j++;
    else if (c === 34) return j + 1;
  }
  return s.length;
}

/** The index after a char literal at `i` (`'a'`, `'\\000'`), or i + 1 when it is not one (a lone quote). */
function skipCharLiteral(s: string, i: number): number {
  const end = s.indexOf("'", i + (s[i + 1] === '\\' ? 3 : 2));
  return end > i && end - i <= 6 ? end + 1 : i + 1;
}

function matchingBrace(text: string, open: number): number {
  let depth = 0;
  for (let i = open; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 34 /* " */) i = skipString(text, i) - 1;
    else if (c === 39 /* ' */) i = skipCharLiteral(text, i) - 1;
    else if (c === 123 /* { */) depth++;
    else if (c === 125 /* } */ && --depth === 0) return i;
  }
  return -1;
}

/** Splits at commas outside {…}, (…), <…> and strings. */
function splitTopLevel(body: string): string[] {
  const parts: string[] = [];
  let depth = 0;
  let start = 0;
  for (let i = 0; i < body.length; i++) {
    const c = body.charCodeAt(i);
    if (c === 34) i = skipString(body, i) - 1;
    else if (c === 39) i = skipCharLiteral(body, i) - 1;
    else if (c === 123 || c === 40 || c === 60) depth++;
    else if ((c === 125 || c === 41 || c === 62) && depth > 0) depth--;
    else if (c === 44 && depth === 0) {
      parts.push(body.slice(start, i));
      start = i + 1;
    }
  }
  parts.push(body.slice(start));
  return parts;
}

/** `@0x55e87e3180e0`, `0x5565c26f3280 <rw>`, `(QMutex *) 0x…`: the address (non-null) and symbol, or null. */
function pointerOf(value: string): { address: string; symbol: string | null } | null {
  const m = /^(?:\([^()]*\)\s*)?@?(0x[0-9a-fA-F]+)(?:\s+<([^<>]+(?:<[^<>]*>[^<>]*)*)>)?(?::|$|\s)/.exec(value.trim());
  if (m === null) return null;
  const address = normalizeAddress(m[1] as string);
  if (address === '0x0') return null;
  return { address, symbol: m[2] ?? null };
}

/** Every non-null address in a member (a tuple of references). */
function addressesIn(value: string): string[] {
  const out: string[] = [];
  for (const m of value.matchAll(/(?:^|[\s=:{(,])@?(0x[0-9a-fA-F]+)\b/g)) {
    const a = normalizeAddress(m[1] as string);
    if (a !== '0x0' && !out.includes(a)) out.push(a);
  }
  return out;
}

/** An integer (decimal or hex) holding a pointer whose low bit says "locked": the pointer, or null when the bit is clear. */
function taggedPointerOf(value: string): string | null {
  const t = value.trim();
  if (!/^(?:\d{1,20}|0x[0-9a-fA-F]{1,16})$/.test(t)) return null;
  const n = BigInt(t);
  if ((n & 1n) === 0n) return null;
  const p = n & ~1n;
  return p === 0n ? null : `0x${p.toString(16)}`;
}

/** The local's captures when `rule` matches it, else null. */
export function matchLocal(rule: LocalsRule, local: { name: string; value: string }, fn: string, read: ReadValue | null): LocalCapture | null {
  if (read === null) return null;
  if (rule.name && !rule.name(local.name)) return null;
  if (rule.type && (read.type === null || !rule.type(read.type))) return null;
  const capture: LocalCapture = { name: local.name, function: fn, fields: {} };
  if (rule.pointer) {
    if (read.members !== null || read.type !== null) return null;
    const p = pointerOf(read.text);
    if (p === null) return null;
    capture.fields.value = { addresses: [p.address], symbol: p.symbol, value: read.text };
    return capture;
  }
  const members = read.members;
  if (members === null) return null;
  if (rule.exact && members.size !== rule.fields.length) return null;
  for (const f of rule.fields) {
    const v = members.get(f.name);
    if (v === undefined) return null;
    if (f.value && !f.value(v)) return null;
    if (f.address !== undefined) {
      const p = pointerOf(v);
      if ((p !== null) !== f.address) return null;
      if (p !== null) capture.fields[f.name] = { addresses: [p.address], symbol: p.symbol, value: v };
    } else if (f.addresses) {
      const all = addressesIn(v);
      if (all.length === 0) return null;
      capture.fields[f.name] = { addresses: all, symbol: null, value: v };
    } else if (f.taggedPointer) {
      const p = taggedPointerOf(v);
      if (p === null) return null;
      capture.fields[f.name] = { addresses: [p], symbol: null, value: v };
    } else capture.fields[f.name] = { addresses: [], symbol: null, value: v };
  }
  return capture;
}

/**
 * Expands a locals template once per address of the (one) member it names with `.address`: a
 * scoped_lock of two mutexes gives two holds. Null when a placeholder has no value.
 */
export function expandLocalTemplate(template: string, capture: LocalCapture): string[] | null {
  const multi = /\{local\.([A-Za-z_]\w*)\.address\}/.exec(template)?.[1];
  const count = multi !== undefined ? (capture.fields[multi]?.addresses.length ?? 0) : 1;
  if (count === 0) return null;
  const out: string[] = [];
  for (let k = 0; k < count; k++) {
    let missing = false;
    const text = template.replace(/\{([^{}]+)\}/g, (_, inner: string) => {
      for (const alt of inner.split('|').map((s) => s.trim())) {
        const v = placeholderValue(alt, capture, alt === `local.${multi}.address` ? k : 0);
        if (v !== null && v !== '') return v;
      }
      missing = true;
      return '?';
    });
    if (missing) return null;
    out.push(text);
  }
  return out;
}

function placeholderValue(alt: string, capture: LocalCapture, k: number): string | null {
  if (alt === 'local.name') return capture.name;
  if (alt === 'frame.function') return capture.function;
  const p = /^local\.([A-Za-z_]\w*)\.(address|symbol|value)$/.exec(alt);
  if (p === null) return null;
  const f = capture.fields[p[1] as string];
  if (f === undefined) return null;
  if (p[2] === 'address') return f.addresses[k] ?? f.addresses[0] ?? null;
  if (p[2] === 'symbol') return f.symbol;
  return f.value;
}
