/** utf8Chunks (cli/read-input.ts) decodes exactly as TextDecoder does, however the bytes are split. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { utf8Chunks } from '../../src/cli/read-input.js';

function viaTextDecoder(pieces: Uint8Array[]): string {
  const d = new TextDecoder('utf-8', { fatal: false });
  return pieces.map((p) => d.decode(p, { stream: true })).join('') + d.decode();
}

function viaUtf8Chunks(pieces: Uint8Array[]): string {
  const d = utf8Chunks();
  return pieces.map((p) => d.write(p)).join('') + d.end();
}

function split(bytes: Uint8Array, cuts: number[]): Uint8Array[] {
  const at = [...new Set(cuts.map((c) => c % (bytes.length + 1)))].sort((a, b) => a - b);
  const pieces: Uint8Array[] = [];
  let from = 0;
  for (const c of at) {
    pieces.push(bytes.subarray(from, c));
    from = c;
  }
  pieces.push(bytes.subarray(from));
  return pieces;
}

// Bytes biased towards UTF-8 structure: lead bytes, continuation bytes, ASCII, a BOM, overlongs, surrogates.
const interesting = fc.oneof(
  fc.integer({ min: 0, max: 255 }),
  fc.constantFrom(0xef, 0xbb, 0xbf, 0xc0, 0xc1, 0xe0, 0xed, 0xa0, 0xf0, 0xf4, 0xf5, 0x80, 0x8f, 0x90, 0xbf, 0xff, 0x41),
);

test('same text as TextDecoder on random bytes cut at random places (BOM, invalid and split sequences)', () => {
  fc.assert(
    fc.property(fc.boolean(), fc.array(interesting, { maxLength: 64 }), fc.array(fc.nat(80), { maxLength: 6 }), (bom, body, cuts) => {
      const bytes = Uint8Array.from([...(bom ? [0xef, 0xbb, 0xbf] : []), ...body]);
      const pieces = split(bytes, cuts);
      assert.equal(viaUtf8Chunks(pieces), viaTextDecoder(pieces));
    }),
    { numRuns: 5000, seed: 2026 },
  );
});

test('a leading byte-order mark is dropped, also when it arrives a byte at a time; a later U+FEFF is kept', () => {
  const bytes = Buffer.from('\ufeff#0  f () at a.c:1\n\ufeffx', 'utf8');
  const pieces = Array.from(bytes, (b) => Uint8Array.of(b));
  assert.equal(viaUtf8Chunks(pieces), '#0  f () at a.c:1\n\ufeffx');
  assert.equal(viaUtf8Chunks([bytes]), viaTextDecoder([bytes]));
});
