import { test } from 'node:test';
import assert from 'node:assert/strict';
import { quote, renderDot } from '../../src/report/dot.js';
import { dotToSvg, renderSvg } from '../../src/report/svg.js';
import { foundingAnalysis, okAnalysis } from './build-analysis.js';

test('DOT: cycle edges red and bold, resources boxes, parked threads one node', () => {
  const dot = renderDot(foundingAnalysis());
  assert.match(dot, /^digraph waitgraph \{\n/);
  assert.match(dot, /"res:orc:lazy-compile" \[label="orc:lazy-compile", shape=box, [^\n]*color="#d62728"/);
  assert.match(dot, /"thread:7" -> "res:orc:lazy-compile" \[label="waits for", style=dashed, color="#d62728", fontcolor="#d62728", penwidth=2.5\];/);
  assert.match(dot, /"res:orc:lazy-compile" -> "thread:9" \[label="held by"[^\n]*#d62728/);
  assert.match(dot, /"group:1,3,4,5,6" -> "thread:9" \[label="waits for \(gc-initiator\)", style=dashed\];/);
  assert.doesNotMatch(dot, /"thread:3"/);
});

test('DOT is deterministic: input order does not change it', () => {
  const a = foundingAnalysis();
  const b = foundingAnalysis();
  b.edges.reverse();
  b.threads.reverse();
  assert.equal(renderDot(b), renderDot(a));
});

test('DOT quoting: backslashes, quotes and newlines', () => {
  assert.equal(quote('a\\l"b"\nc'), '"a\\\\l\\"b\\"\\nc"');
});

test('SVG: the DOT renders in-process to an SVG image naming the cycle threads', async () => {
  const svg = await renderSvg(foundingAnalysis());
  assert.match(svg, /^<\?xml version="1.0" encoding="UTF-8" standalone="no"\?>/);
  assert.match(svg, /<svg width="\d+pt" height="\d+pt"/);
  assert.ok(svg.trimEnd().endsWith('</svg>'));
  const text = svg.replace(/&#45;/g, '-');
  for (const label of ['thread 7', 'thread 8', 'thread 9', 'orc:lazy-compile', 'julia:gc-stop']) assert.ok(text.includes(`>${label}</text>`), label);
  // Red strokes from the highlighted cycle reached the picture.
  assert.ok((svg.match(/stroke="#d62728"/g)?.length ?? 0) >= 10);
});

test('SVG of an analysis with nothing waiting, and of a hostile label', async () => {
  assert.match(await renderSvg(okAnalysis()), /no thread waits for anything/);
  const analysis = foundingAnalysis();
  analysis.threads.find((t) => t.key === '7')!.stateText = 'a "quoted" \\l <tag> & }';
  const svg = await renderSvg(analysis);
  assert.ok(svg.includes('a &quot;quoted&quot; \\l &lt;tag&gt; &amp; }'));
});

test('invalid DOT is a clear error, not a crash', async () => {
  await assert.rejects(dotToSvg('digraph { a -> }'), /Graphviz could not render the graph/);
});
