/**
 * Every reporter prints a sanitised Analysis: each string that came from the dump has its control
 * characters shown as escapes (model/text-hygiene.ts says why), so no format can be driven by a
 * hostile thread name. Reporters call `sanitizeAnalysis` on the Analysis they are given (text,
 * Markdown, Mermaid, DOT → SVG, SARIF); JSON text gets `escapeJsonInvisibles` instead.
 */
import type { Analysis } from '../model/analysis.js';
import { escapeControlChars } from '../model/text-hygiene.js';

/**
 * A copy of `analysis` in which every string (thread names, functions, arguments, paths, ignored
 * lines, rule texts filled from arguments) has passed through `visible`. Objects and arrays that
 * hold no such string are shared with the original, not copied, so a clean million-frame dump
 * costs one walk and no memory; an object reached twice (an edge in `edges` and in a cycle step)
 * maps to one copy, so identity between them is kept.
 */
export function sanitizeAnalysis(analysis: Analysis): Analysis {
  if ((analysis as Partial<Record<typeof SANITIZED, true>>)[SANITIZED] === true) return analysis;
  const walked = sanitizeValue(analysis);
  // A copy of the top object alone (the rest stays shared), marked as sanitised: a reporter that
  // embeds another (Markdown embeds Mermaid, SVG is rendered from DOT) hands it the result, and
  // the walk is not made twice. Reporters never mutate an Analysis, so the copy stays valid.
  const result = walked === analysis ? { ...analysis } : walked;
  Object.defineProperty(result, SANITIZED, { value: true, enumerable: false });
  return result;
}

/** The mark of an Analysis sanitizeAnalysis made (not enumerable: no report shows it). */
const SANITIZED = Symbol('waitgraph.sanitized');

function sanitizeValue(analysis: Analysis): Analysis {
  const copies = new Map<object, unknown>();
  const walk = (value: unknown): unknown => {
    if (typeof value === 'string') return escapeControlChars(value);
    if (value === null || typeof value !== 'object') return value;
    const done = copies.get(value);
    if (done !== undefined) return done;
    if (Array.isArray(value)) {
      let copy: unknown[] | null = null;
      for (let i = 0; i < value.length; i++) {
        const item: unknown = value[i];
        const next = walk(item);
        if (next !== item) {
          copy ??= value.slice();
          copy[i] = next;
        }
      }
      if (copy === null) return value;
      copies.set(value, copy);
      return copy;
    }
    let copy: Record<string, unknown> | null = null;
    const record = value as Record<string, unknown>;
    for (const key of Object.keys(record)) {
      const item = record[key];
      const next = walk(item);
      if (next !== item) {
        copy ??= { ...record };
        copy[key] = next;
      }
    }
    if (copy === null) return value;
    copies.set(value, copy);
    return copy;
  };
  return walk(analysis) as Analysis;
}
