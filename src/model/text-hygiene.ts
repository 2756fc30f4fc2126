/**
 * Text hygiene: the two things every stage does to strings that came from a dump, in one place.
 *
 * - **Detaching** (`detach`): a string cut from the input shares memory with it. V8 represents a
 *   slice of 13 or more characters as a view into its parent string, and the parent of every line
 *   is a whole input chunk (~1 MB): one kept thread header per chunk would keep the whole input
 *   alive (a 300 MB dump parsed with keepFrames false peaked at 800 MB; with this copy 320 MB, live
 *   set < 128 MB). The parser detaches what the Dump keeps, the rules what their name table keeps,
 *   the analysis what its summaries keep.
 * - **Making controls visible** (`visible`, `escapeControlChars`, `escapeJsonInvisibles`): dumps
 *   come from strangers' bug reports and from processes nobody trusts. A thread name, a function,
 *   an argument or a path can hold an escape sequence (`\e]8;;https://evil\e\\` hyperlinks, `\e[2J`
 *   screen clears, colour that fakes waitgraph's own), a BEL, a carriage return or backspaces that
 *   overwrite what the terminal already shows, or a bidi override (U+202E) that reorders a line in
 *   an editor or a code-review page. Every such character is shown as an escape (`\x1b`,
 *   `\u202e`), so a report or a message says what the dump says and colour codes come only from
 *   waitgraph itself. Reporters apply it to a whole Analysis (report/sanitize.ts); the CLI to the
 *   file names and messages it prints.
 */

/** A copy of `s` that shares no memory with the text it was cut from (V8 copies shorter slices anyway). */
export function detach(s: string): string {
  return s.length < 13 ? s : (' ' + s).slice(1);
}

/**
 * What is made visible: C0 controls except line feed (TAB, CR, ESC, BEL, BS, NUL, …), DEL, C1
 * controls (U+0080–U+009F; U+009B is a one-byte CSI on some terminals), the line and paragraph
 * separators, and the bidi and directional marks and overrides (U+061C, U+200E/F, U+202A–E,
 * U+2066–9). Line feed stays: multi-line local values and rule texts keep their lines, and the
 * parser never leaves a line feed inside a one-line field.
 */
const CONTROL_CHARS = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/g;
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

/** `text` with every control character (line feed kept) shown as an escape; `text` itself when it holds none. */
export function escapeControlChars(text: string): string {
  return CONTROL_TEST.test(text) ? text.replace(CONTROL_CHARS, escapeChar) : text;
}

/**
 * `text` with every control character shown as an escape: ESC → `\x1b`, BEL → `\x07`,
 * U+202E → `\u202e`. Line feeds stay unless `oneLine` is set (then `\x0a`).
 */
export function visible(text: string, options: { oneLine?: boolean } = {}): string {
  if (options.oneLine === true) return text.replace(CONTROL_OR_NEWLINE, escapeChar);
  return escapeControlChars(text);
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
