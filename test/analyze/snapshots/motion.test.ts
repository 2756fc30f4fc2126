/**
 * Motion over snapshots (analyze/snapshots/), pure over parsed text: threads matched by LWP, then
 * pthread address, then thread number; stuck / moved / new / gone; how long a thread was stuck;
 * one input cut into snapshots; and the verdict over time (a cycle or hang whose thread moved is
 * withdrawn, naming it; candidate cycles stuck in every snapshot are strengthened).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDump } from '../../../src/parse/index.js';
import { createAnalyzer } from '../../../src/analyze/index.js';
import { analyzeSeries, computeMotion, differentProcess, markerLine, snapshotThreads, splitDump } from '../../../src/analyze/snapshots/index.js';
import type { Dump } from '../../../src/model/dump.js';
import { FIXTURES, FOUNDING } from '../../helpers/paths.js';

const ABBA = readFileSync(join(FIXTURES, 'live', 'abba.txt'), 'utf8');
const ABC = readFileSync(join(FIXTURES, 'live', 'abc-cycle.txt'), 'utf8');
const STUCK = readFileSync(join(FIXTURES, 'snapshots', 'abba-stuck.txt'), 'utf8');
const MOVED = readFileSync(join(FIXTURES, 'snapshots', 'abba-moved.txt'), 'utf8');
/** Thread 2 of abba one line further on (another pc and line in take_a_then_b). */
const ABBA_MOVED = ABBA.replace('0x0000556cc90522e8 in take_a_then_b (unused=0x0) at abba.c:17', '0x0000556cc90522f1 in take_a_then_b (unused=0x0) at abba.c:18');

const motionOf = (texts: string[], times: number[] | null = null) => computeMotion(texts.map((t) => snapshotThreads(parseDump(t))), times);
const byKey = (m: ReturnType<typeof motionOf>) => new Map(m.threads.map((t) => [t.key, t]));

test('the same frames in every snapshot: every thread stuck, matched by LWP, stuck for the time between first and last', () => {
  const m = motionOf([ABBA, ABBA, ABBA], [1, 1.004]);
  assert.equal(m.matchedBy, 'lwp');
  assert.equal(m.count, 3);
  assert.deepEqual(m.threads.map((t) => [t.key, t.motion, t.seen, t.stuckSeconds]), [
    ['3', 'stuck', 3, 2.004],
    ['2', 'stuck', 3, 2.004],
    ['1', 'stuck', 3, 2.004],
  ]);
});

test('one frame with another pc and line: that thread moved, between the snapshots where it changed', () => {
  const m = byKey(motionOf([ABBA, ABBA, ABBA_MOVED]));
  assert.equal(m.get('2')?.motion, 'moved');
  assert.deepEqual(m.get('2')?.movedBetween, [2, 3]);
  assert.equal(m.get('3')?.motion, 'stuck');
  assert.equal(m.get('3')?.stuckSeconds, undefined, 'no times, no duration');
});

test('only the pc differs: moved (function, file:line and pc are all compared)', () => {
  const pcOnly = ABBA.replace('0x0000556cc90522e8 in take_a_then_b', '0x0000556cc90522ec in take_a_then_b');
  assert.equal(byKey(motionOf([ABBA, pcOnly])).get('2')?.motion, 'moved');
});

test('matched by LWP even when gdb numbers the threads anew (separate gdb runs)', () => {
  // The same threads, numbered 1, 4, 5 in the second dump.
  const renumbered = ABBA.replace('Thread 3 (Thread', 'Thread 5 (Thread').replace('Thread 2 (Thread', 'Thread 4 (Thread');
  const m = byKey(motionOf([ABBA, renumbered]));
  assert.deepEqual([...m.keys()].sort(), ['1', '4', '5']);
  assert.ok([...m.values()].every((t) => t.motion === 'stuck'));
});

