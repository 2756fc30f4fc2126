/**
 * Makes control characters in input-derived text visible before any report prints it. Dumps come
 * from strangers' bug reports and from processes nobody trusts: a thread name, a function, an
 * argument or a path can hold an escape sequence (`\e]8;;https://evil\e\\` hyperlinks, `\e[2J`
 * screen clears, colour that fakes waitgraph's own), a BEL, a carriage return or backspaces that
 * overwrite what the terminal already shows, or a bidi override (U+202E) that reorders a line in
 * an editor or a code-review page. Every such character is shown as an escape (`\x1b`, `\u202e`),
 * so the report says what the dump says and colour codes come only from waitgraph itself.
 *
 * One function set for every format: reporters call `sanitizeAnalysis` on the Analysis they are
 * given (text, Markdown, Mermaid, DOT → SVG, SARIF) and `escapeJsonInvisibles` on JSON text.
 */
import type { Analysis } from '../model/analysis.js';

/**
 * What is made visible: C0 controls except line feed (TAB, CR, ESC, BEL, BS, NUL, …), DEL, C1
 * controls (U+0080–U+009F; U+009B is a one-byte CSI on some terminals), the line and paragraph
 * separators, and the bidi and directional marks and overrides (U+061C, U+200E/F, U+202A–E,
 * U+2066–9). Line feed stays: multi-line local values and rule texts keep their lines, and the
 * parser never leaves a line feed inside a one-line field.
 */
export const CONTROL_CHARS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
const CONTROL_TEST = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;
/** Same set plus line feed, for one-line fields (file names in messages). */
const CONTROL_OR_NEWLINE = /[\u0000-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

function escapeChar(c: string): string {
  const code = c.charCodeAt(0);
  return code < 0x100 ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/** True when `text` holds a character `visible` would escape. */
export function hasControlChars(text: string): boolean {
  return CONTROL_TEST.test(text);
}

/**
 * `text` with every control character shown as an escape: ESC → `\x1b`, BEL → `\x07`,
 * U+202E → `\u202e`. Line feeds stay unless `oneLine` is set (then `\x0a`).
 */
export function visible(text: string, options: { oneLine?: boolean } = {}): string {
  if (options.oneLine === true) return text.replace(CONTROL_OR_NEWLINE, escapeChar);
  return CONTROL_TEST.test(text) ? text.replace(CONTROL_CHARS, escapeChar) : text;
}

/**
 * A copy of `analysis` in which every string (thread names, functions, arguments, paths, ignored
 * lines, rule texts filled from arguments) has passed through `visible`. Objects and arrays that
 * hold no such string are shared with the original, not copied, so a clean million-frame dump
 * costs one walk and no memory; an object reached twice (an edge in `edges` and in a cycle step)
 * maps to one copy, so identity between them is kept.
 */
export function sanitizeAnalysis(analysis: Analysis): Analysis {
  const cached = sanitized.get(analysis);
  if (cached !== undefined) return cached;
  const result = sanitizeValue(analysis);
  sanitized.set(analysis, result);
  if (result !== analysis) sanitized.set(result, result);
  return result;
}

/**
 * One walk per Analysis even when several reporters print it (Markdown embeds Mermaid, SVG is
 * rendered from DOT). Reporters never mutate an Analysis, so the copy stays valid.
 */
const sanitized = new WeakMap<Analysis, Analysis>();

function sanitizeValue(analysis: Analysis): Analysis {
  const copies = new Map<object, unknown>();
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return CONTROL_TEST.test(value) ? value.replace(CONTROL_CHARS, escapeChar) : value;
    if (value === null || typeof value !== 'object') return value;
    const done = copies.get(value);
    if (done !== undefined) return done;
    if (Array.isArray(value)) {
      let copy: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const next = walk(item);
        if (next !== item) {
          copy ??= value.slice();
          copy[i] = next;
        }
      }
      if (copy === null) return value;
      copies.set(value, copy);
      return copy;
    }
    let copy: Record<string, unknown> | null = null;
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      const next = walk(item);
      if (next !== item) {
        copy ??= { ...record };
        copy[key] = next;
      }
    }
    if (copy === null) return value;
    copies.set(value, copy);
    return copy;
  };
  return walk(analysis) as Analysis;
}

/** The invisible characters JSON.stringify leaves raw (it already escapes U+0000–U+001F). */
const JSON_INVISIBLES = /[\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;

/**
 * JSON text with DEL, C1 controls, separators and bidi marks written as `\uXXXX` escapes. The
 * parsed data is identical (JSON.parse gives back the same strings), but a terminal or a code
 * view that shows the JSON is not reordered or driven by them. They can only occur inside strings.
 */
export function escapeJsonInvisibles(json: string): string {
  return json.replace(JSON_INVISIBLES, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
