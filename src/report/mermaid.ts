/**
 * Mermaid flowcharts of the wait-for graph: GitHub and GitLab render a ```mermaid block in issues,
 * so the Markdown report embeds one per deadlock. Threads are stadiums, resources rectangles;
 * inferred edges are dotted, proven ones solid; the deadlock is red.
 *
 * Everything that comes from the dump is escaped with Mermaid's entity codes (`#quot;`, `#lt;`):
 * C++ names carry `<>`, `"` and `#`, and GitHub strips what looks like HTML from labels.
 */
import type { Analysis, Deadlock } from '../model/analysis.js';
import { deadlockView, wholeGraphView, type GraphView, type ViewNode } from './graph-view.js';
import { sanitizeAnalysis } from './sanitize.js';
import { verdictLine } from './cycle-view.js';

const DEADLOCK_STYLE = 'stroke:#d62728,stroke-width:3px';

/** The flowchart text (no fences) of one deadlock's threads, resources, waits and holds. */
export function mermaidForDeadlock(analysis: Analysis, deadlock: Deadlock): string {
  return mermaidFlowchart(deadlockView(analysis, deadlock));
}

/** `--format mermaid`: the whole wait-for graph, deadlocks highlighted. */
export function renderMermaid(analysis: Analysis): string {
  analysis = sanitizeAnalysis(analysis); // control characters from the dump made visible (sanitize.ts)
  const view = wholeGraphView(analysis);
  if (view.nodes.length === 0) return 'flowchart LR\n  empty["no thread waits for anything"]\n';
  return mermaidFlowchart(view);
}

export function mermaidFlowchart(view: GraphView): string {
  const lines = ['flowchart LR'];
  const body = flowchartBody(view, '', '  ', 0);
  lines.push(...body.lines, ...body.styles);
  if (body.redEdges.length > 0) lines.push(`  linkStyle ${body.redEdges.join(',')} ${DEADLOCK_STYLE}`);
  return `${lines.join('\n')}\n`;
}

/**
 * Several dumps as one flowchart (`-f mermaid a.txt b.txt`): a subgraph per file, titled with the
 * file and its verdict; ids prefixed with the file's place (`f2_t7`), so equal thread numbers of
 * two dumps stay two nodes. Mermaid numbers links across the whole chart, so each file's red
 * links are counted from the links before it.
 */
export function renderMermaidDocument(entries: ReadonlyArray<{ file: string; analysis: Analysis }>): string {
  const lines = ['flowchart LR'];
  const styles: string[] = [];
  const redEdges: number[] = [];
  let links = 0;
  entries.forEach((entry, index) => {
    const analysis = sanitizeAnalysis(entry.analysis);
    const prefix = `f${index + 1}_`;
    lines.push(`  subgraph ${prefix}dump["${escapeMermaid(`${entry.file}: ${verdictLine(analysis)}`)}"]`);
    const view = wholeGraphView(analysis);
    if (view.nodes.length === 0) lines.push(`    ${prefix}empty["no thread waits for anything"]`);
    const body = flowchartBody(view, prefix, '    ', links);
    lines.push(...body.lines, '  end');
    styles.push(...body.styles);
    redEdges.push(...body.redEdges);
    links += view.edges.length;
  });
  lines.push(...[...new Set(styles.filter((line) => line.includes('classDef')))], ...styles.filter((line) => !line.includes('classDef')));
  if (redEdges.length > 0) lines.push(`  linkStyle ${redEdges.join(',')} ${DEADLOCK_STYLE}`);
  return `${lines.join('\n')}\n`;
}

/** One view's nodes and links, its class lines, and the indexes of its red links (from `firstLink`). */
function flowchartBody(view: GraphView, prefix: string, indent: string, firstLink: number): { lines: string[]; styles: string[]; redEdges: number[] } {
  const local = mermaidIds(view.nodes);
  const ids = new Map([...local].map(([key, id]) => [key, prefix + id]));
  const lines: string[] = [];
  for (const node of view.nodes) {
    const id = ids.get(node.id)!;
    const label = node.label.map(escapeMermaid).join('<br/>');
    lines.push(node.kind === 'thread' ? `${indent}${id}(["${label}"])` : `${indent}${id}["${label}"]`);
  }
  const redEdges: number[] = [];
  view.edges.forEach((edge, index) => {
    const arrow = edge.evidence === 'proven' ? '-->' : '-.->';
    lines.push(`${indent}${ids.get(edge.from)} ${arrow}|"${escapeMermaid(edge.label)}"| ${ids.get(edge.to)}`);
    if (edge.inDeadlock) redEdges.push(firstLink + index);
  });
  const styles: string[] = [];
  const red = view.nodes.filter((n) => n.inDeadlock).map((n) => ids.get(n.id)!);
  const unknown = view.nodes.filter((n) => n.holderUnknown).map((n) => ids.get(n.id)!);
  if (red.length > 0) {
    styles.push(`  classDef deadlock ${DEADLOCK_STYLE}`);
    styles.push(`  class ${red.join(',')} deadlock`);
  }
  if (unknown.length > 0) {
    styles.push('  classDef unknown stroke-dasharray:5 5');
    styles.push(`  class ${unknown.join(',')} unknown`);
  }
  return { lines, styles, redEdges };
}

/**
 * Readable, collision-free Mermaid ids: `t7`, `t_bt_119`, `r_orc_lazy_compile`, `g1_3_4`. Only
 * `[A-Za-z0-9_]`, and always prefixed, so no id is a Mermaid keyword (`end`, `graph`).
 */
export function mermaidIds(nodes: readonly ViewNode[]): Map<string, string> {
  const ids = new Map<string, string>();
  const used = new Set<string>();
  for (const node of nodes) {
    let base: string;
    if (node.id.startsWith('group:')) base = `g${node.id.slice('group:'.length)}`;
    else if (node.id.startsWith('thread:')) base = `t${node.id.slice('thread:'.length)}`;
    else base = `r_${node.id.replace(/^res:/, '')}`;
    base = base.replace(/[^A-Za-z0-9_]+/g, '_').replace(/_+$/, '');
    let id = base;
    for (let n = 2; used.has(id); n++) id = `${base}_${n}`;
    used.add(id);
    ids.set(node.id, id);
  }
  return ids;
}

/** Text for inside a quoted Mermaid label: entity codes for every character Mermaid or HTML reads. */
export function escapeMermaid(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[#"<>&`]/g, (c) => `#${c.charCodeAt(0)};`);
}
