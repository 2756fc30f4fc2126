/**
 * Graphviz DOT of the wait-for graph: threads are ellipses, resources boxes, the deadlock red and
 * bold, inferred edges dashed, resources nobody is known to hold dashed with "holder unknown".
 * Node ids are the model's ids, quoted, so the DOT reads like the JSON report. Deterministic: the
 * order comes from the graph view, and nothing depends on time or locale.
 */
import type { Analysis } from '../model/analysis.js';
import { verdictLine } from './cycle-view.js';
import { wholeGraphView, type GraphView } from './graph-view.js';
import { sanitizeAnalysis } from './sanitize.js';

const RED = '#d62728';
/** Read under the title, so a picture pasted alone still says how to read it. */
const LEGEND = 'red: the deadlock · dashed: inferred from frame rules · solid: shown by the dump';

export function renderDot(analysis: Analysis): string {
  analysis = sanitizeAnalysis(analysis); // control characters from the dump made visible (sanitize.ts)
  return dotFromView(wholeGraphView(analysis), verdictLine(analysis));
}

export function dotFromView(view: GraphView, title: string): string {
  const lines = [
    'digraph waitgraph {',
    `  graph [rankdir=LR, label=${quote(`${title}\n${LEGEND}`)}, labelloc=t, fontname="Helvetica", fontsize=14, nodesep=0.4, ranksep=0.6];`,
    ...STYLE_LINES,
    ...graphBody(view, '', '  '),
  ];
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

const STYLE_LINES = ['  node [fontname="Helvetica", fontsize=11];', '  edge [fontname="Helvetica", fontsize=9];'];

/**
 * Several dumps as one graph (`-f dot a.txt b.txt`): one cluster per file, labelled with the file
 * and its verdict, so Graphviz draws one picture. Node ids are prefixed with the file's place
 * (`f2:thread:7`): the same thread number in two dumps is two nodes.
 */
export function renderDotDocument(entries: ReadonlyArray<{ file: string; analysis: Analysis }>): string {
  const lines = [
    'digraph waitgraph {',
    `  graph [rankdir=LR, label=${quote(`${entries.length} dumps\n${LEGEND}`)}, labelloc=t, fontname="Helvetica", fontsize=14, nodesep=0.4, ranksep=0.6];`,
    ...STYLE_LINES,
  ];
  entries.forEach((entry, index) => {
    const analysis = sanitizeAnalysis(entry.analysis);
    lines.push(`  subgraph ${quote(`cluster_${index + 1}`)} {`);
    lines.push(`    graph [label=${quote(`${entry.file}\n${verdictLine(analysis)}`)}, labelloc=t, style=rounded, color="#999999"];`);
    lines.push(...graphBody(wholeGraphView(analysis), `f${index + 1}:`, '    '));
    lines.push('  }');
  });
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** The nodes and edges of one view; `prefix` keeps ids apart when several views share a graph. */
function graphBody(view: GraphView, prefix: string, indent: string): string[] {
  const lines: string[] = [];
  if (view.nodes.length === 0) lines.push(`${indent}${prefix === '' ? 'empty' : quote(`${prefix}empty`)} [shape=plaintext, label="no thread waits for anything"];`);
  for (const node of view.nodes) {
    const [name = '', ...details] = node.label;
    const attrs: string[] = [`label=${quote([name, ...details.flatMap((line) => wrap(line, 34))].join('\n'))}`];
    attrs.push(node.kind === 'thread' ? 'shape=ellipse' : 'shape=box');
    if (node.kind === 'resource') attrs.push(node.holderUnknown ? 'style="rounded,dashed"' : 'style="rounded,filled", fillcolor="#f4f4f4"');
    if (node.inDeadlock) attrs.push(`color="${RED}"`, 'penwidth=2.5', `fontcolor="${RED}"`);
    lines.push(`${indent}${quote(prefix + node.id)} [${attrs.join(', ')}];`);
  }
  for (const edge of view.edges) {
    const attrs: string[] = [`label=${quote(edge.label)}`];
    if (edge.evidence === 'inferred') attrs.push('style=dashed');
    if (edge.inDeadlock) attrs.push(`color="${RED}"`, `fontcolor="${RED}"`, 'penwidth=2.5');
    lines.push(`${indent}${quote(prefix + edge.from)} -> ${quote(prefix + edge.to)} [${attrs.join(', ')}];`);
  }
  return lines;
}

/** Word-wraps a description so nodes stay narrow; a word longer than the width stays whole. */
export function wrap(text: string, width: number): string[] {
  const lines: string[] = [];
  let current = '';
  for (const word of text.split(/\s+/).filter(Boolean)) {
    if (current && current.length + 1 + word.length > width) {
      lines.push(current);
      current = word;
    } else {
      current = current ? `${current} ${word}` : word;
    }
  }
  if (current) lines.push(current);
  return lines;
}

/**
 * A DOT double-quoted string. Backslash is doubled first: in a label DOT reads `\l`, `\N`, `\G`
 * as escapes, and a C++ name or a Windows path may hold any of them. Newlines become `\n`
 * (centred line breaks).
 */
export function quote(text: string): string {
  const body = text
    .replace(/\\/g, '\\\\')
    .replace(/"/g, '\\"')
    .replace(/\r?\n/g, '\\n')
    .replace(/[\u0000-\u001f\u007f]/g, ' ');
  return `"${body}"`;
}
