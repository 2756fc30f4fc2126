/**
 * Reads the dump a command was given (a path, `-` or nothing for stdin) as a stream of decoded
 * text chunks, after checking that it is worth parsing: it exists, is a regular file, is not
 * binary and is not empty. Each failed check throws an InputError with one clear line.
 *
 * Decoding is streaming UTF-8 (utf8Chunks), so a character split across two chunks comes out
 * whole; invalid bytes become U+FFFD instead of throwing.
 */
// The callback API, not node:fs/promises: that module (and the readline it loads) is ~1.3 ms of
// every start (issue 18, figure 4) for the three calls below.
import { close, closeSync, open, openSync, read, readSync, statSync } from 'node:fs';
import { resolve } from 'node:path';
import { StringDecoder } from 'node:string_decoder';
import type { CliIO } from './io.js';
import { InputError, UsageError } from '../errors.js';
import { BIG_INPUT_BYTES, growHeapSlowly } from './heap-growth.js';

/** How many leading bytes the binary check looks at. */
export const SNIFF_BYTES = 8192;

/**
 * Big files are read in pieces of 256 KiB: large enough that the parser's per-chunk work does not
 * show (CPU on the 30 MB bench dump the same as with 1 MiB), small enough that each decoded piece
 * is an ordinary V8 string. A piece over ~1 MB decodes to an external string outside the heap,
 * which V8 frees only on a full GC: a 300 MB dump read in 1 MiB pieces peaked ~90 MB higher
 * (issue 7, figure 3).
 */
const READ_CHUNK_BYTES = 256 * 1024;

/**
 * True when `bytes` (the start of an input) looks binary: it holds a NUL byte (also what UTF-16
 * text looks like) or more than a tenth of it is control bytes that text does not contain.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  // Native scans, not a loop over the bytes: a start runs this once, on 8 KiB, before V8 has
  // compiled anything of it (~0.5 ms of the founding report's start; issue 18, figure 4).
  if (bytes.indexOf(0) >= 0) return true;
  const text = Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
  const control = text.match(CONTROL_BYTES)?.length ?? 0;
  return bytes.length > 0 && control * 10 > bytes.length;
}

/** Control bytes that text does not hold: all below 0x20 but BS, TAB, LF, VT, FF, CR and ESC (colour codes), which terminal logs do. */
const CONTROL_BYTES = /[\x01-\x07\x0e-\x1a\x1c-\x1f]/g;

/**
 * Nothing piped in and no file named: with a terminal on stdin the command would wait silently
 * for a paste nobody is typing, so it says how to give a dump instead (a UsageError: one line,
 * exit 2). An explicit `-` still reads the terminal, for pasting.
 */
export function refuseSilentTerminal(fileGiven: boolean, io: CliIO): void {
  if (fileGiven || io.stdinIsTTY !== true) return;
  throw new UsageError("no dump given: pipe gdb into it (gdb -p PID -batch -ex 'thread apply all bt' | waitgraph), name a file, or give - to paste one (end with Ctrl-D); waitgraph --help lists the commands");
}

/** A short name for messages: the path as the user typed it, or `standard input`. */
function describe(pathOrDash: string | undefined): string {
  return pathOrDash === undefined || pathOrDash === '-' ? 'standard input' : pathOrDash;
}

/** Checks a path before opening it, so a missing file or a directory gives a clear message; says whether it is a regular file. */
function checkPath(path: string, cwd: string): { full: string; regular: boolean } {
  const full = resolve(cwd, path);
  let stats;
  try {
    stats = statSync(full);
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new InputError(`no such file: ${path}`);
    if (code === 'EACCES' || code === 'EPERM') throw new InputError(`cannot read ${path}: permission denied`);
    throw new InputError(`cannot read ${path}: ${(error as Error).message}`);
  }
  if (stats.isDirectory()) throw new InputError(`${path} is a directory, not a gdb dump`);
  return { full, regular: stats.isFile() };
}

function toBytes(chunk: string | Buffer | Uint8Array): Uint8Array {
  return typeof chunk === 'string' ? Buffer.from(chunk, 'utf8') : chunk;
}

/**
 * The input as decoded text chunks. Path checks happen when this is called; the binary and
 * empty-input checks happen on the first bytes read, before any text is yielded.
 */
export function readInputChunks(pathOrDash: string | undefined, io: CliIO): AsyncIterable<string> {
  const name = describe(pathOrDash);
  let source: AsyncIterable<string | Buffer | Uint8Array> | Iterable<Uint8Array>;
  if (pathOrDash === undefined || pathOrDash === '-') {
    source = io.stdin;
  } else {
    const { full, regular } = checkPath(pathOrDash, io.cwd);
    source = regular ? readRegularFileBytes(full) : readFileBytes(full);
  }
  return decodeChecked(source, name);
}

