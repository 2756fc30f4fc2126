import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { Chalk } from 'chalk';
import { analyzeText, createAnalyzer, analyze } from '../../src/analyze/index.js';
import { parseDump } from '../../src/parse/index.js';
import { renderText } from '../../src/report/text.js';
import type { Analysis } from '../../src/model/analysis.js';
import { FOUNDING } from '../helpers/paths.js';
import { PERMUTATION, readdress, removeThreads, renumber, withoutTrailingBt } from './founding-variants.js';

const text = readFileSync(FOUNDING, 'utf8');
const plain = new Chalk({ level: 0 });
const thread = (a: Analysis, key: string) => {
  const t = a.threads.find((x) => x.key === key);
  assert.ok(t, `thread ${key} missing`);
  return t;
};

test('founding report: one deadlock {7, 8, 9}: Julia GC stop-the-world ↔ LLVM ORC lazy compile, inferred', () => {
  const a = analyzeText(text);
  assert.equal(a.verdict, 'deadlock');
  assert.equal(a.deadlocks.length, 1);
  const d = a.deadlocks[0]!;
  assert.deepEqual(d.threads, ['7', '8', '9']);
  assert.deepEqual(d.resources, ['julia:gc-stop', 'orc:lazy-compile']);
  assert.equal(d.evidence, 'inferred');
  assert.match(d.title, /Julia GC stop-the-world ↔ LLVM ORC lazy compile/);
  assert.deepEqual(d.blockedBehind, ['1', '3', '4', '5', '6']);
  assert.match(d.signature, /^[0-9a-f]{12}$/);
  assert.ok(d.rules.includes('julia.gc.orc-lazy-compile'));
  for (const id of ['julia.gc.initiator', 'julia.thread.unsafe-blocked', 'orc.reenter-wait', 'orc.materializer']) assert.ok(d.rules.includes(id), id);
  // The cycle starts at the lowest thread and goes through the trampoline held by 9.
  assert.equal(d.cycle[0]?.from, '7');
  assert.equal(d.cycle[0]?.resource, 'orc:lazy-compile');
  assert.equal(d.cycle[0]?.to, '9');
  assert.equal(d.cycle[1]?.from, '9');
  assert.equal(d.cycle[1]?.wait.kind, 'waits-thread');
  // The fix: a GC-safe call into the lazily compiled code, GC-unsafe again inside the wrapper, and why.
  assert.match(d.fix, /GC-safe/);
  assert.match(d.fix, /gc_safe=true/);
  assert.match(d.fix, /re-enter GC-unsafe inside the wrapper/);
  assert.match(d.fix, /@cfunction/);
  assert.match(d.fix, /no longer hold up the collector/);
});

test('founding report: every thread has the state its frames say', () => {
  const a = analyzeText(text);
  for (const k of ['1', '3', '4', '5', '6']) {
    assert.equal(thread(a, k).state, 'gc-parked', k);
    assert.deepEqual(thread(a, k).waitsFor, ['julia:gc-stop']);
  }
  for (const k of ['10', '11', '12']) {
    assert.equal(thread(a, k).stateText, 'idle GC worker');
    assert.ok(thread(a, k).rules.includes('julia.gc.worker'));
  }
  assert.equal(thread(a, '2').stateText, 'Julia signal listener');
  assert.equal(thread(a, '9').state, 'gc-initiator');
  assert.deepEqual(thread(a, '9').holds.sort(), ['julia:gc-stop', 'orc:lazy-compile']);
  assert.deepEqual(thread(a, '9').merged.length, 1, 'the trailing (gdb) bt is merged into thread 9');
  assert.equal(thread(a, '9').acquireSite?.function, 'jl_gc_wait_for_the_world');
  assert.equal(thread(a, '9').acquireSite?.line, 241);
  for (const k of ['7', '8']) {
    assert.equal(thread(a, k).state, 'gc-unsafe');
    assert.match(thread(a, k).acquireSite?.function ?? '', /LocalTrampolinePool<.*>::reenter/);
  }
  assert.equal(a.threads.length, 12);
  assert.ok(a.notes.some((n) => /Thread 9/.test(n) && /header/.test(n)), 'a note says the headerless bt was merged');
  assert.equal(a.hung.length, 0);
});

test('founding report: the text report reads in the order a reader needs', () => {
  const out = renderText(analyzeText(text), { chalk: plain });
  const lines = out.split('\n');
  assert.match(lines[0] ?? '', /^Deadlock: Julia GC stop-the-world ↔ LLVM ORC lazy compile \(threads 7, 8, 9\)$/);
  assert.match(out, /Thread 9 \(LWP 45438\) waits for every GC-unsafe thread to reach a safepoint: Thread 7 \(LWP 45436\),\s+Thread 8 \(LWP 45437\)/);
  assert.match(out, /Thread 7 \(LWP 45436\) waits for the lazy compile of a JIT trampoline, held by Thread 9 \(LWP 45438\)/);
  assert.match(out, /at jl_gc_wait_for_the_world at \S+\/src\/gc\.c:241/);
  assert.match(out, /5 threads parked at a GC safepoint: 1, 3, 4, 5, 6/);
  assert.match(out, /3 threads \(idle GC worker\): 10, 11, 12/);
  assert.match(out, /thread 2: Julia signal listener/);
  const order = ['Cycle', 'Where each thread waits:', 'Why:', 'Fix:', 'Blocked behind the cycle', 'Other threads:', 'Notes:'].map((h) => out.indexOf(h));
  assert.deepEqual([...order].sort((x, y) => x - y), order, 'sections in reading order');
  assert.ok(order.every((i) => i >= 0));
});

