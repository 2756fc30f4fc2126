import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { looksBinary, readInputChunks } from '../../src/cli/read-input.js';
import type { CliIO } from '../../src/cli/io.js';
import { InputError } from '../../src/errors.js';

function ioWith(stdin: AsyncIterable<string | Buffer>, cwd = process.cwd()): CliIO {
  return { out: () => {}, err: () => {}, stdin, stdoutIsTTY: false, stderrIsTTY: false, env: {}, cwd };
}

async function collect(chunks: AsyncIterable<string>): Promise<string> {
  let text = '';
  for await (const c of chunks) text += c;
  return text;
}

async function* from(...parts: Buffer[]): AsyncGenerator<Buffer> {
  for (const p of parts) yield p;
}

test('read-input: UTF-8 split across chunks decodes whole; invalid bytes become U+FFFD', async () => {
  const bytes = Buffer.from('Thread 1 (Thread 0x1 (LWP 2) "ü€"):\n', 'utf8');
  const at = bytes.indexOf(0xe2) + 1; // inside the euro sign
  const text = await collect(readInputChunks('-', ioWith(from(bytes.subarray(0, at), bytes.subarray(at), Buffer.from([0xff, 0x0a])))));
  assert.equal(text, 'Thread 1 (Thread 0x1 (LWP 2) "ü€"):\n\uFFFD\n');
});

test('read-input: a file is read whole, missing path / directory / empty / binary throw InputError', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-read-'));
  writeFileSync(join(dir, 'a.txt'), '#0  main () at a.c:1\n'.repeat(1000));
  writeFileSync(join(dir, 'empty.txt'), '');
  writeFileSync(join(dir, 'bin.dat'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 1]));
  const io = ioWith(from(), dir);
  assert.equal((await collect(readInputChunks('a.txt', io))).length, 21 * 1000);
  assert.throws(() => readInputChunks('nope.txt', io), (e: unknown) => e instanceof InputError && /no such file: nope\.txt/.test(e.message));
  assert.throws(() => readInputChunks('.', io), (e: unknown) => e instanceof InputError && /directory/.test(e.message));
  await assert.rejects(collect(readInputChunks('empty.txt', io)), (e: unknown) => e instanceof InputError && /empty/.test(e.message));
  await assert.rejects(collect(readInputChunks('bin.dat', io)), (e: unknown) => e instanceof InputError && /binary/.test(e.message));
  await assert.rejects(collect(readInputChunks('-', ioWith(from()))), InputError);
});

test('read-input: looksBinary accepts colour escapes and tabs, rejects NUL and control noise', () => {
  assert.equal(looksBinary(Buffer.from('\x1b[33mmain\x1b[m\tx\r\n')), false);
  assert.equal(looksBinary(Buffer.from('abc\0def')), true);
  assert.equal(looksBinary(Buffer.from([1, 2, 3, 4, 5, 65, 66])), true);
});

test('read-input: looksBinary is the byte-by-byte rule (NUL, or more than a tenth control bytes other than BS, TAB, LF, VT, FF, CR, ESC)', () => {
  const reference = (bytes: Uint8Array): boolean => {
    let control = 0;
    for (const b of bytes) {
      if (b === 0) return true;
      if (b < 0x20 && ![0x08, 0x09, 0x0a, 0x0b, 0x0c, 0x0d, 0x1b].includes(b)) control++;
    }
    return bytes.length > 0 && control * 10 > bytes.length;
  };
  const byte = fc.oneof(fc.integer({ min: 0, max: 0x1f }), fc.integer({ min: 0, max: 255 }), fc.constantFrom(0x41, 0x20, 0x0a));
  fc.assert(
    fc.property(fc.uint8Array({ maxLength: 64 }), fc.array(byte, { maxLength: 64 }), fc.nat(8), (a, b, offset) => {
      const whole = new Uint8Array([...a, ...b]);
      // A view into a larger buffer, as decodeChecked passes (subarray of the head).
      const view = whole.subarray(Math.min(offset, whole.length));
      assert.equal(looksBinary(view), reference(view));
      assert.equal(looksBinary(whole), reference(whole));
    }),
    { numRuns: 3000 },
  );
});
