/**
 * Terminal and markup safety: control characters planted in thread names, function names,
 * arguments and paths reach no report raw — every format shows them as escapes (`\x1b`), and the
 * only escape sequences in a coloured text report are waitgraph's own colour codes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Chalk } from 'chalk';
import { analyzeText } from '../../src/analyze/index.js';
import type { Analysis } from '../../src/model/analysis.js';
import { renderText } from '../../src/report/text.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderMermaid } from '../../src/report/mermaid.js';
import { renderDot } from '../../src/report/dot.js';
import { renderSvg } from '../../src/report/svg.js';
import { renderSarif } from '../../src/report/sarif.js';
import { renderHtml } from '../../src/report/html/index.js';
import { renderGithub } from '../../src/report/github.js';
import { FORMATS } from '../../src/report/index.js';
import { escapeJsonInvisibles, hasControlChars, visible } from '../../src/model/text-hygiene.js';
import { sanitizeAnalysis } from '../../src/report/sanitize.js';
import { runWaitgraph } from '../helpers/run-cli.js';
import { ALL_PAYLOADS, MARKUP_PAYLOADS, OWN_SGR, PAYLOADS, firstControl, plantedAbba } from './hostile.js';
import { htmlSafetyProblem } from './html-safety.js';

/** Every format, rendered to a string. */
async function renderAll(analysis: Analysis): Promise<Record<string, string>> {
  return {
    text: renderText(analysis, { chalk: new Chalk({ level: 0 }) }),
    'text (colour)': renderText(analysis, { chalk: new Chalk({ level: 3 }) }).replace(OWN_SGR, ''),
    json: renderJson(analysis),
    markdown: renderMarkdown(analysis),
    mermaid: renderMermaid(analysis),
    dot: renderDot(analysis),
    svg: await renderSvg(analysis),
    sarif: renderSarif(analysis),
    html: await renderHtml(analysis),
    github: renderGithub(analysis, { file: 'dumps/x.txt' }),
  };
}

/** Strings inside JSON output (SARIF must show them visibly, not only JSON-escaped). */
function jsonStrings(value: unknown, out: string[] = []): string[] {
  if (typeof value === 'string') out.push(value);
  else if (Array.isArray(value)) for (const v of value) jsonStrings(v, out);
  else if (value !== null && typeof value === 'object') for (const v of Object.values(value)) jsonStrings(v, out);
  return out;
}

/** Appends `payload` to every string of the analysis a reporter could print from the dump. */
function poison(analysis: Analysis, payload: string): Analysis {
  const copy = structuredClone(analysis);
  for (const t of copy.threads) t.name = `${t.name ?? 'worker'}${payload}`;
  for (const bt of copy.dump.backtraces) {
    if (bt.thread) bt.thread.name = `${bt.thread.name ?? ''}${payload}`;
    for (const f of bt.frames) {
      f.function = `${f.function}${payload}`;
      if (f.file !== null) f.file = `${payload}/${f.file}`;
      if (f.library !== null) f.library = `${f.library}${payload}`;
      for (const a of f.args) a.value = `${a.value}${payload}`;
    }
  }
  for (const e of copy.edges) {
    e.description = `${e.description}${payload}`;
    if (e.site) e.site.function = `${e.site.function}${payload}`;
  }
  for (const t of copy.threads) if (t.acquireSite) t.acquireSite.function = `${t.acquireSite.function}${payload}`;
  for (const d of copy.deadlocks) for (const s of d.cycle) s.text = `${s.text}${payload}`;
  for (const u of copy.unresolved) u.description = `${u.description}${payload}`;
  copy.dump.ignored.push({ line: 9999, text: `ignored${payload}` });
  return copy;
}

