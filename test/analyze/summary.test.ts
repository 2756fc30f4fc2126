/**
 * The per-backtrace summary (analyze/summary.ts) is stored packed and shared (issue 7, figure 3);
 * what it reads back through BacktraceSummary must be what the rules found on the frames: the
 * hit sites as FrameRefs of those frames, the captures, the pending conditions, the acquire site,
 * the top frames, and the thread the dump ends up holding.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { FrameRef } from '../../src/model/analysis.js';
import type { Backtrace, Frame } from '../../src/model/dump.js';
import { DumpParser, parseDump } from '../../src/parse/index.js';
import { loadBuiltinRules } from '../../src/rules/builtin.js';
import { conditionHoldsAt, createMatcher } from '../../src/rules/match.js';
import { MERGE_FRAMES, Summarizer, type BacktraceSummary, type StackMemo } from '../../src/analyze/summary.js';
import { FIXTURES, FOUNDING, ruleFixtureFiles } from '../helpers/paths.js';
import { renderDump } from '../helpers/generate-dump.js';

const rules = loadBuiltinRules();

const refOf = (index: number, f: Frame): FrameRef => ({ backtrace: index, level: f.level, function: f.function, file: f.file, line: f.line, sourceLine: f.sourceLine });

function inputs(): string[] {
  return [FOUNDING, ...ruleFixtureFiles()];
}

type Summarize = (bt: Backtrace, i: number) => BacktraceSummary;

/** The matcher with its memo off: every stack searched afresh (the reference the memo must agree with). */
const fresh = createMatcher<StackMemo>(rules, { memo: false });

/** Summaries with the fingerprint memo off (a new summarizer: its pools start empty). */
function direct(): Summarize {
  const summarizer = new Summarizer(fresh);
  return (bt, i) => summarizer.summarize(bt, i, fresh.prepare(bt));
}

/**
 * Summaries as the analyzer makes them (stacks from the fingerprint memo); `reused` counts the
 * backtraces whose fingerprint already had a remembered shape to try.
 */
function memoised(counts: { reused: number }): Summarize {
  const matcher = createMatcher<StackMemo>(rules);
  const summarizer = new Summarizer(matcher);
  return (bt, i) => {
    const stack = matcher.prepare(bt);
    if (stack.fingerprint.memo !== null) counts.reused++;
    return summarizer.summarize(bt, i, stack);
  };
}

/** Checks every backtrace's summary against the rules run on its frames; counts what it checked. */
function checkSummaries(dump: ReturnType<typeof parseDump>, where: string, counts: { hits: number; captures: number }, summarize: Summarize = direct()): void {
  dump.backtraces.forEach((bt: Backtrace, i: number) => {
    const s = summarize(bt, i);
    const stack = fresh.prepare(bt);
    const expected = fresh.match(stack).map((hit) => {
      // Alternatives after the first with nothing pending can never be taken: not kept.
      const always = hit.alternatives.findIndex((a) => a.pendingProcess.length === 0);
      const alts = always < 0 ? hit.alternatives : hit.alternatives.slice(0, always + 1);
      return {
        ruleId: hit.ruleId,
        alternatives: alts.map((a) => ({ site: bt.frames[a.siteIndex] ? refOf(i, bt.frames[a.siteIndex] as Frame) : null, captures: a.captures, pendingProcess: a.pendingProcess })),
      };
    });
    const at = `${where} backtrace ${i}`;
    assert.deepEqual(JSON.parse(JSON.stringify(s.hits)), JSON.parse(JSON.stringify(expected)), at);
    const acquire = bt.frames[stack.acquireIndex];
    // Where it waits: the first frame from the acquire site on that no lock wrapper matches.
    let site = stack.acquireIndex;
    while (site < bt.frames.length && rules.lockWrappers.some((c) => conditionHoldsAt(c, stack, site))) site++;
    const waits = bt.frames[site < bt.frames.length ? site : stack.acquireIndex];
    assert.deepEqual(s.acquireSite, waits ? refOf(i, waits) : null, at);
    assert.equal(s.acquireName, acquire ? stack.names[stack.acquireIndex] : null, at);
    assert.deepEqual(
      s.top.map((t) => ({ ...t })),
      bt.frames.slice(0, MERGE_FRAMES).map((f, k) => ({ level: f.level, name: stack.names[k] })),
      at,
    );
    assert.equal(s.index, i);
    assert.equal(s.frameCount, bt.frames.length);
    assert.equal(s.blocked, stack.blocked);
    assert.equal(s.thread, bt.thread);
    assert.equal(s.startLine, bt.startLine);
    assert.equal(s.truncated, bt.truncated);
    if (expected.length > 0) counts.hits++;
    if (expected.some((h) => h.alternatives.some((a) => Object.keys(a.captures).length > 0))) counts.captures++;
  });
}

test('summary: hits, sites, captures, acquire site and top frames read back as the rules found them', () => {
  const counts = { hits: 0, captures: 0 };
  for (const file of inputs()) checkSummaries(parseDump(readFileSync(file, 'utf8')), file, counts);
  // The check has something to check.
  assert.ok(counts.hits > 50, `backtraces with hits: ${counts.hits}`);
  assert.ok(counts.captures > 10, `backtraces with captures: ${counts.captures}`);
});

