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
  const ids = mermaidIds(view.nodes);
  const lines = ['flowchart LR'];
  for (const node of view.nodes) {
    const id = ids.get(node.id)!;
    const label = node.label.map(escapeMermaid).join('<br/>');
    lines.push(node.kind === 'thread' ? `  ${id}(["${label}"])` : `  ${id}["${label}"]`);
  }
  const redEdges: number[] = [];
  view.edges.forEach((edge, index) => {
    const arrow = edge.evidence === 'proven' ? '-->' : '-.->';
    lines.push(`  ${ids.get(edge.from)} ${arrow}|"${escapeMermaid(edge.label)}"| ${ids.get(edge.to)}`);
    if (edge.inDeadlock) redEdges.push(index);
  });
  const red = view.nodes.filter((n) => n.inDeadlock).map((n) => ids.get(n.id)!);
  const unknown = view.nodes.filter((n) => n.holderUnknown).map((n) => ids.get(n.id)!);
  if (red.length > 0) {
    lines.push(`  classDef deadlock ${DEADLOCK_STYLE}`);
    lines.push(`  class ${red.join(',')} deadlock`);
  }
  if (unknown.length > 0) {
    lines.push('  classDef unknown stroke-dasharray:5 5');
    lines.push(`  class ${unknown.join(',')} unknown`);
  }
  if (redEdges.length > 0) lines.push(`  linkStyle ${redEdges.join(',')} ${DEADLOCK_STYLE}`);
  return `${lines.join('\n')}\n`;
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
