/**
 * Hostile text for the safety tests: what a stranger's dump can hide in a thread name, a function
 * name, an argument or a path to take over the terminal (or the page) that shows the report.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES } from '../helpers/paths.js';

const ESC = '\u001b';

/** Each entry: a label and a payload that must never reach a report raw. */
export const PAYLOADS: ReadonlyArray<readonly [string, string]> = [
  ['OSC-8 hyperlink', `${ESC}]8;;https://evil.example/${ESC}\\click${ESC}]8;;${ESC}\\`],
  ['screen clear + fake colour', `${ESC}[2J${ESC}[1;32mOK no deadlock${ESC}[0m`],
  ['lone ESC', `${ESC}x`],
  ['BEL', '\u0007'],
  ['backspaces over text', 'evil\b\b\b\bgood'],
  ['carriage return overwrite', 'hidden\rshown'],
  ['bidi override', '\u202etxt.exe'],
  ['bidi isolate', '\u2066abc\u2069'],
  ['C1 CSI', '\u009b31m'],
  ['DEL and NUL', '\u007f\u0000'],
  ['vertical tab / form feed', '\u000b\u000c'],
  ['line separator', 'a\u2028b'],
];

/** Markup a dump can hide to take over the page an HTML report is opened in. */
export const MARKUP_PAYLOADS: ReadonlyArray<readonly [string, string]> = [
  ['script element', '</b></pre></script><script>window.__pwned=1</script>'],
  ['attribute break-out', '" onmouseover="window.__pwned=1" x="'],
  ['image with a handler', "<img src=x onerror=alert(1)>"],
  ['comment and CDATA ends', '--><!--<![CDATA[]]>-->'],
  ['style and link', '<style>*{display:none}</style><link rel=stylesheet href=//evil.example/x.css>'],
  ['entity and template', '&lt;&#x3c;<template><svg onload=alert(1)>'],
];

/** Every payload joined, for one-shot plants. */
export const ALL_PAYLOADS = PAYLOADS.map(([, p]) => p).join('|');

/**
 * Raw control characters a report may not contain: C0 except LF, DEL, C1, bidi controls, line
 * separators. (ESC is allowed only as part of waitgraph's own SGR colour codes; callers strip
 * those first when colour is on.)
 */
export const RAW_CONTROL = /[\u0000-\u0009\u000b-\u001f\u007f-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]/;

/** waitgraph's own colour codes (chalk emits SGR only). */
export const OWN_SGR = /\u001b\[[0-9;]*m/g;

export function firstControl(text: string): string | null {
  const m = RAW_CONTROL.exec(text);
  if (m === null) return null;
  const at = m.index;
  return `U+${m[0].charCodeAt(0).toString(16).padStart(4, '0')} at ${at}: ${JSON.stringify(text.slice(Math.max(0, at - 40), at + 40))}`;
}

/** The ABBA mutex deadlock captured from a real program (fixtures/live/abba.txt). */
export function abbaText(): string {
  const text = readFileSync(join(FIXTURES, 'live', 'abba.txt'), 'utf8');
  return `${text}${abbaOwners(text)}`;
}

/**
 * The owners gdb prints for the two locks, so the text alone proves the cycle. Addresses and LWPs
 * are read from the capture (it is re-captured when the live programs change): "abba-ab" takes
 * lock_a then waits for lock_b, "abba-ba" the other way round.
 */
function abbaOwners(text: string): string {
  const address = (lock: string): string => new RegExp(`mutex=(0x[0-9a-f]+) <${lock}>`).exec(text)?.[1] ?? '0x0';
  const lwp = (name: string): string => new RegExp(`\\(LWP (\\d+)\\) "${name}"\\)`).exec(text)?.[1] ?? '0';
  const print = (n: number, lock: string, owner: string): string[] => [
    `(gdb) p *(pthread_mutex_t *) ${address(lock)}`,
    `$${n} = {__data = {__lock = 2, __count = 0, __owner = ${lwp(owner)}, __nusers = 1, __kind = 0, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\\002", '\\000' <repeats 39 times>, __align = 2}`,
  ];
  return [...print(1, 'lock_a', 'abba-ab'), ...print(2, 'lock_b', 'abba-ba'), ''].join('\n');
}

/**
 * The ABBA dump with a payload planted in a thread name, a function of the cycle, a lock symbol
 * (an argument) and a source path, so every format has something hostile to print.
 */
export function plantedAbba(payload: string): string {
  return abbaText()
    .replaceAll('"abba-ba"', `"ba${payload}"`)
    .replaceAll('take_b_then_a', `take_b${payload}then_a`)
    .replaceAll('<lock_a>', `<lock_a${payload}>`)
    .replaceAll('abba.c:', `src/${payload}abba.c:`);
}