/**
 * A regular file's bytes as readFileBytes gives them, read synchronously: each piece is awaited
 * before the next is asked for either way, so nothing overlaps the reads, and the thread pool's
 * round trips (open, each read, close; the pool's threads started on the first) were ~1 ms of a
 * small dump's start (issue 18, figure 4). A pipe, FIFO or terminal named as a file keeps the
 * asynchronous reads: its reads wait for the writer.
 */
function* readRegularFileBytes(path: string): Generator<Uint8Array> {
  const fd = openSync(path, 'r');
  try {
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    for (;;) {
      const bytesRead = readSync(fd, buffer, 0, buffer.length, null);
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    closeSync(fd);
  }
}

/**
 * A file's bytes in pieces of READ_CHUNK_BYTES, read into one buffer that is reused: each piece
 * must be used up (decoded) before the next is asked for, which decodeChecked does. A read
 * stream allocates a new buffer per piece, garbage outside the heap until the GC gets to it (on
 * the 300 MB dump reusing one buffer lowered the peak RSS by ~25 MB; issue 7, figure 3).
 */
async function* readFileBytes(path: string): AsyncGenerator<Uint8Array> {
  const fd = await new Promise<number>((done, fail) => open(path, 'r', (error, opened) => (error ? fail(error) : done(opened))));
  try {
    const buffer = Buffer.allocUnsafe(READ_CHUNK_BYTES);
    for (;;) {
      const bytesRead = await new Promise<number>((done, fail) => read(fd, buffer, 0, buffer.length, null, (error, n) => (error ? fail(error) : done(n))));
      if (bytesRead === 0) return;
      yield buffer.subarray(0, bytesRead);
    }
  } finally {
    await new Promise<void>((done, fail) => close(fd, (error) => (error ? fail(error) : done())));
  }
}

/**
 * A streaming UTF-8 decoder that gives exactly what `new TextDecoder('utf-8')` with
 * `stream: true` gives (U+FFFD for invalid bytes, a leading byte-order mark dropped), at about half
 * its cost: Node's StringDecoder runs V8's own UTF-8 decoder, TextDecoder goes through ICU (30 MB:
 * ~24 ms against ~42–53 ms). test/cli/utf8-chunks.test.ts compares the two on random bytes split
 * at random places.
 */
export function utf8Chunks(): { write(bytes: Uint8Array): string; end(): string } {
  const decoder = new StringDecoder('utf8');
  let started = false;
  const firstText = (text: string): string => {
    if (started || text.length === 0) return text;
    started = true;
    return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  };
  return {
    write: (bytes) => firstText(decoder.write(bytes as Buffer)),
    end: () => firstText(decoder.end()),
  };
}

async function* decodeChecked(source: AsyncIterable<string | Buffer | Uint8Array> | Iterable<Uint8Array>, name: string): AsyncGenerator<string> {
  const decoder = utf8Chunks();
  const head: Uint8Array[] = [];
  let headBytes = 0;
  let checked = false;
  let total = 0;
  let big = false;
  try {
    for await (const raw of source) {
      const bytes = toBytes(raw);
      total += bytes.length;
      if (!big && total >= BIG_INPUT_BYTES) {
        big = true;
        growHeapSlowly();
      }
      if (!checked) {
        // A copy: a file's reader reuses its buffer for the next piece.
        head.push(Buffer.from(bytes));
        headBytes += bytes.length;
        if (headBytes < SNIFF_BYTES) continue;
        checkHead(Buffer.concat(head), name);
        checked = true;
        for (const piece of head) {
          const text = decoder.write(piece);
          if (text) yield text;
        }
        head.length = 0;
        continue;
      }
      const text = decoder.write(bytes);
      if (text) yield text;
    }
  } catch (error) {
    if (error instanceof InputError) throw error;
    throw new InputError(`cannot read ${name}: ${(error as Error).message}`);
  }
  if (!checked) {
    if (total === 0) throw new InputError(`empty input: ${name} holds no text`);
    checkHead(Buffer.concat(head), name);
    for (const piece of head) {
      const text = decoder.write(piece);
      if (text) yield text;
    }
  }
  const tail = decoder.end();
  if (tail) yield tail;
}

function checkHead(bytes: Uint8Array, name: string): void {
  if (looksBinary(bytes.subarray(0, SNIFF_BYTES))) {
    throw new InputError(`${name} looks like a binary file, not gdb text output`);
  }
}
