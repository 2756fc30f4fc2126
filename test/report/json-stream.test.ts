/**
 * The streamed JSON report (issue 7, figure 3) against the one-string definition it replaced:
 * `escapeJsonInvisibles(JSON.stringify(toJsonReport(a), null, 2)) + "\n"`. Same bytes on every
 * fixture, on a dump big enough to cross many chunk boundaries, on hostile strings, and — for the
 * generic writer — on random JSON values.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import type { Analysis } from '../../src/model/analysis.js';
import { renderJson, renderJsonChunks, renderJsonListChunks, toJsonReport } from '../../src/report/json.js';
import { CHUNK_CHARS, jsonChunks, streamedArray, streamedObject } from '../../src/report/json-stream.js';
import { escapeJsonInvisibles } from '../../src/model/text-hygiene.js';
import { analyzeText as analyzeStreamText } from '../../src/analyze/index.js';
import { FIXTURES, FOUNDING, ruleFixtureFiles } from '../helpers/paths.js';
import { renderDump } from '../helpers/generate-dump.js';
import { analyzeFile } from './pipeline.js';
import { foundingAnalysis, okAnalysis } from './build-analysis.js';

/** The JSON report as it was defined before streaming. */
const reference = (a: Analysis): string => `${escapeJsonInvisibles(JSON.stringify(toJsonReport(a), null, 2))}\n`;

function fixtureFiles(): string[] {
  const files = [FOUNDING];
  for (const dir of [FIXTURES, join(FIXTURES, 'live')]) {
    for (const name of readdirSync(dir).sort()) if (name.endsWith('.txt') && join(dir, name) !== FOUNDING) files.push(join(dir, name));
  }
  return [...files, ...ruleFixtureFiles()];
}

test('streamed JSON report: same bytes as the one-string report on every fixture', () => {
  const files = fixtureFiles();
  assert.ok(files.length > 20, `fixtures found: ${files.length}`);
  for (const file of files) {
    const a = analyzeFile(file);
    assert.equal(renderJson(a), reference(a), file);
  }
  for (const a of [foundingAnalysis(), okAnalysis()]) assert.equal(renderJson(a), reference(a));
});

test('streamed JSON report: a 2,000-thread dump comes in many chunks that join to the same bytes', () => {
  const { text } = renderDump({ threads: 2000, frames: 24, seed: 3 });
  const a = analyzeStreamText(text, { keepFrames: false });
  const chunks = [...renderJsonChunks(a)];
  const joined = chunks.join('');
  assert.equal(joined, reference(a));
  assert.ok(chunks.length > 5, `chunks: ${chunks.length}`);
  // No chunk much bigger than the chunk size (it may overshoot by one batch of elements): the
  // text is never gathered whole.
  const largest = Math.max(...chunks.map((c) => c.length));
  assert.ok(largest < 2 * CHUNK_CHARS, `largest chunk ${largest}`);
  assert.ok(joined.length > 10 * CHUNK_CHARS);
});

test('streamed JSON report: hostile strings (line feeds, invisibles, separators, lone surrogates, non-ASCII)', () => {
  const a = foundingAnalysis();
  const odd = 'a\nb\r\t\u0000\u001b[2J\u007f\u0085\u200e\u2028\u2029\u202e\u2066\ud800 \udfff \u{1f600} é "q" \\ </script>';
  const threads = a.threads.map((t, i) => ({ ...t, name: `${odd}${i}`, stateText: odd, waitsFor: [odd, 'x'], rules: [] }));
  const edges = a.edges.map((e) => ({ ...e, description: odd, ...(e.viaState ? { viaState: odd } : {}) }));
  const b: Analysis = { ...a, threads, edges, notes: [odd, '', 'multi\nline'], hangBlockedBehind: ['7'], hangReasons: [{ thread: 'bt@12', text: odd }] };
  const out = renderJson(b);
  assert.equal(out, reference(b));
  assert.ok(!/[\u2028\u202e]/.test(out), 'separators and bidi marks escaped');
  assert.deepEqual(JSON.parse(out), JSON.parse(JSON.stringify(toJsonReport(b))));
});

test('several dumps: one document, the reports nested under "report", same data as the trees', () => {
  const a = analyzeFile(FOUNDING);
  const b = okAnalysis();
  const text = [...renderJsonListChunks([{ file: 'one.txt', analysis: a }, { file: 'two\u202e.txt', analysis: b }])].join('');
  const list = [
    { file: 'one.txt', report: toJsonReport(a) },
    { file: 'two\u202e.txt', report: toJsonReport(b) },
  ];
  assert.equal(text, `${escapeJsonInvisibles(JSON.stringify(list, null, 2))}\n`);
});

test('jsonChunks: any JSON value, streamed at any level, prints as JSON.stringify(value, null, 2)', () => {
  // Streams the arrays and objects of a value at random, leaving the rest to JSON.stringify.
  const stream = (v: unknown, pick: () => boolean): unknown => {
    if (Array.isArray(v)) return pick() ? streamedArray(v, (x) => stream(x, pick)) : v;
    if (v !== null && typeof v === 'object') {
      if (!pick()) return v;
      // fromEntries defines own properties, even one named __proto__ (fc.jsonValue makes those).
      return streamedObject(Object.fromEntries(Object.entries(v).map(([k, x]) => [k, stream(x, pick)])));
    }
    return v;
  };
  fc.assert(
    fc.property(fc.jsonValue(), fc.array(fc.boolean(), { minLength: 1, maxLength: 32 }), (value, bits) => {
      let i = 0;
      const pick = (): boolean => bits[i++ % bits.length] as boolean;
      assert.equal([...jsonChunks(stream(value, pick))].join(''), JSON.stringify(value, null, 2));
    }),
    { numRuns: 300 },
  );
  // undefined fields are left out, undefined elements print null, as JSON.stringify does.
  const withUndefined = streamedObject({ a: undefined, b: streamedArray([1, undefined, 3], (x) => x), c: {} });
  assert.equal([...jsonChunks(withUndefined)].join(''), JSON.stringify({ a: undefined, b: [1, null, 3], c: {} }, null, 2));
  assert.equal([...jsonChunks(streamedObject({}))].join(''), '{}');
  assert.equal([...jsonChunks(streamedArray([], (x) => x))].join(''), '[]');
});
