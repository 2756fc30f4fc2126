import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeMermaid, mermaidIds, renderMermaid } from '../../src/report/mermaid.js';
import type { ViewNode } from '../../src/report/graph-view.js';
import { foundingAnalysis, okAnalysis } from './build-analysis.js';

test('whole graph: parked threads drawn as one node, deadlock classed and its links styled', () => {
  const text = renderMermaid(foundingAnalysis());
  assert.match(text, /^flowchart LR\n/);
  assert.match(text, /g1_3_4_5_6\(\["5 threads: 1, 3, 4, 5, 6<br\/>parked at a GC safepoint"\]\)/);
  assert.match(text, /class t7,t8,t9,r_julia_gc_stop,r_orc_lazy_compile deadlock/);
  const links = text.split('\n').filter((l) => /-\.?->/.test(l));
  const styled = /linkStyle ([\d,]+) /.exec(text)![1]!.split(',').map(Number);
  // Every link but the parked threads' one is part of the deadlock.
  assert.equal(links.length, 7);
  assert.deepEqual(styled, links.map((l, i) => (l.includes('g1_3_4_5_6') ? -1 : i)).filter((i) => i >= 0));
});

test('a graph with no waits still renders', () => {
  assert.match(renderMermaid(okAnalysis()), /^flowchart LR\n  empty\[/);
});

test('ids are sanitised, prefixed and unique', () => {
  const node = (id: string): ViewNode => ({ id, kind: 'resource', label: [id], inDeadlock: false, holderUnknown: false });
  const ids = mermaidIds([node('res:mutex:0x55'), node('res:mutex-0x55'), node('thread:bt@119'), node('res:end')]);
  assert.deepEqual([...ids.values()], ['r_mutex_0x55', 'r_mutex_0x55_2', 'tbt_119', 'r_end']);
  for (const id of ids.values()) assert.match(id, /^[A-Za-z][A-Za-z0-9_]*$/);
});

test('labels escape quotes, angle brackets, hashes and backticks', () => {
  assert.equal(escapeMermaid('std::future<unsigned long>::get() "x" #1 `y` a&b'), 'std::future#60;unsigned long#62;::get() #34;x#34; #35;1 #96;y#96; a#38;b');
  assert.doesNotMatch(escapeMermaid('a\nb'), /\n/);
});
