/**
 * Argument values as rules compare them: a pointer normalised to one spelling (lower-case hex, no
 * leading zeros), and the `<symbol>` gdb prints after it (`mutex=0x78411d5ca900 <safepoint_lock>`).
 * Resource ids built from captured addresses use the same normalisation, so two rules naming the
 * same lock meet in one graph node.
 */

/** Lower-case hex without leading zeros, so `0x000078411d5ca900` and `0x78411d5ca900` are one key. */
export function normalizeAddress(hex: string): string {
  // Plain `0x` + hex digits (every address the parser hands over): no regexes.
  const lower = hex.toLowerCase();
  const prefixed = lower.startsWith('0x');
  let start = prefixed ? 2 : 0;
  if (start < lower.length && isHexDigits(lower, start)) {
    while (start < lower.length - 1 && lower.charCodeAt(start) === 48 /* 0 */) start++;
    return prefixed && start === 2 ? lower : `0x${lower.slice(start)}`;
  }
  const digits = lower.replace(/^0x/, '').replace(/^0+(?=.)/, '');
  return `0x${digits}`;
}

function isHexDigits(s: string, from: number): boolean {
  for (let i = from; i < s.length; i++) {
    const c = s.charCodeAt(i);
    if (!((c >= 48 && c <= 57) || (c >= 97 && c <= 102))) return false;
  }
  return true;
}

/** An argument value split into its parts: `0x78411d5ca900 <safepoint_lock>`. */
export interface ParsedArgValue {
  /** The whole value as printed. */
  value: string;
  /** The leading pointer, normalised, or null. */
  address: string | null;
  /** The `<symbol>` (with any `+offset`), or null. */
  symbol: string | null;
}

const POINTER_VALUE = /^(?:\([^()]*\)\s*)?(0x[0-9a-fA-F]+)(?:\s+<([^<>]+(?:<[^<>]*>[^<>]*)*)>)?/;

/** What POINTER_VALUE needs to match at all: the optional cast, `0x` and one hex digit. */
const POINTER_START = /^\s*(?:\([^()]*\)\s*)?0x[0-9a-fA-F]/;

/** `parseArgValue(value).address !== null`, without parsing the rest or normalising the address. */
export function hasPointerValue(value: string): boolean {
  return POINTER_START.test(value);
}

export function parseArgValue(value: string): ParsedArgValue {
  const m = POINTER_VALUE.exec(value.trim());
  if (!m) return { value, address: null, symbol: null };
  return { value, address: normalizeAddress(m[1] ?? ''), symbol: m[2] ?? null };
}
