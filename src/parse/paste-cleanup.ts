/**
 * Stage A, part 1 (gdb-format.md §2): what real pastes add on top of gdb's text, removed line by
 * line before any grammar applies — line endings, colour escapes, invisible characters, e-mail
 * quoting, HTML leftovers and pager prompts. Each function is cheap when its trigger character is
 * absent, because almost every line of a large dump is clean.
 */

// ECMA-48 CSI (`\e[33m`, `\e[m`, `\e[?2004h`) and OSC (`\e]8;;url\e\\`) sequences.
const ANSI = /\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)|\x1b[@-Z\\-_]/g;
// U+200B zero-width space (issue trackers put it after `#`), ZWNJ, ZWJ, word joiner, BOM.
const INVISIBLE = /[\u200b-\u200d\u2060\ufeff]/g;
const INVISIBLE_TEST = /[\u200b-\u200d\u2060\ufeff]/;
// Tags left over from scraped HTML; gdb's own `<optimized out>` style markers are never matched.
// `[^<>]*`, not `[^>]*`: a scan stops at the next `<`, so a line of unclosed `<p <p <p …` stays linear.
const HTML_TAG = /<\/?(?:p|br|pre|code|div|span|tt|kbd|samp|blockquote)\b[^<>]*>/gi;
const HTML_TAG_TEST = /<\/?(?:p|br|pre|code|div|span|tt|kbd|samp|blockquote)\b[^<>]*>/i;
const HTML_ENTITY = /&(?:lt|gt|amp|quot|apos|nbsp|#39|#x27|#8203|#x200b);/gi;
const ENTITY_TEXT: Record<string, string> = {
  '&lt;': '<',
  '&gt;': '>',
  '&amp;': '&',
  '&quot;': '"',
  '&apos;': "'",
  '&nbsp;': ' ',
  '&#39;': "'",
  '&#x27;': "'",
  '&#8203;': '',
  '&#x200b;': '',
};
// Quoted-printable escapes of a UTF-8 character (`=C3=B6`): a lead byte and a continuation byte.
const QP_HIGH_BYTE = /=[C-F][0-9A-F]=[89AB][0-9A-F]/;
// CI log timestamps (GitHub Actions: `2024-05-01T12:00:00.1234567Z `), before anything else.
const TIMESTAMP_PREFIX = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)? /;
// E-mail / GitHub quoting, possibly nested: `> `, `> > `, `>> `.
const QUOTE_PREFIX = /^(?:[ \t]{0,3}>[ ]?)+/;
// A paste commented out in a script or a Python file: `#     (gdb) bt`, `#     #0  pthread_cond_wait …`.
const COMMENT_PREFIX = /^[ \t]*#[ \t]/;
// Markdown-escaped text (`\(gdb\)`, `\#0`, `\_\_lll\_lock\_wait`): a backslash before punctuation.
const MARKDOWN_TRIGGER = /\\[()#[\]]/;
const MARKDOWN_ESCAPE = /\\([`*_{}[\]()#+\-.!<>|,&:=@~])/g;

/**
 * Both pager prompt wordings (GDB ≤ 8.1 and ≥ 8.2), the user's optional `c`/`q` answer and the
 * blanks after it. Matched anywhere in a line: the pager can stop in the middle of one.
 */
const PAGER = /(?:--Type <RET> for more, q to quit, c to continue without paging--|---Type <return> to continue, or q <return> to quit---)([cq])?[ \t]*/g;

/** What the pager did to a line. */
export const enum PagerEffect {
  None = 0,
  /** The line was only a prompt (and an answer): it disappears. */
  WholeLine = 1,
  /** The prompt cut the line: the next physical line holds its rest. */
  CutLine = 2,
}

export interface CleanLine {
  text: string;
  pager: PagerEffect;
  /** The user answered `q` at a prompt on this line: gdb printed `Quit` and stopped. */
  quit: boolean;
  /** The prompt text as it was, for pager-only lines (kept in `ignored`). */
  pagerText: string | null;
}

// Characters only the slow path below handles; absent from almost every line of a clean dump.
const TRIGGER = /[\r\x1b\x1a\u200b-\u200d\u2060\ufeff\\]/;
// Sticky forms of HTML_TAG_TEST and HTML_ENTITY_TEST, tried only where a `<` or `&` stands: every
// match of those starts with that character, so the result is the same as an unanchored search, but
// a dump full of `<optimized out>`, `std::vector<int>` and `&` is not scanned by a regex byte by byte.
const HTML_TAG_AT = /<\/?(?:p|br|pre|code|div|span|tt|kbd|samp|blockquote)\b[^<>]*>/iy;
const HTML_ENTITY_AT = /&(?:lt|gt|amp|quot|apos|nbsp|#39|#x27|#8203|#x200b);/iy;

/** Same answer as `HTML_TAG_TEST.test(text)`. */
function hasHtmlTag(text: string): boolean {
  for (let i = text.indexOf('<'); i >= 0; i = text.indexOf('<', i + 1)) {
    // Every tag name starts with one of b c d k p s t (either case), after an optional `/`:
    // `<optimized out>`, `<unsigned long>`, `<repeats 30 times>` are ruled out without a regex.
    let c = text.charCodeAt(i + 1);
    if (c === 47 /* / */) c = text.charCodeAt(i + 2);
    c |= 0x20; // lower case
    if (c !== 98 && c !== 99 && c !== 100 && c !== 107 && c !== 112 && c !== 115 && c !== 116) continue;
    HTML_TAG_AT.lastIndex = i;
    if (HTML_TAG_AT.test(text)) return true;
  }
  return false;
}

/** Same answer as `/&(?:lt|gt|…);/i.test(text)`. */
function hasHtmlEntity(text: string): boolean {
  for (let i = text.indexOf('&'); i >= 0; i = text.indexOf('&', i + 1)) {
    HTML_ENTITY_AT.lastIndex = i;
    if (HTML_ENTITY_AT.test(text)) return true;
  }
  return false;
}

/**
 * Same answer as `QP_HIGH_BYTE.test(text)`, by charCode tests at each `=` (arguments hold hundreds
 * of thousands of `=` in a large dump, but a test of the next character rules almost all out).
 */
function hasQpHighByte(text: string): boolean {
  for (let i = text.indexOf('='); i >= 0; i = text.indexOf('=', i + 1)) {
    const c1 = text.charCodeAt(i + 1);
    if (c1 < 67 /* C */ || c1 > 70 /* F */) continue;
    if (!isUpperHexDigit(text.charCodeAt(i + 2)) || text.charCodeAt(i + 3) !== 61 /* = */) continue;
    const c4 = text.charCodeAt(i + 4);
    if ((c4 === 56 || c4 === 57 || (c4 >= 65 && c4 <= 66)) && isUpperHexDigit(text.charCodeAt(i + 5))) return true;
  }
  return false;
}

function isUpperHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70);
}

/**
 * Whether a whole chunk of text may need any normalising beyond the quote and comment prefixes:
 * one native scan per chunk instead of several per line.
 */
export function chunkNeedsWork(text: string): boolean {
  // indexOf is a native memchr-speed scan; one regex over a megabyte is several times slower.
  return (
    text.indexOf('\r') >= 0 ||
    text.indexOf('\x1b') >= 0 ||
    text.indexOf('\\') >= 0 ||
    text.indexOf('\x1a') >= 0 ||
    text.indexOf('\u200b') >= 0 ||
    text.indexOf('\u200c') >= 0 ||
    text.indexOf('\u200d') >= 0 ||
    text.indexOf('\u2060') >= 0 ||
    text.indexOf('\ufeff') >= 0 ||
    text.includes('Type <') ||
    // The same tests cleanLine makes per line (case-insensitive), or a chunk is called clean while
    // one of its lines is not, and chunked parsing differs from whole parsing (fuzz: `<pñ…>`).
    // Every entity ends in `;`, which a backtrace seldom holds: one native scan rules them out.
    (text.indexOf(';') >= 0 && hasHtmlEntity(text)) ||
    hasQpEscape(text) ||
    hasHtmlTag(text)
  );
}

/**
 * Same answer as `text.includes('=3D') || hasQpHighByte(text)`, in one pass over the `=`s. No
 * charCodeAt past the end: a `=` near a chunk's end made the optimized loop deoptimize (twice in
 * the 30 MB bench dump) and compile again. An escape needs 2 (`=3D`) or 5 characters after its `=`.
 */
function hasQpEscape(text: string): boolean {
  const n = text.length;
  for (let i = text.indexOf('='); i >= 0; i = text.indexOf('=', i + 1)) {
    if (i + 2 >= n) return false;
    const c1 = text.charCodeAt(i + 1);
    if (c1 === 51 /* 3 */) {
      if (text.charCodeAt(i + 2) === 68 /* D */) return true;
      continue;
    }
    if (c1 < 67 /* C */ || c1 > 70 /* F */ || i + 5 >= n) continue;
    if (!isUpperHexDigit(text.charCodeAt(i + 2)) || text.charCodeAt(i + 3) !== 61 /* = */) continue;
    const c4 = text.charCodeAt(i + 4);
    if ((c4 === 56 || c4 === 57 || (c4 >= 65 && c4 <= 66)) && isUpperHexDigit(text.charCodeAt(i + 5))) return true;
  }
  return false;
}

/** Whether a line needs any normalising at all (a handful of native scans, no allocation). */
function needsWork(raw: string, chunkClean: boolean): boolean {
  if (!chunkClean && TRIGGER.test(raw)) return true;
  // `raw.length > 10`: no charCodeAt past the end (see LineReader.physical).
  if (raw.length > 10 && raw.charCodeAt(4) === 45 /* - */ && raw.charCodeAt(10) === 84 /* T */ && TIMESTAMP_PREFIX.test(raw)) return true;
  const first = firstNonBlank(raw);
  if (first >= 0) {
    const c = raw.charCodeAt(first);
    if (c === 62 /* > */) return true;
    if (c === 35 /* # */) {
      const next = raw.charCodeAt(first + 1);
      if (next === 32 || next === 9) return true;
    }
  }
  if (chunkClean) return false;
  if (raw.includes('Type <')) return true;
  if (raw.includes('=3D') || hasQpHighByte(raw)) return true;
  if (hasHtmlEntity(raw)) return true;
  return hasHtmlTag(raw);
}

/** A result object for cleanLine; a line reader makes one and passes it to every call. */
export function cleanLineResult(): CleanLine {
  return { text: '', pager: PagerEffect.None, quit: false, pagerText: null };
}

/**
 * Normalises one physical line (without its line terminator). `chunkClean`: the caller checked
 * that the text around this line holds nothing `chunkNeedsWork` looks for. The answer is written
 * to `out` and returned (a reader reuses one object, one physical line at a time: no allocation
 * per line); copy what you keep.
 */
export function cleanLine(raw: string, chunkClean = false, out: CleanLine = cleanLineResult()): CleanLine {
  out.pager = PagerEffect.None;
  out.quit = false;
  out.pagerText = null;
  if (!needsWork(raw, chunkClean)) {
    out.text = trimEnd(raw);
    return out;
  }
  let text = raw;
  // A lone CR redraws the line (debuginfod progress meter): keep what was drawn last.
  let cr = text.lastIndexOf('\r');
  while (cr >= 0 && cr === text.length - 1) {
    text = text.slice(0, cr);
    cr = text.lastIndexOf('\r');
  }
  if (cr >= 0) text = text.slice(cr + 1);
  if (text.charCodeAt(4) === 45 && text.charCodeAt(10) === 84) text = text.replace(TIMESTAMP_PREFIX, '');
  if (text.includes('\x1b')) text = text.replace(ANSI, '');
  if (text.charCodeAt(0) === 0x1a && text.charCodeAt(1) === 0x1a) {
    // Emacs annotation (`\x1a\x1aframe-begin 0 0x…`): machine chatter, not gdb's text.
    out.text = text;
    return out;
  }
  if (INVISIBLE_TEST.test(text)) text = text.replace(INVISIBLE, '');
  if (text.includes('<') && HTML_TAG_TEST.test(text)) text = text.replace(HTML_TAG, '');
  if (text.includes('&')) text = text.replace(HTML_ENTITY, (e) => ENTITY_TEXT[e.toLowerCase()] ?? e);
  if (text.includes('\\') && MARKDOWN_TRIGGER.test(text)) text = text.replace(MARKDOWN_ESCAPE, '$1');
  const first = firstNonBlank(text);
  if (first >= 0) {
    const c = text.charCodeAt(first);
    if (c === 62 /* > */) text = text.replace(QUOTE_PREFIX, '');
    else if (c === 35 /* # */ && COMMENT_PREFIX.test(text)) text = text.replace(COMMENT_PREFIX, '');
  }
  let softBreak = false;
  if ((text.includes('=3D') || QP_HIGH_BYTE.test(text)) && isQuotedPrintable(text)) {
    // A mail archive in quoted-printable: `(sig=3Dsig@entry=3D6)`, soft line breaks end in `=`.
    softBreak = text.endsWith('=');
    text = decodeQuotedPrintable(softBreak ? text.slice(0, -1) : text);
  }
  if (text.includes('Type <')) {
    let cutAt = -1;
    let quit = false;
    let pagerText: string | null = null;
    const stripped = text.replace(PAGER, (match: string, answer: string | undefined, offset: number) => {
      if (answer === 'q') quit = true;
      if (offset + match.length >= text.length) cutAt = offset;
      pagerText = match.trim();
      return '';
    });
    if (pagerText !== null) {
      if (stripped.trim() === '') out.pager = PagerEffect.WholeLine;
      else if (cutAt >= 0 && !quit) out.pager = PagerEffect.CutLine;
      out.quit = quit;
      out.pagerText = pagerText;
      text = stripped;
    }
  }
  if (softBreak && out.pager === PagerEffect.None) out.pager = PagerEffect.CutLine;
  out.text = softBreak ? text : trimEnd(text);
  return out;
}

/** Every `=` is an escape (`=3D`, `=C3=A9`) or a soft line break at the very end. */
function isQuotedPrintable(text: string): boolean {
  for (let i = text.indexOf('='); i >= 0; i = text.indexOf('=', i + 1)) {
    if (i === text.length - 1) continue;
    if (!isHexDigit(text.charCodeAt(i + 1)) || !isHexDigit(text.charCodeAt(i + 2))) return false;
  }
  return true;
}

function isHexDigit(c: number): boolean {
  return (c >= 48 && c <= 57) || (c >= 65 && c <= 70) || (c >= 97 && c <= 102);
}

/** Decodes `=XX` escapes; byte runs are read as UTF-8 (`=E2=80=A6` → `…`). */
function decodeQuotedPrintable(text: string): string {
  return text.replace(/(?:=[0-9A-Fa-f]{2})+/g, (run) => {
    const bytes = new Uint8Array(run.length / 3);
    for (let i = 0; i < bytes.length; i++) bytes[i] = parseInt(run.slice(i * 3 + 1, i * 3 + 3), 16);
    return new TextDecoder().decode(bytes);
  });
}

function firstNonBlank(text: string): number {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c !== 32 && c !== 9) return i;
  }
  return -1;
}

function trimEnd(text: string): string {
  const n = text.length;
  if (n === 0) return text;
  const c = text.charCodeAt(n - 1);
  return c === 32 || c === 9 ? text.trimEnd() : text;
}
