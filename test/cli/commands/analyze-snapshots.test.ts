/**
 * `waitgraph analyze` over snapshots: --snapshots over files, recognition without it (one file or
 * several), the refusal of two processes (one line, exit 2), --interval, and the JSON report
 * against its schema.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWaitgraph } from '../../helpers/run-cli.js';
import { FIXTURES } from '../../helpers/paths.js';
import { reportSchemaErrors } from '../../report/validators.js';
import { savedSamples } from '../../../src/cli/commands/attach.js';
import { recogniseSnapshots, type ReadInput } from '../../../src/cli/snapshot-inputs.js';
import { analyzeText, createAnalyzer, parseDump } from '../../../src/analyze/index.js';

const ABBA = join(FIXTURES, 'live', 'abba.txt');
const ABC = join(FIXTURES, 'live', 'abc-cycle.txt');
const STUCK = join(FIXTURES, 'snapshots', 'abba-stuck.txt');
const MOVED = join(FIXTURES, 'snapshots', 'abba-moved.txt');

function withMovedCopy<T>(fn: (moved: string) => T): T {
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-snapshots-'));
  try {
    const moved = join(dir, 'abba-later.txt');
    writeFileSync(moved, readFileSync(ABBA, 'utf8').replace('0x0000556cc90522e8 in take_a_then_b (unused=0x0) at abba.c:17', '0x0000556cc90522f1 in take_a_then_b (unused=0x0) at abba.c:18'));
    return fn(moved);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

test('--snapshots over two dumps of different processes: one line on stderr, exit 2', () => {
  const r = runWaitgraph([ABBA, ABC, '--snapshots']);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /two different processes/);
});

test('--snapshots over one dump: a usage error, exit 2', () => {
  const r = runWaitgraph([ABBA, '--snapshots']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--snapshots needs two dumps/);
});

test('--snapshots over two files where a thread moved: ok, with the motion column naming it', () => {
  withMovedCopy((moved) => {
    const r = runWaitgraph([ABBA, moved, '--snapshots', '--interval', '1.5']);
    assert.equal(r.code, 0, r.stdout + r.stderr);
    assert.match(r.stdout, /^No deadlock or hang found/);
    assert.match(r.stdout, /Motion \(2 snapshots, 1\.5 s apart, threads matched by LWP\):/);
    assert.match(r.stdout, /thread 2 \(LWP 20594\)\s+moved\s+moved between snapshots 1 and 2/);
    assert.match(r.stdout, /thread 3 \(LWP 20595\)\s+stuck\s+stuck for 1\.5 s across 2 snapshots/);
    assert.match(r.stdout, /hang is withdrawn: Thread 2 \(LWP 20594\) moved/);
  });
});

test('without --snapshots, two files of one process are recognised as snapshots (a note says so), one report', () => {
  withMovedCopy((moved) => {
    const r = runWaitgraph([ABBA, moved, '--format', 'json']);
    assert.equal(r.code, 0, r.stderr);
    const report = JSON.parse(r.stdout);
    assert.equal(reportSchemaErrors(report), '');
    assert.equal(report.verdict, 'ok');
    assert.equal(report.snapshots.how, 'recognised');
    assert.equal(report.snapshots.count, 2);
    assert.equal(report.snapshots.threads['2'].motion, 'moved');
    assert.ok(report.notes.some((n: string) => /the same LWPs and pthread addresses/.test(n)));
  });
});

test('two files of different processes without --snapshots: two reports, as before', () => {
  const r = runWaitgraph([ABBA, ABC, '--format', 'json']);
  const list = JSON.parse(r.stdout);
  assert.ok(Array.isArray(list));
  assert.equal(list.length, 2);
  for (const entry of list) assert.equal(entry.report.snapshots, undefined);
});

test('one file of three snapshots where nothing moved: the hang holds, stuck in every snapshot; JSON valid', () => {
  const r = runWaitgraph([STUCK, '--format', 'json']);
  assert.equal(r.code, 1);
  const report = JSON.parse(r.stdout);
  assert.equal(reportSchemaErrors(report), '');
  assert.equal(report.verdict, 'hang');
  assert.deepEqual(Object.values(report.snapshots.threads).map((t) => (t as { motion: string }).motion), ['stuck', 'stuck', 'stuck']);
  assert.ok(report.candidateCycles.every((c: { stuckAcross?: number }) => c.stuckAcross === 3));
});

test('one file where a thread moved, from standard input: recognised, but kept as one dump with a note (stdin cannot be read again)', () => {
  const r = runWaitgraph(['-'], { input: readFileSync(MOVED, 'utf8') });
  assert.match(r.stdout.replace(/\s+/g, ' '), /read from standard input it is analysed as one dump/);
  const given = runWaitgraph(['-', '--snapshots'], { input: readFileSync(MOVED, 'utf8') });
  assert.equal(given.code, 0, given.stderr);
  assert.match(given.stdout, /thread 2 \(LWP 20594\)\s+moved/);
});

test('Markdown: a table of what moved', () => {
  const r = runWaitgraph([MOVED, '--format', 'markdown']);
  assert.match(r.stdout, /### What moved \(2 snapshots, threads matched by LWP\)/);
  assert.match(r.stdout, /\| thread 2 \(LWP 20594\) `abba-ab` \| moved \| moved between snapshots 1 and 2 \|/);
});

test('--interval must be seconds', () => {
  const r = runWaitgraph([STUCK, '--interval', 'soon']);
  assert.equal(r.code, 2);
  assert.match(r.stderr, /--interval takes seconds/);
});

test('what attach --save-dump writes for samples reads back as the same snapshots, with their times', () => {
  const abba = readFileSync(ABBA, 'utf8');
  const moved = abba.replace('abba.c:17', 'abba.c:18');
  const saved = savedSamples([{ text: abba, asked: [], at: 0 }, { text: abba, asked: [], at: 1.25 }, { text: moved, asked: [], at: 2.5 }], 20593);
  assert.match(saved, /^\[Inferior 1 \(process 20593\) detached\]\nwaitgraph: snapshot 2 of 3, 1\.250 s after the first$/m);
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-saved-'));
  try {
    const file = join(dir, 'saved.txt');
    writeFileSync(file, saved);
    const report = JSON.parse(runWaitgraph([file, '--format', 'json']).stdout);
    assert.equal(report.snapshots.how, 'given', 'the marker lines say these are snapshots');
    assert.equal(report.snapshots.count, 3);
    assert.equal(report.snapshots.interval, 1.25);
    assert.deepEqual(report.snapshots.threads['2'].movedBetween, [2, 3]);
    assert.equal(report.snapshots.threads['3'].stuckSeconds, 2.5);
    assert.equal(report.verdict, 'ok');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('recognised snapshots too big to hold with every frame are read as before, with a note saying --snapshots compares them', async () => {
  const text = readFileSync(MOVED, 'utf8');
  const session = createAnalyzer();
  const input = (): ReadInput => ({ shown: 'moved.txt', analysis: analyzeText(text, { keepFrames: false }), framesKept: false, path: MOVED });
  const reader = (maxFrames?: number) => ({ interval: null, analyze: (d: Parameters<typeof session.analyze>[0]) => session.analyze(d), withFrames: async () => parseDump(text), ...(maxFrames !== undefined ? { maxFrames } : {}) });
  const [small] = await recogniseSnapshots([input()], reader());
  assert.equal(small?.analysis.snapshots?.count, 2);
  const [big] = await recogniseSnapshots([input()], reader(10));
  assert.equal(big?.analysis.snapshots, undefined);
  assert.ok(big?.analysis.notes.some((n) => /read as before, not compared .*add --snapshots to compare them anyway/.test(n)));
});

test('the owner loop\'s answers appended to a dump are not a second snapshot: `thread apply N print` headers carry no frames', () => {
  // What `gdb -batch -x cmds.gdb >> dump.txt` appends when libc has no debug info: each answer
  // under the header of the thread it was printed in (LWPs of fixtures/live/abba.nodebug.txt).
  const answer = (n: number, pthread: string, lwp: number, name: string, owner: number, v: number) =>
    `(gdb) thread apply ${n} print *(pthread_mutex_t *) $rdi\n\nThread ${n} (Thread ${pthread} (LWP ${lwp}) "${name}"):\n` +
    `$${v} = {__data = {__lock = 2, __count = 0, __owner = ${owner}, __nusers = 1, __kind = 0, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\\002", '\\000' <repeats 38 times>, __align = 2}\n`;
  const dump = readFileSync(join(FIXTURES, 'live', 'abba.nodebug.txt'), 'utf8');
  // The second gdb's own lines come first: its attach messages and the stopped thread's frame.
  const attached = dump.split('\n').slice(0, 5).join('\n');
  const text = `${dump}${attached}\n${answer(2, '0x7f2411f276c0', 20594, 'abba-ab', 20595, 1)}${answer(3, '0x7f24117266c0', 20595, 'abba-ba', 20594, 2)}[Inferior 1 (process 20593) detached]\n`;
  // A file, not stdin: only a file is cut into snapshots without --snapshots.
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-answers-'));
  const file = join(dir, 'abba-answered.txt');
  writeFileSync(file, text);
  const r = runWaitgraph([file, '--format', 'json']);
  rmSync(dir, { recursive: true, force: true });
  assert.equal(r.code, 1, r.stdout + r.stderr);
  const report = JSON.parse(r.stdout);
  assert.equal(report.snapshots, undefined, 'one snapshot');
  assert.deepEqual(report.deadlocks.map((d: { threads: number[]; evidence: string }) => [[...d.threads].sort(), d.evidence]), [[[2, 3], 'proven']]);
});
