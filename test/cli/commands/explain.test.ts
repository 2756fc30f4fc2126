/** `waitgraph explain FILE --thread N` on the command line. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FOUNDING, PACKS } from '../../helpers/paths.js';
import { runWaitgraph } from '../../helpers/run-cli.js';

test('explain prints the thread, the rules that fired and the near misses with why; exit 0', () => {
  const r = runWaitgraph(['explain', join(PACKS, 'glibc', 'glibc.mutex.wait.txt'), '--thread', '5']);
  assert.equal(r.code, 0, r.stderr);
  assert.match(r.stdout, /^Thread 5 \(LWP 6170\) "ok-no-libc-symbols": waits for a pthread mutex/);
  assert.match(r.stdout, /^Fired \(1\):\n {2}glibc\.mutex\.wait-nodebug {2}at #1 pthread_mutex_lock$/m);
  assert.match(r.stdout, /^ {2}glibc\.mutex\.wait +0\/1 conditions; match\.anyOf\[0\]\.frames\[0\] \(function glob pthread_mutex_lock \| .*\(leading underscores ignored\)\): frame #1 pthread_mutex_lock has no argument mutex/m);
});

test('explain with --rules and --disable; an unknown thread or a missing --thread is exit 2', () => {
  const off = runWaitgraph(['explain', FOUNDING, '-t', '7', '--disable', 'orc.reenter-wait']);
  assert.match(off.stdout, /^Fired \(2\):\n.*\n {2}libstdcxx\.future\.get {9}at #2/m, 'without the ORC rule, the future rule fires');
  const none = runWaitgraph(['explain', FOUNDING, '-t', '99']);
  assert.equal(none.code, 2);
  assert.match(none.stderr, /^waitgraph: no thread 99 in .* \(threads: 1, 2, 3/);
  assert.equal(runWaitgraph(['explain', FOUNDING]).code, 2);
});
