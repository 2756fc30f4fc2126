/**
 * Text report with --group: threads with alike stacks are printed once under a counted title
 * (panicparse-style), and without --group the terminal report stays short (no stacks).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FOUNDING } from '../helpers/paths.js';
import { runWaitgraph } from '../helpers/run-cli.js';

function stacksSection(stdout: string): string {
  const start = stdout.indexOf('\nStacks (');
  assert.notEqual(start, -1, 'the report has a Stacks section');
  const end = stdout.indexOf('\nNotes:', start);
  return stdout.slice(start, end === -1 ? undefined : end);
}

for (const mode of ['functions', 'exact'] as const) {
  test(`--group ${mode}: the five parked threads share one printed stack`, () => {
    const r = runWaitgraph([FOUNDING, '--group', mode]);
    assert.equal(r.code, 1, r.stderr);
    const section = stacksSection(r.stdout);
    assert.match(section, /^ {2}5 threads parked at a GC safepoint: 1, 3, 4, 5, 6$/m);
    assert.match(section, /^ {2}3 threads \(idle GC worker\): 10, 11, 12$/m);
    // Shown once, although six threads (1, 3–6 parked) have that frame in the dump.
    assert.equal(section.match(/in jl_safepoint_wait_gc \(\)/g)?.length, 1);
    assert.equal(section.match(/jl_gc_mark_threadfun/g)?.length, 1);
    // The headerless `bt` merged into thread 9 is printed under thread 9's stack.
    assert.match(section, /headerless backtrace at line \d+, merged into this thread/);
    assert.match(section, /#161 0x[0-9a-f]+ in llvm::orc::MaterializationTask::run\(\)/);
  });
}

test('without --group the text report prints no stacks', () => {
  const r = runWaitgraph([FOUNDING]);
  assert.equal(r.code, 1, r.stderr);
  assert.doesNotMatch(r.stdout, /\nStacks \(/);
  assert.doesNotMatch(r.stdout, /#161 /);
});

test('--group takes only exact or functions (exit 2, one line)', () => {
  const r = runWaitgraph([FOUNDING, '--group', 'bogus']);
  assert.equal(r.code, 2);
  assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
  assert.match(r.stderr, /exact, functions/);
});
