/**
 * What an HTML report may contain, checked on its text: only the elements and attributes
 * waitgraph itself writes, no raw `<` from the dump, no event handler, no link to anything outside
 * the page, exactly two scripts (the JSON data and the hashed page script) and one style, both
 * named by the Content-Security-Policy. A string from a hostile dump that got through unescaped
 * would add an element, an attribute or a `<` this check does not allow.
 */
import { createHash } from 'node:crypto';

/** The HTML page's own elements and the ones Graphviz's SVG uses. */
const ELEMENTS = new Set([
  '!doctype', 'html', 'head', 'meta', 'title', 'style', 'body', 'header', 'main', 'aside', 'section', 'div',
  'h1', 'h2', 'h3', 'p', 'ul', 'li', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'button', 'code', 'span',
  'strong', 'details', 'summary', 'pre', 'b', 'mark', 'template', 'label', 'input', 'output', 'script',
  'svg', 'g', 'ellipse', 'polygon', 'polyline', 'path', 'text',
]);

const ATTRIBUTES = new Set([
  'lang', 'charset', 'http-equiv', 'content', 'name', 'class', 'id', 'type', 'data-t', 'data-g', 'for',
  'placeholder', 'autocomplete', 'spellcheck', 'aria-live', 'aria-label', 'role', 'html',
  // Graphviz's SVG
  'width', 'height', 'viewbox', 'xmlns', 'xmlns:xlink', 'transform', 'fill', 'stroke', 'points', 'cx', 'cy',
  'rx', 'ry', 'd', 'x', 'y', 'text-anchor', 'font-family', 'font-size', 'xml:space', 'stroke-width',
  'stroke-dasharray', 'font-weight',
]);

/** The first problem with `html`, or null. */
export function htmlSafetyProblem(html: string): string | null {
  const scripts: Array<{ attrs: string; body: string }> = [];
  const styles: string[] = [];
  // Raw-text elements first: their bodies are not markup.
  const markup = html.replace(/<(script|style)([^>]*)>([\s\S]*?)<\/\1>/g, (_, tag: string, attrs: string, body: string) => {
    if (tag === 'script') scripts.push({ attrs, body });
    else styles.push(body);
    return `<${tag}${attrs}></${tag}>`;
  });
  if (scripts.length !== 2) return `${scripts.length} script elements (expected the data block and the page script)`;
  if (styles.length !== 1) return `${styles.length} style elements`;
  const [data, page] = scripts as [{ attrs: string; body: string }, { attrs: string; body: string }];
  if (data.attrs !== ' type="application/json" id="wg-data"') return `first script is not the data block: <script${data.attrs}>`;
  if (page.attrs !== '') return `page script has attributes: <script${page.attrs}>`;
  if (/<\/?script/i.test(data.body)) return 'the data block holds a script tag';
  try {
    JSON.parse(data.body);
  } catch (error) {
    return `the data block is not JSON: ${(error as Error).message}`;
  }
  const csp = /<meta http-equiv="Content-Security-Policy" content="([^"]+)">/.exec(markup)?.[1];
  if (!csp) return 'no Content-Security-Policy meta tag';
  const hash = (text: string): string => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;
  if (!csp.includes("default-src 'none'")) return `CSP does not default to none: ${csp}`;
  if (/unsafe-(inline|eval|hashes)|\*|https?:|data:|blob:/.test(csp)) return `CSP allows too much: ${csp}`;
  if (!csp.includes(`script-src ${hash(page.body)}`)) return 'the CSP script hash does not match the page script';
  if (!csp.includes(`style-src ${hash(styles[0]!)}`)) return 'the CSP style hash does not match the style sheet';
  if (/url\(|@import/.test(styles[0]!)) return 'the style sheet loads something';

  const tag = /<(\/?)([!A-Za-z][A-Za-z0-9:-]*)((?:\s+[^\s=>]+(?:="[^"]*")?)*)\s*\/?>/g;
  let at = 0;
  for (let m = tag.exec(markup); m !== null; m = tag.exec(markup)) {
    const between = markup.slice(at, m.index);
    if (between.includes('<') || between.includes('>')) return `raw < or > in text: ${JSON.stringify(between.slice(0, 120))}`;
    at = m.index + m[0].length;
    const name = m[2]!.toLowerCase();
    if (!ELEMENTS.has(name)) return `element <${name}> is not one waitgraph writes`;
    for (const attr of (m[3] ?? '').matchAll(/\s+([^\s=>]+)(?:="([^"]*)")?/g)) {
      const attrName = attr[1]!.toLowerCase();
      if (name === '!doctype') continue;
      if (!ATTRIBUTES.has(attrName)) return `attribute ${attrName} on <${name}> is not one waitgraph writes`;
      if (/[<>]/.test(attr[2] ?? '')) return `raw < or > in attribute ${attrName}`;
    }
  }
  const rest = markup.slice(at);
  if (rest.includes('<') || rest.includes('>')) return `raw < or > after the last tag: ${JSON.stringify(rest.slice(0, 120))}`;
  return null;
}