test('visible() shows each control character as an escape and leaves text alone', () => {
  assert.equal(visible('\u001b[31mred'), '\\x1b[31mred');
  assert.equal(visible('a\u0007b\bc\rd\u202ee'), 'a\\x07b\\x08c\\x0dd\\u202ee');
  assert.equal(visible('\u009b\u007f\u0000'), '\\x9b\\x7f\\x00');
  assert.equal(visible('line\nnext'), 'line\nnext');
  assert.equal(visible('line\nnext', { oneLine: true }), 'line\\x0anext');
  assert.equal(visible('std::vector<int>::push_back (this=0x1, __x=@0x2: 3) — ok é 日本'), 'std::vector<int>::push_back (this=0x1, __x=@0x2: 3) — ok é 日本');
  for (const [label, payload] of PAYLOADS) {
    assert.equal(hasControlChars(visible(payload)), false, label);
    assert.equal(firstControl(visible(payload)), null, label);
  }
});

test('sanitizeAnalysis shares clean objects and keeps identity between shared ones', () => {
  const analysis = analyzeText(plantedAbba(''));
  const same = sanitizeAnalysis(analysis);
  assert.deepEqual(same, analysis, 'a clean analysis reads the same');
  for (const key of Object.keys(analysis) as Array<keyof typeof analysis>) assert.equal(same[key], analysis[key], `a clean analysis shares its ${key}`);
  const dirty = poison(analysis, '\u0007');
  // Make an edge object shared, as the analyzer does between `edges` and cycle steps.
  if (dirty.deadlocks[0]) dirty.deadlocks[0].cycle[0]!.wait = dirty.edges[0]!;
  const clean = sanitizeAnalysis(dirty);
  assert.notEqual(clean, dirty);
  assert.equal(dirty.threads[0]!.name!.endsWith('\u0007'), true, 'the input is not mutated');
  assert.equal(clean.threads[0]!.name!.endsWith('\\x07'), true);
  if (clean.deadlocks[0]) assert.equal(clean.deadlocks[0].cycle[0]!.wait, clean.edges[0], 'one copy for one shared object');
  assert.equal(sanitizeAnalysis(clean), clean, 'a sanitised analysis is not walked again');
  assert.deepEqual(sanitizeAnalysis({ ...clean }), clean, 'idempotent: visible text has nothing left to escape');
});

test('escapeJsonInvisibles keeps the data and hides bidi and C1 characters from viewers', () => {
  const json = JSON.stringify({ name: 'a\u202eb\u009bc\u2028d' });
  const escaped = escapeJsonInvisibles(json);
  assert.equal(firstControl(escaped), null);
  assert.deepEqual(JSON.parse(escaped), JSON.parse(json));
});

for (const [label, payload] of [...PAYLOADS, ['all payloads at once', ALL_PAYLOADS] as const]) {
  test(`reporters: ${label} planted in names, functions, args and paths stays visible-only in every format`, async () => {
    const base = analyzeText(plantedAbba(''));
    assert.equal(base.verdict, 'deadlock', 'the ABBA fixture is a deadlock, so every format has a cycle to print');
    const analysis = poison(base, payload);
    const outputs = await renderAll(analysis);
    for (const [format, text] of Object.entries(outputs)) {
      assert.equal(firstControl(text), null, `${format}: raw control character in the output`);
    }
    for (const s of jsonStrings(JSON.parse(outputs['sarif']!))) assert.equal(firstControl(s), null, `sarif string ${JSON.stringify(s)}`);
    assert.equal(htmlSafetyProblem(outputs['html']!), null, 'html: only waitgraph\'s own markup');
    for (const line of outputs['github']!.split('\n').filter(Boolean)) assert.match(line, /^::(error|warning|notice) [^:]*::/, 'github: every line is one of waitgraph\'s workflow commands');
    // The thread name is printed, escaped, in the text report.
    assert.ok(outputs['text']!.includes(visible(payload)) || !outputs['text']!.includes('worker'), 'text shows the escaped payload');
  });
}

