/** `waitgraph parse` through the real bin, as a user runs it: output, and one-line errors with exit 2. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWaitgraph } from '../../helpers/run-cli.js';
import { FOUNDING, FOUNDING_GOLDEN } from '../../parse/fixtures.js';

const dir = mkdtempSync(join(tmpdir(), 'wg-parse-cli-'));

test('cli parse: the founding report prints its golden JSON, exit 0', () => {
  const result = runWaitgraph(['parse', FOUNDING]);
  assert.equal(result.code, 0, result.stderr);
  assert.equal(result.stdout, readFileSync(FOUNDING_GOLDEN, 'utf8'));
  assert.equal(result.stderr, '');
});

test('cli parse: standard input (`-` and no argument) gives the same JSON', () => {
  const input = readFileSync(FOUNDING, 'utf8');
  const a = runWaitgraph(['parse', '-'], { input });
  const b = runWaitgraph(['parse'], { input });
  assert.equal(a.code, 0, a.stderr);
  assert.equal(a.stdout, readFileSync(FOUNDING_GOLDEN, 'utf8'));
  assert.equal(b.stdout, a.stdout);
});

function assertOneLineError(result: { code: number; stdout: string; stderr: string }, pattern: RegExp): void {
  assert.equal(result.code, 2, `exit code; stderr: ${result.stderr}`);
  assert.equal(result.stdout, '');
  const lines = result.stderr.split('\n').filter((l) => l !== '');
  assert.equal(lines.length, 1, `exactly one stderr line, got: ${result.stderr}`);
  assert.match(lines[0]!, /^waitgraph: /);
  assert.match(lines[0]!, pattern);
}

test('cli parse: bad input gives one clear stderr line and exit 2', () => {
  const empty = join(dir, 'empty.txt');
  writeFileSync(empty, '');
  const binary = join(dir, 'core.bin');
  writeFileSync(binary, Buffer.from([0x7f, 0x45, 0x4c, 0x46, 2, 1, 1, 0, 0, 0, 0, 0, 0, 0, 0, 0, 3, 0, 0x3e, 0]));
  const prose = join(dir, 'prose.txt');
  writeFileSync(prose, 'The program hangs when I click save.\nNo backtrace, sorry.\n');
  assertOneLineError(runWaitgraph(['parse', empty]), /empty/);
  assertOneLineError(runWaitgraph(['parse', binary]), /binary/);
  assertOneLineError(runWaitgraph(['parse', join(dir, 'missing.txt')]), /no such file: .*missing\.txt/);
  assertOneLineError(runWaitgraph(['parse', dir]), /directory/);
  assertOneLineError(runWaitgraph(['parse', prose]), /no gdb backtrace/);
  assertOneLineError(runWaitgraph(['parse'], { input: '' }), /empty/);
});
