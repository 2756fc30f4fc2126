/**
 * SVG of the wait-for graph, rendered from the DOT report in-process by Graphviz compiled to
 * WebAssembly (@viz-js/viz), so no `dot` binary is needed. The Graphviz instance is created once
 * and reused: it takes ~100 ms to compile the module.
 */
import type { Analysis } from '../model/analysis.js';
import { renderDot } from './dot.js';

type Viz = Awaited<ReturnType<typeof import('@viz-js/viz').instance>>;
let vizInstance: Promise<Viz> | null = null;

function viz(): Promise<Viz> {
  vizInstance ??= import('@viz-js/viz').then((module) => module.instance());
  return vizInstance;
}

export async function renderSvg(analysis: Analysis): Promise<string> {
  return dotToSvg(renderDot(analysis));
}

/** Renders DOT to an SVG document; throws with Graphviz's own message if the DOT is invalid. */
export async function dotToSvg(dot: string): Promise<string> {
  const instance = await viz();
  const result = instance.render(dot, { format: 'svg', engine: 'dot' });
  if (result.status !== 'success') {
    const messages = result.errors.map((e) => e.message.trim()).join('; ');
    throw new Error(`Graphviz could not render the graph: ${messages}`);
  }
  const svg = result.output;
  return svg.endsWith('\n') ? svg : `${svg}\n`;
}
