/**
 * Reading a dump file in pieces through one reused buffer (cli/read-input.ts): the text must be
 * exactly the file's, decoded, whatever falls on a piece boundary — a reused buffer that was still
 * referenced would repeat or garble earlier pieces.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { readInputChunks } from '../../src/cli/read-input.js';
import type { CliIO } from '../../src/cli/io.js';

async function* none(): AsyncGenerator<Buffer> {}

const io = (cwd: string): CliIO => ({ out: () => {}, err: () => {}, stdin: none(), stdoutIsTTY: false, stderrIsTTY: false, env: {}, cwd });

async function readAll(path: string, cwd: string): Promise<{ text: string; pieces: number }> {
  let text = '';
  let pieces = 0;
  for await (const c of readInputChunks(path, io(cwd))) {
    text += c;
    pieces++;
  }
  return { text, pieces };
}

test('read-input: a multi-megabyte file with multi-byte characters on every piece boundary reads back exactly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-read-file-'));
  // Lines of varying length, each numbered (so a repeated or stale piece shows) and holding 2-,
  // 3- and 4-byte characters at shifting offsets, so every boundary lands in one sooner or later.
  const lines: string[] = [];
  for (let i = 0; lines.length < 40_000; i++) lines.push(`#${i % 30}  0x${i.toString(16)} in f${i} (x=ü${'-'.repeat(i % 17)}€ 𝄞) at src/é${i}.c:${i}`);
  const body = Buffer.from(`${lines.join('\n')}\n`, 'utf8');
  // An invalid byte in the middle becomes U+FFFD, as the whole-file decode does.
  const bytes = Buffer.concat([body.subarray(0, 700_001), Buffer.from([0xff]), body.subarray(700_001)]);
  writeFileSync(join(dir, 'big.txt'), bytes);
  const { text, pieces } = await readAll('big.txt', dir);
  assert.ok(bytes.length > 2_500_000, `file size ${bytes.length}`);
  assert.ok(pieces > 4, `read in ${pieces} pieces`);
  assert.equal(text, readFileSync(join(dir, 'big.txt'), 'utf8'));
  assert.equal(text, new TextDecoder().decode(bytes));
});

test('read-input: files smaller than the binary sniff, and of exactly one piece, read back exactly', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-read-file-'));
  writeFileSync(join(dir, 'small.txt'), '#0  main () at a.c:1\n');
  assert.equal((await readAll('small.txt', dir)).text, '#0  main () at a.c:1\n');
  const line = '#0  main () at a.c:1 ü\n';
  const exact = Buffer.from(line.repeat(Math.ceil((256 * 1024) / Buffer.byteLength(line))), 'utf8').subarray(0, 256 * 1024);
  writeFileSync(join(dir, 'exact.txt'), exact);
  assert.equal((await readAll('exact.txt', dir)).text, new TextDecoder().decode(exact));
});