for (const [label, payload] of MARKUP_PAYLOADS) {
  test(`html: ${label} planted in names, functions, args, paths and resources adds no element, attribute or script`, async () => {
    const base = analyzeText(plantedAbba(''));
    const poisoned = poison(base, payload);
    for (const e of poisoned.edges) e.to = e.to.startsWith('res:') ? `${e.to}${payload}` : e.to;
    const html = await renderHtml(poisoned);
    assert.equal(htmlSafetyProblem(html), null);
    assert.ok(html.includes('&lt;'), 'the payload is shown, escaped');
    // Through the parser too: the dump's own text carries the payload.
    const parsed = analyzeText(plantedAbba(payload));
    assert.equal(htmlSafetyProblem(await renderHtml(parsed)), null);
  });
}

test('github: a name that ends the line cannot start a workflow command of its own', () => {
  const payload = '\n::add-mask::secret\r\n::stop-commands::x\n::error file=evil::owned%0A';
  const analysis = poison(analyzeText(plantedAbba('')), payload);
  const out = renderGithub(analysis, { file: 'dumps/a,b:c.txt' });
  const lines = out.split('\n').filter(Boolean);
  assert.ok(lines.length >= 2);
  for (const line of lines) assert.match(line, /^::(error|notice) file=dumps\/a%2Cb%3Ac\.txt,(line=\d+,)?title=[^:]*::/);
  assert.ok(out.includes('%0A::add-mask::secret\\x0d%0A::stop-commands::'), 'shown, escaped, inside the message (CR made visible first)');
  assert.ok(out.includes('owned%250A'), 'a % is escaped too, so no escape sequence is forged');
});

test('through the parser: control characters in a real dump are shown, not obeyed, in every format', async () => {
  // Complete ESC sequences are colour the parser strips from pastes; lone controls survive it.
  const payload = '\u0007\b\u202e\u009b\u001bZ\u000b';
  const analysis = analyzeText(plantedAbba(payload));
  assert.equal(analysis.verdict, 'deadlock', 'the planted characters do not change what the dump says');
  const names = analysis.threads.map((t) => t.name ?? '');
  assert.ok(names.some((n) => hasControlChars(n)), 'the parser keeps the planted characters in the thread name (they are data)');
  const outputs = await renderAll(analysis);
  for (const [format, text] of Object.entries(outputs)) assert.equal(firstControl(text), null, `${format}: raw control character`);
  assert.ok(outputs['text']!.includes('\\x07'), 'text shows BEL as \\x07');
});

test('CLI: every --format prints no raw control character from a hostile dump, colour forced on', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-escape-'));
  try {
    const file = join(dir, 'hostile.txt');
    writeFileSync(file, plantedAbba('\u0007\b\r\u202e\u009b\u001bZ'));
    for (const format of FORMATS) {
      const colour = runWaitgraph(['--format', format, file], { env: { FORCE_COLOR: '3', NO_COLOR: '' } });
      assert.equal(colour.code, 1, `${format}: deadlock found (stderr: ${colour.stderr})`);
      assert.equal(firstControl(colour.stdout.replace(OWN_SGR, '')), null, `${format}: raw control character`);
      assert.equal(firstControl(colour.stderr), null, `${format}: stderr`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('CLI: file names and option text with control characters are shown escaped in error lines and headers', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-escape-names-'));
  try {
    const missing = runWaitgraph([join(dir, 'evil\u001b[2J\u0007.txt')]);
    assert.equal(missing.code, 2);
    assert.equal(firstControl(missing.stderr), null, missing.stderr);
    assert.match(missing.stderr, /evil\\x1b\[2J\\x07\.txt$/m);
    const option = runWaitgraph(['--x\u001b]8;;http://evil\u0007']);
    assert.equal(option.code, 2);
    assert.equal(firstControl(option.stderr), null, option.stderr);
    const hostileName = join(dir, 'dump\u001b[31m.txt');
    writeFileSync(hostileName, plantedAbba(''));
    const two = runWaitgraph([hostileName, hostileName]);
    assert.equal(two.code, 1, two.stderr);
    assert.equal(firstControl(two.stdout), null, 'the per-file header shows the name escaped');
    assert.match(two.stdout, /== .*dump\\x1b\[31m\.txt ==/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