test('without threads 7 and 8 there is no deadlock', () => {
  const a = analyzeText(removeThreads(text, [7, 8]));
  assert.equal(a.threads.some((t) => t.key === '7' || t.key === '8'), false);
  assert.equal(a.deadlocks.length, 0);
  assert.notEqual(a.verdict, 'deadlock');
});

test('without the trailing (gdb) bt nothing shows who compiles: a hang naming 7 and 8', () => {
  const a = analyzeText(withoutTrailingBt(text));
  assert.equal(a.verdict, 'hang');
  assert.equal(a.deadlocks.length, 0);
  assert.deepEqual(a.hung, ['7', '8']);
  assert.deepEqual(
    a.unresolved.map((u) => [u.thread, u.resource]),
    [['7', 'orc:lazy-compile'], ['8', 'orc:lazy-compile']],
  );
  assert.deepEqual(a.hangBlockedBehind, ['1', '3', '4', '5', '6', '9']);
  const out = renderText(a, { chalk: plain }).replace(/\n\s+/g, ' ');
  assert.match(out, /^Hang: threads 7, 8 /);
  assert.equal(a.verdictReasons[0]?.kind, 'no-releaser');
  assert.match(out, /Thread 7 \(LWP 45436\) waits for the lazy compile of a JIT trampoline; the text does not show who holds it/);
  assert.doesNotMatch(out, /no thread in the dump holds it/, 'said only when an owner LWP is known not to be a thread');
  // The compiler's frames would be in a stack the dump cut (thread 9's): the first candidate cycle is {7, 9}.
  assert.deepEqual(a.candidateCycles[0]?.threads, ['7', '9']);
  assert.ok(a.candidateCycles[0]?.gdbCommands.includes('set backtrace limit unlimited; thread apply 9 bt'));
});

test('renumbered and re-addressed copies get the same diagnosis with the new numbers and the same signature', () => {
  const base = analyzeText(text).deadlocks[0]!;
  const map = (keys: string[]) => keys.map((k) => String(PERMUTATION.get(Number(k)))).sort((x, y) => Number(x) - Number(y));
  for (const [name, variant, mapped] of [
    ['renumbered', renumber(text, PERMUTATION), true],
    ['re-addressed', readdress(text), false],
    ['both', readdress(renumber(text, PERMUTATION)), true],
  ] as const) {
    assert.notEqual(variant, text);
    const a = analyzeText(variant);
    assert.equal(a.verdict, 'deadlock', name);
    assert.equal(a.deadlocks.length, 1, name);
    const d = a.deadlocks[0]!;
    assert.deepEqual(d.threads, mapped ? map(base.threads) : base.threads, name);
    assert.deepEqual(d.blockedBehind, mapped ? map(base.blockedBehind) : base.blockedBehind, name);
    assert.equal(d.title, base.title, name);
    assert.equal(d.signature, base.signature, name);
    assert.deepEqual(d.resources, base.resources, name);
  }
  // Re-addressed: the LWPs in the report are the new ones.
  const re = analyzeText(readdress(text));
  assert.equal(re.threads.find((t) => t.key === '9')?.lwp, 45438 + 7777);
});

test('streaming (one backtrace at a time, frames dropped) gives the same verdict and cycle as analyze(dump)', () => {
  const whole = analyze(parseDump(text));
  const analyzer = createAnalyzer();
  const dump = parseDump(text);
  dump.backtraces.forEach((bt, i) => analyzer.addBacktrace(bt, i));
  const stripped = { ...dump, backtraces: dump.backtraces.map((b) => ({ ...b, frames: [] })) };
  const streamed = analyzer.finish(stripped);
  assert.equal(streamed.verdict, whole.verdict);
  assert.deepEqual(streamed.deadlocks.map((d) => [d.threads, d.signature, d.blockedBehind]), whole.deadlocks.map((d) => [d.threads, d.signature, d.blockedBehind]));
  assert.deepEqual(streamed.threads.map((t) => [t.key, t.state, t.rules]), whole.threads.map((t) => [t.key, t.state, t.rules]));
});

test('colour is applied once, deliberately: level 1 colours the verdict, level 0 prints none', () => {
  const a = analyzeText(text);
  const coloured = renderText(a, { chalk: new Chalk({ level: 1 }) });
  assert.match(coloured.split('\n')[0] ?? '', /\u001b\[31m.*Deadlock: Julia GC/);
  assert.doesNotMatch(renderText(a, { chalk: plain }), /\u001b\[/);
});
