import { test } from 'node:test';
import assert from 'node:assert/strict';
import { formatFrame, groupThreads, groupTitle } from '../../src/report/group.js';
import type { Analysis, ThreadAnalysis } from '../../src/model/analysis.js';
import { buildDump, foundingAnalysis } from './build-analysis.js';

function summary(analysis: Analysis, mode: 'exact' | 'functions'): string[] {
  return groupThreads(analysis, mode).map((g) => g.threads.join(','));
}

test('founding dump: parked threads form one bucket, the cut-off thread 1 included', () => {
  const groups = groupThreads(foundingAnalysis(), 'functions');
  assert.deepEqual(
    groups.map((g) => g.threads.join(',')),
    ['1,3,4,5,6', '2', '7,8', '9', '10,11,12'],
  );
  const parked = groups[0]!;
  assert.equal(groupTitle(parked), '5 threads parked at a GC safepoint: 1, 3, 4, 5, 6');
  // The shown stack is a complete one, not thread 1's cut-off copy.
  assert.notEqual(parked.representative, '1');
  assert.equal(parked.backtraces[0]!.frames.length, 5);
  assert.equal(groupTitle(groups[3]!), 'thread 9: runs a GC and waits for the world to stop');
});

test('thread 9 shows its merged headerless backtrace too', () => {
  const nine = groupThreads(foundingAnalysis(), 'exact').find((g) => g.threads.includes('9'))!;
  assert.equal(nine.backtraces.length, 2);
  assert.equal(nine.backtraces[1]!.thread, null);
});

/** Two threads with the same functions but different lines, and a third in another state. */
function variants(): Analysis {
  const base = foundingAnalysis();
  const dump = buildDump([
    { id: 1, frames: [{ fn: 'lock', file: 'a.c', line: 10 }, { fn: 'main', file: 'm.c', line: 1 }] },
    { id: 2, frames: [{ fn: 'lock', file: 'a.c', line: 12 }, { fn: 'main', file: 'm.c', line: 1 }] },
    { id: 3, frames: [{ fn: 'lock', file: 'a.c', line: 10 }, { fn: 'main', file: 'm.c', line: 1 }] },
    { id: 4, frames: [{ fn: 'lo', incomplete: true }], truncated: true },
    { id: 5, frames: [{ fn: 'unlock', incomplete: true }], truncated: true },
  ]);
  const t = (key: string, backtrace: number, state = 'blocked'): ThreadAnalysis => ({
    key, id: Number(key), lwp: null, ptid: null, name: null, state, stateText: state === 'blocked' ? 'blocked on a mutex' : 'running',
    waitsFor: [], holds: [], rules: [], acquireSite: null, backtrace, merged: [],
  });
  return { ...base, deadlocks: [], verdict: 'ok', edges: [], threads: [t('1', 0), t('2', 1), t('3', 2, 'running'), t('4', 3), t('5', 4)], dump };
}

test('exact mode splits stacks that differ in line; functions mode does not', () => {
  const analysis = variants();
  assert.deepEqual(summary(analysis, 'exact'), ['1,4', '2', '3', '5']);
  assert.deepEqual(summary(analysis, 'functions'), ['1,2,4', '3', '5']);
});

test('threads in different states never share a bucket, even with the same stack', () => {
  const analysis = variants();
  for (const mode of ['exact', 'functions'] as const) {
    const withThree = groupThreads(analysis, mode).find((g) => g.threads.includes('3'))!;
    assert.deepEqual(withThree.threads, ['3'], mode);
  }
});

test('a cut-off stack joins only a bucket whose stack starts with what it shows', () => {
  const groups = groupThreads(variants(), 'functions');
  assert.deepEqual(groups.find((g) => g.threads.includes('5'))!.threads, ['5']);
});

test('formatFrame rebuilds gdb\'s frame line', () => {
  const frame = foundingAnalysis().dump.backtraces[9]!.frames[2]!;
  assert.equal(
    formatFrame(frame),
    '#2  0x000078411d132fca in uv_cond_wait (cond=0x78411d5ca8c0 <safepoint_cond>, mutex=0x78411d5ca900 <safepoint_lock>) at src/unix/thread.c:883',
  );
});

test('group titles read as English for verbs, participles and noun phrases', async () => {
  const { pluralState } = await import('../../src/report/group.js');
  assert.equal(pluralState('parked at a GC safepoint'), 'parked at a GC safepoint');
  assert.equal(pluralState('waits on a condition variable'), 'wait on a condition variable');
  assert.equal(pluralState('runs the garbage collection'), 'run the garbage collection');
  assert.equal(pluralState('finishes a task'), 'finish a task');
  assert.equal(pluralState('is running'), 'are running');
  assert.equal(pluralState('idle GC worker'), '(idle GC worker)');
  assert.equal(pluralState('Julia signal listener'), '(Julia signal listener)');
});

test('cut-off stacks chain into the longest stack that starts with them', () => {
  const base = foundingAnalysis();
  const dump = buildDump([
    { id: 1, frames: [{ fn: 'a' }, { fn: 'b' }, { fn: 'c' }, { fn: 'main' }] },
    { id: 2, frames: [{ fn: 'a' }, { fn: 'b' }, { fn: 'c' }], truncated: true },
    { id: 3, frames: [{ fn: 'a' }, { fn: 'b' }], truncated: true },
    { id: 4, frames: [{ fn: 'a' }, { fn: 'b', incomplete: true }], truncated: true },
    { id: 5, frames: [{ fn: 'a' }, { fn: 'x' }], truncated: true },
    { id: 6, frames: [{ fn: 'a' }], truncated: false },
  ]);
  const t = (key: string, backtrace: number): ThreadAnalysis => ({
    key, id: Number(key), lwp: null, ptid: null, name: null, state: 'blocked', stateText: 'blocked',
    waitsFor: [], holds: [], rules: [], acquireSite: null, backtrace, merged: [],
  });
  const analysis: Analysis = { ...base, deadlocks: [], verdict: 'ok', edges: [], threads: [1, 2, 3, 4, 5, 6].map((n) => t(String(n), n - 1)), dump };
  for (const mode of ['exact', 'functions'] as const) {
    // 6 is complete (not cut), so it never joins a longer stack.
    assert.deepEqual(summary(analysis, mode), ['1,2,3,4', '5', '6'], mode);
  }
});

test('groupedStackSection: deadlocked threads first, each shared stack once', async () => {
  const { groupedStackSection } = await import('../../src/report/group.js');
  const section = groupedStackSection(foundingAnalysis(), 'functions');
  assert.deepEqual(
    section.map((s) => s.title),
    [
      '2 threads wait for a JIT lazy compile while GC-unsafe: 7, 8',
      'thread 9: runs a GC and waits for the world to stop',
      '5 threads parked at a GC safepoint: 1, 3, 4, 5, 6',
      'thread 2: waits for signals',
      '3 threads (idle GC mark threads): 10, 11, 12',
    ],
  );
  const nine = section[1]!.stack;
  assert.match(nine[0]!, /^#0  jl_gc_wait_for_the_world /);
  assert.ok(nine.some((line) => /^\(gdb\) bt {4}# headerless backtrace at line \d+, merged into this thread$/.test(line)));
});
