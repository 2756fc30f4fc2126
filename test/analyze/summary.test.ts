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
import { matchBacktrace, prepareStack } from '../../src/rules/match.js';
import { MERGE_FRAMES, summarizeBacktrace } from '../../src/analyze/summary.js';
import { FIXTURES, FOUNDING } from '../helpers/paths.js';
import { renderDump } from '../bench/generate.js';

const rules = loadBuiltinRules();

const refOf = (index: number, f: Frame): FrameRef => ({ backtrace: index, level: f.level, function: f.function, file: f.file, line: f.line, sourceLine: f.sourceLine });

function inputs(): string[] {
  const dir = join(FIXTURES, 'rules');
  return [FOUNDING, ...readdirSync(dir).filter((n) => n.endsWith('.txt')).sort().map((n) => join(dir, n))];
}

/** Checks every backtrace's summary against the rules run on its frames; counts what it checked. */
function checkSummaries(dump: ReturnType<typeof parseDump>, where: string, counts: { hits: number; captures: number }): void {
  dump.backtraces.forEach((bt: Backtrace, i: number) => {
    const s = summarizeBacktrace(rules, bt, i);
    const stack = prepareStack(bt, rules.primitives);
    const expected = matchBacktrace(rules, stack).map((hit) => {
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
    assert.deepEqual(s.acquireSite, acquire ? refOf(i, acquire) : null, at);
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

test('summary: equal top frames share one frozen list; the thread is the one the dump keeps', () => {
  const { text } = renderDump({ threads: 200, frames: 24, seed: 5 });
  const summaries: Array<ReturnType<typeof summarizeBacktrace>> = [];
  const parser = new DumpParser({ keepFrames: false, onBacktrace: (bt, i) => summaries.push(summarizeBacktrace(rules, bt, i)) });
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