test('no LWPs: matched by pthread address; neither: by thread number', () => {
  const noLwp = ABBA.replace(/ \(LWP \d+\)/g, '');
  assert.equal(motionOf([noLwp, noLwp]).matchedBy, 'ptid');
  const bare = ABBA.replace(/^Thread (\d+) \(Thread 0x[0-9a-f]+ \(LWP \d+\) ("[^"]*")\):$/gm, 'Thread $1 ($2):');
  const m = motionOf([bare, bare.replace('abba.c:17', 'abba.c:18')]);
  assert.equal(m.matchedBy, 'thread number');
  assert.equal(byKey(m).get('2')?.motion, 'moved');
});

test('a thread only later snapshots show is new; one the last does not show is gone', () => {
  const withoutThree = ABBA.replace(/^Thread 3 [\s\S]*?\n\n/m, '');
  const m = byKey(motionOf([withoutThree, ABBA]));
  assert.equal(m.get('3')?.motion, 'new');
  assert.equal(m.get('3')?.first, 2);
  const g = byKey(motionOf([ABBA, withoutThree]));
  assert.equal(g.get('3')?.motion, 'gone');
  assert.equal(g.get('3')?.last, 1);
});

test('one input holding three `thread apply all bt` of one process is cut into three snapshots', () => {
  const split = splitDump(parseDump(STUCK));
  assert.ok(split);
  assert.equal(split.how, 'repeats');
  assert.equal(split.snapshots.length, 3);
  for (const s of split.snapshots) assert.deepEqual(s.backtraces.map((b) => b.thread?.gdbId), ['3', '2', '1']);
  assert.equal(split.times, null);
});

test('the lines attach writes between snapshots cut the input and give the times', () => {
  const text = [ABBA, '[Inferior 1 (process 20593) detached]', markerLine(2, 3, 1.002), ABBA, markerLine(3, 3, 2.01), ABBA].join('\n');
  const split = splitDump(parseDump(text));
  assert.ok(split);
  assert.equal(split.how, 'markers');
  assert.deepEqual(split.times, [1.002, 1.008]);
  assert.equal(split.snapshots.length, 3);
});

test('a thread shown again by `thread N` + `bt` is no snapshot: the input stays one dump', () => {
  const again = ABBA + ['', 'Thread 2 (Thread 0x7f2411f276c0 (LWP 20594) "abba-ab"):', '#0  futex_wait (private=0, expected=2, futex_word=0x556cc90550e0 <lock_b>) at ../sysdeps/nptl/futex-internal.h:146'].join('\n');
  assert.equal(splitDump(parseDump(again)), null);
  // Two different processes, one after the other: no LWP in common, not snapshots.
  assert.equal(splitDump(parseDump(`${ABBA}\n${ABC}`)), null);
});

test('dumps of two different processes are told apart (pid, or no LWP in common)', () => {
  assert.match(differentProcess(parseDump(ABBA), parseDump(ABC)) ?? '', /pid \d+ and pid \d+/);
  assert.equal(differentProcess(parseDump(ABBA), parseDump(ABBA_MOVED)), null);
});

function series(texts: string[], times: number[] | null = null) {
  const analyzer = createAnalyzer();
  const dumps: Dump[] = texts.map((t) => parseDump(t));
  return analyzeSeries(dumps, (d) => analyzer.analyze(d), { times, how: 'given' });
}

test('a hang whose threads stay stuck in every snapshot holds, and its candidate cycles are strengthened', () => {
  const a = series([ABBA, ABBA, ABBA], [1, 1]);
  assert.equal(a.verdict, 'hang');
  assert.ok(a.candidateCycles.length > 0);
  for (const c of a.candidateCycles) {
    assert.equal(c.stuckAcross, 3);
    assert.match(c.text, /stayed stuck in all 3 snapshots/);
  }
  assert.equal(a.snapshots?.count, 3);
  assert.equal(a.snapshots?.interval, 1);
  assert.equal(a.snapshots?.threads['2']?.stuckSeconds, 2);
  assert.ok(a.notes.some((n) => /The hang holds over time/.test(n)));
});

test('a hang whose thread moved is withdrawn: ok, the reason names the thread that moved, nothing contradicts it', () => {
  const a = series([ABBA, ABBA_MOVED]);
  assert.equal(a.verdict, 'ok');
  assert.equal(a.verdictReasons[0]?.kind, 'moved');
  assert.deepEqual(a.verdictReasons[0]?.threads, ['2']);
  assert.deepEqual(a.hung, []);
  assert.deepEqual(a.candidateCycles, []);
  assert.ok(a.notes.some((n) => /hang is withdrawn: Thread 2 \(LWP 20594\) moved between snapshots 1 and 2/.test(n)));
  assert.ok(!a.notes.some((n) => /holds over time/.test(n)));
});

test('a deadlock cycle whose thread moved is withdrawn with a note naming that thread', () => {
  const founding = readFileSync(FOUNDING, 'utf8');
  const single = createAnalyzer().analyzeText(founding);
  assert.equal(single.verdict, 'deadlock');
  const lines = founding.split('\n');
  const at = lines.findIndex((l) => l.startsWith('Thread 8 '));
  lines[at + 1] = (lines[at + 1] as string).replace('0x000078411e0d6e9d', '0x000078411e0d6ea1');
  const moved = lines.join('\n');
  const a = series([founding, moved]);
  assert.equal(a.verdict, 'ok');
  assert.deepEqual(a.deadlocks, []);
  assert.ok(a.notes.some((n) => /The cycle of threads 7, 8, 9 is withdrawn: Thread 8 \(LWP 45437\) moved between snapshots 1 and 2/.test(n)), a.notes.join('\n'));
  // Stuck in both: the cycle stands.
  assert.equal(series([founding, founding]).verdict, 'deadlock');
});

test('the fixtures: abba stuck three times is a hang; abba with a thread that moved is ok', () => {
  const stuck = splitDump(parseDump(STUCK));
  const moved = splitDump(parseDump(MOVED));
  assert.ok(stuck && moved);
  const analyzer = createAnalyzer();
  assert.equal(analyzeSeries(stuck.snapshots, (d) => analyzer.analyze(d), { times: null, how: 'recognised' }).verdict, 'hang');
  assert.equal(analyzeSeries(moved.snapshots, (d) => analyzer.analyze(d), { times: null, how: 'recognised' }).verdict, 'ok');
});
