/**
 * Resource and text templates: `mutex:{args.mutex.address}`, `waits for the Julia lock
 * {args.lock.symbol}`. Placeholders name captured frame arguments; a placeholder whose value the
 * frame did not print (`<optimized out>`) is reported as missing so the caller can fall back.
 */
import type { ParsedArgValue } from './arg-values.js';

const PLACEHOLDER = /\{([^{}]+)\}/g;

/** One placeholder alternative: `args.NAME.address|symbol|value`. */
export const PLACEHOLDER_PART = /^args\.([A-Za-z_]\w*)\.(address|symbol|value)$/;

/**
 * `{unknown}`, in a resource id only: the frames show that the thread waits for a lock of this kind
 * but nothing that tells which one (a library without debug info prints no arguments). It never has
 * a value, so the wait becomes `kind:unknown@THREAD`, one unresolved resource per waiting thread,
 * which the source (`--source`) or the owner loop may still link to its holder.
 */
export const UNKNOWN_IDENTITY = 'unknown';

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
  return expandParts(cutTemplate(template), captures);
}

/**
 * expandTemplate with each template cut once: rules have a few dozen templates, expanded per
 * thread. One per analysis session (analyze/analyzer.ts), which owns its table.
 */
export class TemplateExpander {
  private readonly cut = new Map<string, TemplatePart[]>();

  expand(template: string, captures: Record<string, ParsedArgValue>): Expanded {
    let parts = this.cut.get(template);
    if (parts === undefined) {
      parts = cutTemplate(template);
      if (this.cut.size >= MAX_CUT) this.cut.clear();
      this.cut.set(template, parts);
    }
    return expandParts(parts, captures);
  }
}

const MAX_CUT = 1024;

function expandParts(parts: readonly TemplatePart[], captures: Record<string, ParsedArgValue>): Expanded {
  const missing: string[] = [];
  let text = '';
  for (const part of parts) {
    if (typeof part === 'string') {
      text += part;
      continue;
    }
    // `{args.lock.symbol|args.lock.address}`: the first alternative that has a value.
    let value: string | null | undefined = null;
    for (const alt of part.alts) {
      const cap = alt === null ? undefined : captures[alt.name];
      value = cap && alt ? cap[alt.part] : null;
      if (value !== null && value !== undefined && value !== '') break;
    }
    if (value !== null && value !== undefined && value !== '') text += value;
    else {
      missing.push(part.inner);
      text += '?';
    }
  }
  return { text, missing };
}

/** A template cut into literal text and placeholders. */
type TemplatePart = string | { inner: string; alts: Array<{ name: string; part: 'address' | 'symbol' | 'value' } | null> };

function cutTemplate(template: string): TemplatePart[] {
  const parts: TemplatePart[] = [];
  let last = 0;
  for (const m of template.matchAll(PLACEHOLDER)) {
    const at = m.index ?? 0;
    if (at > last) parts.push(template.slice(last, at));
    const inner = m[1] as string;
    parts.push({
      inner: inner.trim(),
      alts: inner.split('|').map((alt) => {
        const p = PLACEHOLDER_PART.exec(alt.trim());
        return p ? { name: p[1] as string, part: p[2] as 'address' | 'symbol' | 'value' } : null;
      }),
    });
    last = at + m[0].length;
  }
  if (last < template.length) parts.push(template.slice(last));
  return parts;
}