test('summary: threads of one shape share it, and still read back their own lines and captured values', () => {
  // 600 generated threads fall into far fewer shapes; each thread's start line, sites and mutex
  // addresses differ and must come back as its own.
  const counts = { hits: 0, captures: 0 };
  checkSummaries(parseDump(renderDump({ threads: 600, frames: 24, seed: 11 }).text), 'generated dump', counts);
  assert.ok(counts.hits > 500 && counts.captures > 100, JSON.stringify(counts));
});

test('summary: through the fingerprint memo (a shape remembered per stack) the summaries read back the same', () => {
  const counts = { hits: 0, captures: 0 };
  const reuse = { reused: 0 };
  for (const file of inputs()) checkSummaries(parseDump(readFileSync(file, 'utf8')), file, counts, memoised(reuse));
  checkSummaries(parseDump(renderDump({ threads: 600, frames: 24, seed: 11 }).text), 'generated dump', counts, memoised(reuse));
  assert.ok(counts.hits > 500 && counts.captures > 100 && reuse.reused > 150, JSON.stringify({ ...counts, ...reuse }));
});

test('summary: a stack of a known fingerprint whose site frames differ (line, level, file) gets its own shape', () => {
  // One fingerprint (same names, same conditions met), but the site of glibc.mutex.wait and the
  // acquire site move: a remembered shape must not be handed to these threads.
  const thread = (n: number, mutex: string, lockLine: string, workerAt: string, firstLevel: number): string =>
    [
      `Thread ${n} (Thread 0x7f00000000${n}0 (LWP ${100 + n}) "w${n}"):`,
      `#${firstLevel}  futex_wait (private=0, expected=2, futex_word=${mutex}) at ../sysdeps/nptl/futex-internal.h:146`,
      `#${firstLevel + 1}  __GI___lll_lock_wait (futex=${mutex}, private=0) at ./nptl/lowlevellock.c:49`,
      `#${firstLevel + 2}  0x00007f3c2e898002 in lll_mutex_lock_optimized (mutex=${mutex}) at ./nptl/pthread_mutex_lock.c:48`,
      `#${firstLevel + 3}  ___pthread_mutex_lock (mutex=${mutex}) at ${lockLine}`,
      `#${firstLevel + 4}  0x000055d0c8a01234 in worker (arg=0x0) at ${workerAt}`,
      `#${firstLevel + 5}  0x00007f3c2e894ac3 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442`,
      '',
    ].join('\n');
  const text = [
    thread(2, '0x55d0c9556558', './nptl/pthread_mutex_lock.c:93', 'app.c:10', 0),
    thread(3, '0x55d0c9556560', './nptl/pthread_mutex_lock.c:93', 'app.c:10', 0),
    thread(4, '0x55d0c9556568', './nptl/pthread_mutex_lock.c:94', 'app.c:10', 0),
    thread(5, '0x55d0c9556570', './nptl/pthread_mutex_lock.c:93', 'app.c:11', 0),
    thread(6, '0x55d0c9556578', './nptl/pthread_mutex_lock.c:93', 'other.c:10', 0),
    thread(7, '0x55d0c9556580', './nptl/pthread_mutex_lock.c:93', 'app.c:10', 1),
    thread(8, '0x55d0c9556588', './nptl/pthread_mutex_lock.c:93', 'app.c:10', 0),
  ].join('');
  const dump = parseDump(text);
  assert.equal(dump.backtraces.length, 7);
  const counts = { hits: 0, captures: 0 };
  const reuse = { reused: 0 };
  checkSummaries(dump, 'moved sites', counts, memoised(reuse));
  assert.equal(counts.captures, 7, 'every thread captures its mutex');
  assert.ok(reuse.reused >= 6, `remembered shapes tried: ${reuse.reused}`);
});

test('summary: equal top frames share one frozen list; the thread is the one the dump keeps', () => {
  const { text } = renderDump({ threads: 200, frames: 24, seed: 5 });
  const summaries: BacktraceSummary[] = [];
  const summarize = direct();
  const parser = new DumpParser({ keepFrames: false, onBacktrace: (bt, i) => summaries.push(summarize(bt, i)) });
  parser.push(text);
  const dump = parser.end();
  assert.equal(summaries.length, dump.backtraces.length);
  const byNames = new Map<string, (typeof summaries)[number]['top']>();
  let shared = 0;
  for (const s of summaries) {
    assert.ok(Object.isFrozen(s.top) && s.top.every((t) => Object.isFrozen(t)), 'shared lists are read only');
    const key = JSON.stringify(s.top);
    const earlier = byNames.get(key);
    if (earlier === undefined) byNames.set(key, s.top);
    else {
      assert.equal(s.top, earlier, 'equal top frames: the same list');
      shared++;
    }
    // With frames dropped the parser swaps in a detached ThreadInfo after the summary is made.
    assert.equal(s.thread, dump.backtraces[s.index]?.thread);
    assert.equal(s.frameCount, 24);
  }
  assert.ok(shared > 100, `summaries sharing a top list: ${shared}`);
});
