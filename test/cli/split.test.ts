/**
 * The CLI's split of a big file between two threads (cli/early-split.ts, analyze/parallel.ts):
 * which command lines start a worker, where the seam falls, and — through the real
 * bin/waitgraph.js with its real worker — the same report with the split as without it
 * (WAITGRAPH_WORKERS=0), for a clean seam and for one the main thread must parse past itself.
 * WAITGRAPH_SPLIT_MIN_BYTES=0 lets a few-MB dump split; WAITGRAPH_SPLIT_TRACE=1 says how it went.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findSeam, splitFile, SPLIT_MIN_BYTES } from '../../src/cli/early-split.js';
import { isRecordSeamLine } from '../../src/parse/seam.js';
import { renderDump } from '../bench/generate.js';
import { runWaitgraph } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'waitgraph-split-'));
test.after(() => rmSync(dir, { recursive: true, force: true }));

// ~3 KB a thread: a 4.5 MB dump.
const generated = renderDump({ threads: 1500, seed: 7 }).text;
const DUMP = join(dir, 'dump.txt');
writeFileSync(DUMP, generated);

const SPLIT = { WAITGRAPH_WORKERS: '1', WAITGRAPH_SPLIT_MIN_BYTES: '0', WAITGRAPH_SPLIT_TRACE: '1' };
const ONE_THREAD = { WAITGRAPH_WORKERS: '0', WAITGRAPH_SPLIT_MIN_BYTES: '0', WAITGRAPH_SPLIT_TRACE: '1' };

test('only a plain analyze of one file with a frameless format starts a worker', () => {
  for (const argv of [['d.txt'], ['analyze', 'd.txt'], ['d.txt', '--format', 'json'], ['-f', 'sarif', 'd.txt'], ['d.txt', '--format=dot', '--no-color'], ['-fjson', 'd.txt']]) {
    assert.equal(splitFile(argv), 'd.txt', argv.join(' '));
  }
  for (const argv of [
    [],
    ['-'],
    ['a.txt', 'b.txt'],
    ['d.txt', '--format', 'markdown'],
    ['d.txt', '--group', 'exact'],
    ['d.txt', '--rules', 'r.yaml'],
    ['d.txt', '--format'],
    ['d.txt', '--format', 'nope'],
    ['parse', 'd.txt'],
    ['check', 'r.yaml'],
    ['d.txt', '--help'],
    ['--', 'd.txt'],
  ]) {
    assert.equal(splitFile(argv), null, argv.join(' '));
  }
});

test('the seam is a `Thread N (` line near the middle of a big enough file', () => {
  const seam = findSeam(DUMP, 0);
  assert.ok(seam !== null);
  const bytes = readFileSync(DUMP);
  assert.equal(bytes[seam.at - 1], 10, 'just after a line end');
  assert.equal(seam.line, bytes.toString('utf8', seam.at, bytes.indexOf(10, seam.at)));
  assert.ok(isRecordSeamLine(seam.line), seam.line);
  assert.ok(Math.abs(seam.at - bytes.length / 2) < 64 * 1024, `${seam.at} of ${bytes.length}`);
  assert.equal(findSeam(DUMP, bytes.length + 1), null, 'below the size limit: no seam');
  assert.ok(SPLIT_MIN_BYTES > bytes.length, 'the default limit keeps this dump on one thread');
});

test('the CLI reports a split dump exactly as without the worker (JSON, text, SARIF)', () => {
  for (const format of ['json', 'text', 'sarif']) {
    const one = runWaitgraph([DUMP, '--format', format], { env: ONE_THREAD });
    const two = runWaitgraph([DUMP, '--format', format], { env: SPLIT });
    assert.equal(one.stderr, '', `${format}: WAITGRAPH_WORKERS=0 starts no worker`);
    assert.match(two.stderr, /^waitgraph: split at byte \d+: appended\n$/, `${format}: the worker's part is appended`);
    assert.equal(two.code, one.code, `${format}: exit code`);
    assert.ok(one.stdout.length > 1000);
    assert.equal(two.stdout, one.stdout, `${format}: same report`);
  }
  // Markdown prints stacks (frames kept): never split.
  assert.equal(runWaitgraph([DUMP, '--format', 'markdown'], { env: SPLIT }).stderr, '');
  // Below the size limit (the default one): no worker.
  assert.equal(runWaitgraph([DUMP, '--format', 'json'], { env: { WAITGRAPH_WORKERS: '1', WAITGRAPH_SPLIT_TRACE: '1' } }).stderr, '');
});

test('a dump whose seam is dirty (`info threads` rows held) is parsed past the seam here, same report', () => {
  const rows = '(gdb) info threads\n  Id   Target Id                                   Frame \n* 1    Thread 0x7f0000000001 (LWP 1001) "w1" 0x00007ffff7e3e3b7 in nanosleep () from /lib/x86_64-linux-gnu/libc.so.6\n';
  const path = join(dir, 'rows.txt');
  writeFileSync(path, rows + generated);
  const one = runWaitgraph([path, '--format', 'json'], { env: ONE_THREAD });
  const two = runWaitgraph([path, '--format', 'json'], { env: SPLIT });
  assert.match(two.stderr, /^waitgraph: split at byte \d+: parsed-here\n$/);
  assert.equal(two.code, one.code);
  assert.equal(two.stdout, one.stdout);
});
