/**
 * Issue 18's newcomer test: a macOS pack written by following only the README, kept outside src/
 * as a user pack (test/rules/examples/mymac: one rule for LLDB's `__psynch_mutexwait`, its fixture
 * and golden). `waitgraph rules test` passes it, and it changes the verdict of an LLDB `bt all`
 * (test/rules/examples/lldb-mutex.txt, the blocked thread of fpillet/NSLogger#222: a run-loop
 * thread beside it, as CocoaLumberjack/CocoaLumberjack#1199 shows one, would wait on the outside
 * world and so could still release the mutex, which is no hang). The built-in macos pack reads the same wait, so the
 * user pack's effect is shown with that pack turned off (`--disable macos`).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runWaitgraph } from '../helpers/run-cli.js';

const PACK = 'test/rules/examples/mymac';
const DUMP = 'test/rules/examples/lldb-mutex.txt';

test('waitgraph rules test passes the newcomer pack on its own fixture', () => {
  const r = runWaitgraph(['rules', 'test', PACK]);
  assert.equal(r.code, 0, r.stdout + r.stderr);
  assert.match(r.stdout, /^ok +mymac\.psynch\.mutex-wait +1 hit, 1 near miss/m);
  assert.match(r.stdout, /1 rule: 1 passed, 0 failed/);
});

test('the newcomer pack turns the LLDB dump from ok into a hang (built-in macos pack off)', () => {
  const without = runWaitgraph(['--disable', 'macos', DUMP]);
  assert.equal(without.code, 0, without.stdout + without.stderr);
  assert.match(without.stdout, /^No deadlock or hang found/);
  const withPack = runWaitgraph(['--disable', 'macos', '--rules', PACK, DUMP]);
  assert.equal(withPack.code, 1, withPack.stdout + withPack.stderr);
  assert.match(withPack.stdout, /^Hang: every thread the dump shows is blocked with no time limit; thread 1 waits/);
  assert.match(withPack.stdout, /mymac-mutex:unknown/);
});

test('with the built-in macos pack the same dump is a hang on its own', () => {
  const r = runWaitgraph([DUMP]);
  assert.equal(r.code, 1, r.stdout + r.stderr);
  assert.match(r.stdout, /waits for a pthread mutex \(the frames do not show which\)/);
});
