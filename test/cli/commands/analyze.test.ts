import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runWaitgraph } from '../../helpers/run-cli.js';
import { FOUNDING, PACKS, ROOT } from '../../helpers/paths.js';

const EXAMPLES = join(ROOT, 'test', 'rules', 'examples');

test('waitgraph FILE: the founding report is a deadlock, exit 1, verdict on the first line', () => {
  const r = runWaitgraph([FOUNDING]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stderr, '');
  assert.equal(r.stdout.split('\n')[0], 'Deadlock: Julia GC stop-the-world ↔ LLVM ORC lazy compile (threads 7, 8, 9)');
  assert.match(r.stdout, /5 threads parked at a GC safepoint: 1, 3, 4, 5, 6/);
});

test('analyze is the default command; stdin is read when no file or - is given', () => {
  const text = readFileSync(FOUNDING, 'utf8');
  const explicit = runWaitgraph(['analyze', FOUNDING]);
  const stdin = runWaitgraph([], { input: text });
  const dash = runWaitgraph(['analyze', '-'], { input: text });
  assert.equal(explicit.code, 1);
  assert.equal(stdin.code, 1);
  assert.equal(dash.code, 1);
  assert.equal(stdin.stdout, explicit.stdout);
  assert.equal(dash.stdout, explicit.stdout);
});

test('--format json: the issue fields, thread numbers as numbers, deterministic', () => {
  const r = runWaitgraph(['--format', 'json', FOUNDING]);
  assert.equal(r.code, 1);
  const report = JSON.parse(r.stdout);
  assert.equal(report.schemaVersion, 1);
  assert.equal(report.verdict, 'deadlock');
  assert.equal(report.deadlocks.length, 1);
  const d = report.deadlocks[0];
  assert.deepEqual(d.threads, [7, 8, 9]);
  assert.deepEqual(d.resources, ['julia:gc-stop', 'orc:lazy-compile']);
  assert.equal(d.evidence, 'inferred');
  assert.deepEqual(d.blockedBehind, [1, 3, 4, 5, 6]);
  for (const k of ['title', 'signature', 'explanation', 'fix']) assert.equal(typeof d[k], 'string', k);
  assert.ok(Array.isArray(d.rules) && d.rules.length > 0);
  const t9 = report.threads.find((t: { id: number }) => t.id === 9);
  assert.deepEqual(
    { lwp: t9.lwp, name: t9.name, state: t9.state, waitsFor: t9.waitsFor, holds: t9.holds },
    { lwp: 45438, name: 'julia', state: 'gc-initiator', waitsFor: ['thread:7', 'thread:8'], holds: ['julia:gc-stop', 'orc:lazy-compile'] },
  );
  assert.deepEqual(report.stats, { lines: report.stats.lines, backtraces: 13, threads: 12, frames: report.stats.frames, ignoredLines: report.stats.ignoredLines });
  assert.deepEqual(report.unresolved, []);
  assert.equal(runWaitgraph(['--format', 'json', FOUNDING]).stdout, r.stdout, 'same bytes on a second run');
});

test('a hang exits 1; a dump with nothing wrong exits 0', () => {
  const text = readFileSync(FOUNDING, 'utf8');
  const hang = runWaitgraph(['-f', 'json'], { input: text.slice(0, text.indexOf('(gdb) bt')) });
  assert.equal(hang.code, 1);
  const report = JSON.parse(hang.stdout);
  assert.equal(report.verdict, 'hang');
  assert.deepEqual(report.hung, [7, 8]);
  const ok = runWaitgraph([join(PACKS, 'julia', 'julia.sched.idle.txt')]);
  assert.equal(ok.code, 0, ok.stdout);
  assert.match(ok.stdout, /^No deadlock or hang found/);
});

test('--rules bad.yaml: exit 2 and one stderr line naming the file and the field', () => {
  const r = runWaitgraph(['--rules', join(EXAMPLES, 'myapp.typo.yaml'), FOUNDING]);
  assert.equal(r.code, 2);
  assert.equal(r.stdout, '');
  const lines = r.stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, r.stderr);
  assert.match(lines[0] ?? '', /^waitgraph: .*myapp\.typo\.yaml:6: match\.frames\[0\]\.funtion: unknown field "funtion"$/);
});

test('--rules FILE (repeatable) adds user rules that change the result', () => {
  const spin = join(EXAMPLES, 'spin.txt');
  assert.equal(runWaitgraph([spin]).code, 0);
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-cli-rules-'));
  const other = join(dir, 'myapp.other.yaml');
  writeFileSync(
    other,
    'id: myapp.other\npack: myapp\nsummary: Never fires here.\nmatch:\n  frames:\n    - function: no_such_function\neffect:\n  state: other\n  evidence: proven\nexplanation: x\nfix: y\nsources: [z]\n',
  );
  const r = runWaitgraph(['--rules', join(EXAMPLES, 'myapp.spinlock.wait.yaml'), '--rules', other, spin]);
  assert.equal(r.code, 1, r.stderr);
  assert.match(r.stdout, /ask gdb: print \(\(struct myapp_spinlock \*\) 0x55f1c2a04060\)->owner_tid/);
});

test('usage and input errors exit 2 with one line', () => {
  for (const args of [['--format', 'yaml', FOUNDING], ['--no-such-flag'], [join(ROOT, 'no-such-file.txt')]]) {
    const r = runWaitgraph(args);
    assert.equal(r.code, 2, args.join(' '));
    assert.equal(r.stdout, '');
    assert.ok(r.stderr.trim().length > 0);
  }
  const empty = runWaitgraph([], { input: 'no backtraces here\njust prose\n' });
  assert.equal(empty.code, 2);
  assert.match(empty.stderr, /no gdb backtrace found in standard input/);
});

test('several files: one report each, exit 1 when any has a finding', () => {
  const r = runWaitgraph([join(PACKS, 'julia', 'julia.sched.idle.txt'), FOUNDING]);
  assert.equal(r.code, 1);
  assert.equal((r.stdout.match(/^== /gm) ?? []).length, 2);
  const j = runWaitgraph(['-f', 'json', join(PACKS, 'julia', 'julia.sched.idle.txt'), FOUNDING]);
  const list = JSON.parse(j.stdout);
  assert.deepEqual(list.map((x: { report: { verdict: string } }) => x.report.verdict), ['ok', 'deadlock']);
});
