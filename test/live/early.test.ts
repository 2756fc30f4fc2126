/**
 * The early gdb start (live/early.ts): only a plain, valid `attach PID` line starts gdb before
 * the CLI's modules load; everything else leaves it to the command. And the line tap that lets
 * the backtraces be parsed while gdb prints them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { EARLY_FORMATS, claimEarlyAttach, earlyPlan, releaseEarlyAttach, startEarly } from '../../src/live/early.js';
import { LineTap } from '../../src/live/investigate.js';
import { FORMATS } from '../../src/report/index.js';
import { LIVE_TEST_TIMEOUT_MS, liveSkipReason, traceState, withProgram } from './harness.js';

const skip = await liveSkipReason();

test('the early start knows every report format', () => {
  assert.deepEqual([...EARLY_FORMATS].sort(), [...FORMATS].sort());
});

const pid = (n: number) => ({ kind: 'pid', pid: n });

test('plain attach and core lines start gdb early, with the target and the step limit', () => {
  assert.deepEqual(earlyPlan(['attach', '4242']), { target: pid(4242), commandTimeoutMs: 120_000 });
  assert.deepEqual(earlyPlan(['attach', '4242', '--format', 'json']), { target: pid(4242), commandTimeoutMs: 120_000 });
  assert.deepEqual(earlyPlan(['attach', '--format=sarif', '4242']), { target: pid(4242), commandTimeoutMs: 120_000 });
  assert.deepEqual(earlyPlan(['attach', '-f', 'markdown', '4242', '--timeout', '7']), { target: pid(4242), commandTimeoutMs: 7_000 });
  assert.deepEqual(earlyPlan(['attach', '-fjson', '4242', '--timeout=30']), { target: pid(4242), commandTimeoutMs: 30_000 });
  assert.deepEqual(earlyPlan(['attach', '4242', '--save-dump', 'out.txt']), { target: pid(4242), commandTimeoutMs: 120_000 });
  // --rules takes one value and repeats (as in analyze), so the pid after it is the pid.
  assert.deepEqual(earlyPlan(['attach', '4242', '--rules', 'a.yaml', '--rules', 'b.yaml', '--format', 'text']), { target: pid(4242), commandTimeoutMs: 120_000 });
  assert.deepEqual(earlyPlan(['attach', '--rules', 'a.yaml', '4242']), { target: pid(4242), commandTimeoutMs: 120_000 });
  assert.deepEqual(earlyPlan(['attach', '--rules=a.yaml', '4242', '--disable', 'rust']), { target: pid(4242), commandTimeoutMs: 120_000 });
  // attach --samples [N] --interval S --owners last|each (snapshots): gdb starts early too.
  assert.deepEqual(earlyPlan(['attach', '4242', '--samples']), { target: pid(4242), commandTimeoutMs: 120_000 });
  assert.deepEqual(earlyPlan(['attach', '4242', '--samples', '5', '--interval', '0.5', '--owners', 'each']), { target: pid(4242), commandTimeoutMs: 120_000 });
  assert.deepEqual(earlyPlan(['attach', '--samples=3', '4242', '--interval=2']), { target: pid(4242), commandTimeoutMs: 120_000 });
  assert.deepEqual(earlyPlan(['core', 'hung.4242']), { target: { kind: 'core', core: 'hung.4242', exe: null }, commandTimeoutMs: 120_000 });
  assert.deepEqual(earlyPlan(['core', '--exe', './server', 'hung.4242', '-f', 'json']), { target: { kind: 'core', core: 'hung.4242', exe: './server' }, commandTimeoutMs: 120_000 });
  assert.deepEqual(earlyPlan(['core', 'hung.4242', '--exe=./server', '--timeout', '9']), { target: { kind: 'core', core: 'hung.4242', exe: './server' }, commandTimeoutMs: 9_000 });
});

test('anything else is left to the command (no gdb before commander has read argv)', () => {
  const refused: string[][] = [
    [],
    ['4242'],
    ['analyze', 'attach', '4242'],
    ['attach'],
    ['attach', '4242', '--help'],
    ['attach', '-h', '4242'],
    ['attach', '4242', '-V'],
    ['attach', '4242', '5'],
    ['attach', '4242', '--format', 'yaml'],
    ['attach', '4242', '--format'],
    ['attach', '4242', '--timeout', '0'],
    ['attach', '4242', '--timeout', '1.5'],
    // commander reads the word after a bare --samples as its number: no pid is left.
    ['attach', '--samples', '4242'],
    ['attach', '4242', '--samples', '0'],
    ['attach', '4242', '--interval', 'soon'],
    ['attach', '4242', '--owners', 'first'],
    ['core', 'hung.4242', '--samples', '3'],
    ['attach', '4242', '--timeout', '123456'],
    ['attach', '4242', '--bogus'],
    ['attach', '4242', '--'],
    ['attach', '4242', '--rules', 'a.yaml', 'b.yaml'], // b.yaml is a second positional
    ['attach', '4242', '--rules'],
    ['attach', '0x10'],
    ['attach', '-1'],
    ['attach', '0'],
    ['attach', '99999999999'],
    ['attach', '4242', '--save-dump'],
    ['attach', '4242', '--exe', 'x'],
    ['core'],
    ['core', '--exe'],
    ['core', 'a.core', 'b.core'],
    ['core', 'a.core', '--exe'],
    ['core', 'a.core', '--help'],
  ];
  for (const argv of refused) assert.equal(earlyPlan(argv), null, argv.join(' '));
});

test('the line tap holds lines until a consumer connects, then passes every line on in order', () => {
  const tap = new LineTap();
  tap.line('a');
  tap.line('');
  const seen: string[] = [];
  tap.connect((l) => seen.push(l));
  tap.line('b');
  assert.deepEqual(seen, ['a', '', 'b']);
  assert.equal(tap.failed, null);
});

test('a consumer that throws is disconnected and the failure kept (the caller parses the whole text)', () => {
  const tap = new LineTap();
  const seen: string[] = [];
  tap.connect((l) => {
    if (l === 'bad') throw new Error('boom');
    seen.push(l);
  });
  tap.line('ok');
  tap.line('bad');
  tap.line('later');
  assert.deepEqual(seen, ['ok']);
  assert.ok(tap.failed instanceof Error);
});

test('an early gdb nobody claims is told to quit: the program is detached, not left stopped', { skip: skip ?? false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
  await withProgram('healthy-sleepers', async (p) => {
    startEarly(['attach', String(p.pid)], { ...process.env, WAITGRAPH_GDB: 'gdb' }, process.cwd());
    const started = claimEarlyAttach();
    assert.ok(started, 'gdb started early');
    assert.equal(claimEarlyAttach(), null, 'claimed once');
    // Hand it back the way main.ts finds it when the command failed before running.
    const bt = await started.bt;
    assert.match(bt.console, /^Thread \d/m);
    await started.session.close();
    assert.equal(traceState(p.pid)?.tracerPid, 0);
    // And through releaseEarlyAttach, without waiting for the backtraces.
    startEarly(['attach', String(p.pid)], process.env, process.cwd());
    await releaseEarlyAttach();
    assert.equal(claimEarlyAttach(), null);
    const after = traceState(p.pid);
    assert.equal(after?.tracerPid, 0, 'no tracer after release');
    assert.ok(after && !['t', 'T'].includes(after.state), `not stopped (state ${after?.state})`);
  });
});

test('no early gdb for a target that fails its checks (the command reports it)', () => {
  startEarly(['attach', '4194303'], process.env, process.cwd());
  assert.equal(claimEarlyAttach(), null);
  startEarly(['core', 'no-such.core'], process.env, process.cwd());
  assert.equal(claimEarlyAttach(), null);
  startEarly(['core', 'package.json'], process.env, process.cwd());
  assert.equal(claimEarlyAttach(), null);
});
