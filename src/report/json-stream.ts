/**
 * JSON written piece by piece, byte for byte what `JSON.stringify(value, null, 2)` prints, without
 * ever holding the whole text or the whole tree.
 *
 * Why: the JSON report of a 100,000-thread dump is ~55 MB of text (a 107 MiB two-byte string when
 * a name holds a non-ASCII character), and its tree of plain objects as much again; building both
 * and handing the string to stdout more than doubled the CLI's peak memory (issue 7, figure 3).
 * Here the big arrays are marked with `streamedArray`: each element is mapped to its JSON shape
 * just before it is written and dropped after, and the text comes out in chunks of ~64K
 * characters. Everything not marked is small and goes through JSON.stringify, re-indented.
 */

/** Marks an array or object the writer walks itself instead of handing it to JSON.stringify. */
const STREAMED = Symbol('streamed');

export interface StreamedArray {
  readonly [STREAMED]: 'array';
  readonly length: number;
  /** The JSON value of element `i` (objects, arrays, primitives, or other streamed values). */
  at(i: number): unknown;
}

export interface StreamedObject {
  readonly [STREAMED]: 'object';
  /** Fields in output order; `undefined` values are left out, as JSON.stringify does. */
  readonly fields: Readonly<Record<string, unknown>>;
}

/** `items` written one by one, each through `map` when its turn comes. */
export function streamedArray<T>(items: readonly T[], map: (item: T) => unknown): StreamedArray {
  return { [STREAMED]: 'array', length: items.length, at: (i) => map(items[i] as T) };
}

/** An object whose fields may hold streamed arrays or objects. */
export function streamedObject(fields: Record<string, unknown>): StreamedObject {
  return { [STREAMED]: 'object', fields };
}

function isStreamed(value: unknown): value is StreamedArray | StreamedObject {
  return typeof value === 'object' && value !== null && STREAMED in value;
}

/** How many characters are gathered before a chunk is handed out. */
export const CHUNK_CHARS = 1 << 16;

/**
 * The JSON text of `value` (indent 2) in chunks of about CHUNK_CHARS characters, each passed
 * through `finish` (e.g. an escaper; it must work on any split between JSON tokens). The chunks
 * joined are exactly `JSON.stringify(value, null, 2)` with streamed values read as plain ones.
 */
export function* jsonChunks(value: unknown, finish: (chunk: string) => string = (c) => c): Generator<string> {
  let buffer = '';
  for (const piece of pieces(value, '')) {
    buffer += piece;
    if (buffer.length >= CHUNK_CHARS) {
      yield finish(buffer);
      buffer = '';
    }
  }
  if (buffer !== '') yield finish(buffer);
}

/** The text pieces of `value` written at indentation `indent` (its first line is not indented). */
function* pieces(value: unknown, indent: string): Generator<string> {
  if (!isStreamed(value)) {
    yield stringifyAt(value, indent);
    return;
  }
  const inner = `${indent}  `;
  if (value[STREAMED] === 'array') {
    if (value.length === 0) {
      yield '[]';
      return;
    }
    yield '[\n';
    for (let i = 0; i < value.length; ) {
      const first = value.at(i);
      if (isStreamed(first)) {
        yield inner;
        yield* pieces(first, inner);
        i++;
      } else {
        // Plain elements go through JSON.stringify a batch at a time (one call, no re-indenting).
        const batch = [first];
        for (i++; i < value.length && batch.length < BATCH; i++) {
          const item = value.at(i);
          if (isStreamed(item)) break;
          batch.push(item);
        }
        yield stringifyElementsAt(batch, indent);
      }
      yield i < value.length ? ',\n' : '\n';
    }
    yield `${indent}]`;
    return;
  }
  const keys = Object.keys(value.fields).filter((k) => {
    const v = value.fields[k];
    return v !== undefined && typeof v !== 'function' && typeof v !== 'symbol';
  });
  if (keys.length === 0) {
    yield '{}';
    return;
  }
  yield '{\n';
  for (let i = 0; i < keys.length; i++) {
    const key = keys[i] as string;
    yield `${inner}${JSON.stringify(key)}: `;
    yield* pieces(value.fields[key], inner);
    yield i < keys.length - 1 ? ',\n' : '\n';
  }
  yield `${indent}}`;
}

/** Plain elements of a streamed array stringified together: few calls, a few KB of text. */
const BATCH = 32;

/**
 * `items` as JSON.stringify(…, null, 2) prints them as elements of an array at `indent` (two
 * spaces a level): each on its own line(s), at `indent` plus two spaces, separated by `,\n`.
 * The items are wrapped in one array per indent level and stringified, and the wrapping text is
 * cut off, so JSON.stringify indents every line itself.
 */
function stringifyElementsAt(items: unknown[], indent: string): string {
  const depth = indent.length / 2;
  let wrapped: unknown = items;
  let prefix = '[\n';
  let suffix = '\n]';
  for (let k = 1; k <= depth; k++) {
    wrapped = [wrapped];
    prefix += `${'  '.repeat(k)}[\n`;
    suffix = `\n${'  '.repeat(k)}]${suffix}`;
  }
  const text = JSON.stringify(wrapped, null, 2);
  return text.slice(prefix.length, text.length - suffix.length);
}

/**
 * JSON.stringify(value, null, 2) as it reads nested at `indent`: every line after the first gets
 * the indent too. Safe because JSON text has line feeds only between tokens (strings escape them).
 */
function stringifyAt(value: unknown, indent: string): string {
  const text = JSON.stringify(value, null, 2) as string | undefined;
  // Top-level undefined (only reachable when a caller passes it): JSON.stringify gives undefined.
  if (text === undefined) return 'null';
  return indent === '' || !text.includes('\n') ? text : text.replaceAll('\n', `\n${indent}`);
}
