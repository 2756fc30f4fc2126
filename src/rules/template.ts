/**
 * Resource and text templates: `mutex:{args.mutex.address}`, `waits for the Julia lock
 * {args.lock.symbol}`. Placeholders name captured frame arguments; a placeholder whose value the
 * frame did not print (`<optimized out>`) is reported as missing so the caller can fall back.
 */
import type { ParsedArgValue } from './normalize.js';

const PLACEHOLDER = /\{([^{}]+)\}/g;

/** One placeholder alternative: `args.NAME.address|symbol|value`. */
export const PLACEHOLDER_PART = /^args\.([A-Za-z_]\w*)\.(address|symbol|value)$/;

/** Every placeholder alternative in a template (`{a|b}` gives both). */
export function templatePlaceholders(template: string): string[] {
  return [...template.matchAll(PLACEHOLDER)].flatMap((m) => (m[1] ?? '').split('|').map((s) => s.trim()));
}

export interface Expanded {
  text: string;
  /** Placeholders that had no value. */
  missing: string[];
}

export function expandTemplate(template: string, captures: Record<string, ParsedArgValue>): Expanded {
  const missing: string[] = [];
  // `{args.lock.symbol|args.lock.address}`: the first alternative that has a value.
  const text = template.replace(PLACEHOLDER, (_all, inner: string) => {
    for (const alt of inner.split('|')) {
      const m = PLACEHOLDER_PART.exec(alt.trim());
      const cap = m ? captures[m[1] as string] : undefined;
      const value = cap && m ? cap[m[2] as 'address' | 'symbol' | 'value'] : null;
      if (value !== null && value !== undefined && value !== '') return value;
    }
    missing.push(inner.trim());
    return '?';
  });
  return { text, missing };
}
