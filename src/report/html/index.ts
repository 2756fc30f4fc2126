/**
 * `--format html`: one self-contained page that opens from `file://` with no network. It shows the
 * verdict, each deadlock's waits (as the Markdown table does), the whole wait-for graph as inline
 * SVG (Graphviz in WebAssembly, as `--format svg`), and every thread's stack grouped as `--group`
 * groups them, groups collapsed. A click on a thread (in the table, the graph or a group) shows its
 * stack in the side panel with the frames that decided the verdict marked; a search box filters
 * the groups by function.
 *
 * Safety: every string from the dump is HTML-escaped (after sanitize.ts made control characters
 * visible); the JSON data block escapes `<`, so no text can close it; Graphviz's SVG is inlined
 * without its comments. A Content-Security-Policy meta tag allows nothing but the page's own
 * inline script and style, named by their SHA-256 hashes computed here: no other script, style,
 * font, image or connection, no `eval`, no inline event handlers. The page script is
 * html/client.ts, read as tsc compiled it, so the library and the CLI bundle embed the same bytes.
 *
 * Weight: each group's stack is printed once (as the text report's `--group` section does), and
 * only the threads of the verdict get their own stack besides; per-thread data is one short row.
 * `npm run bench` prints the page's size against the text report's on the 10,000-thread dump.
 */
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { Analysis, Deadlock, Edge, ThreadAnalysis, ThreadKey } from '../../model/analysis.js';
import { compareThreadKeys, parseNodeId } from '../../model/ids.js';
import { escapeJsonInvisibles } from '../../model/text-hygiene.js';
import { capitalise, deadlockRows, evidenceLabel, siteText, sourceHoldLines, stepEvidence, threadsByKey, threadTitle, verdictLine } from '../cycle-view.js';
import {
  frameParts,
  groupThreads,
  groupTitle,
  groupsByImportance,
  stackLines,
  threadBacktraceIndexes,
  threadBacktraces,
  type GroupMode,
  type StackLine,
  type ThreadGroup,
} from '../group.js';
import { escapeHtml } from '../markdown.js';
import { sanitizeAnalysis } from '../sanitize.js';
import { renderSvg } from '../svg.js';
import type { Hit, HitKind, PageData, ThreadRow } from './data.js';
import { PAGE_STYLE } from './style.js';

export interface HtmlOptions {
  /** How alike stacks must be to be shown once. Default `functions`, as the Markdown report. */
  group?: GroupMode;
}

export async function renderHtml(analysis: Analysis, options: HtmlOptions = {}): Promise<string> {
  analysis = sanitizeAnalysis(analysis); // control characters from the dump made visible (sanitize.ts)
  const groups = groupsByImportance(analysis, groupThreads(analysis, options.group ?? 'functions'));
  const stacks = buildStacks(analysis, groups);
  const svg = inlineSvg(await renderSvg(analysis));
  const script = clientScript();
  const csp = [
    "default-src 'none'",
    `script-src '${sha256(script)}'`,
    `style-src '${sha256(PAGE_STYLE)}'`,
    "base-uri 'none'",
    "form-action 'none'",
  ].join('; ');
  const verdict = verdictLine(analysis);
  const s = analysis.stats;
  const out: string[] = [
    '<!DOCTYPE html>',
    '<html lang="en">',
    '<head>',
    '<meta charset="utf-8">',
    `<meta http-equiv="Content-Security-Policy" content="${csp}">`,
    '<meta name="viewport" content="width=device-width, initial-scale=1">',
    '<meta name="generator" content="waitgraph">',
    `<title>${escapeHtml(verdict)} · waitgraph</title>`,
    `<style>${PAGE_STYLE}</style>`,
    '</head>',
    '<body>',
    '<header>',
    `<h1 class="verdict ${analysis.verdict}">${escapeHtml(verdict)}</h1>`,
    `<p class="sub">waitgraph report · ${s.threads} ${s.threads === 1 ? 'thread' : 'threads'} · ${s.lines} input lines</p>`,
    '</header>',
    '<div class="layout">',
    '<main>',
    '<section id="graph">',
    '<p class="legend">The wait-for graph. Red: the deadlock. Dashed edges are <span class="ev inferred">inferred</span> from frame rules, solid ones <span class="ev proven">proven</span> by the dump. Click a thread to see its stack.</p>',
    `<div class="svg">${svg}</div>`,
    '</section>',
  ];
  analysis.deadlocks.forEach((deadlock, index) => out.push(deadlockSection(analysis, deadlock, analysis.deadlocks.length > 1 ? index + 1 : null)));
  out.push(whySection(analysis), hangSection(analysis), candidatesSection(analysis), sourceSection(analysis), unresolvedSection(analysis), ownersSection(analysis));
  out.push(
    '<section id="threads">',
    `<h2>Threads <span class="count">(${s.threads} in ${groups.length} ${groups.length === 1 ? 'group' : 'groups'}, alike stacks shown once)</span></h2>`,
    '<p class="search"><label for="q">Filter by function</label> <input id="q" type="search" placeholder="e.g. pthread_mutex_lock" autocomplete="off" spellcheck="false"> <output id="q-count" for="q"></output></p>',
  );
  for (const line of stacks.groupHtml) out.push(line); // no spread: 10,000 groups
  for (const line of stacks.ownHtml) out.push(line);
  out.push('</section>', inputSection(analysis), '</main>');
  out.push(
    '<aside id="panel" aria-live="polite">',
    '<h2 id="p-title">Stack</h2>',
    '<p id="p-state">Click a thread in the table, the graph or a group to see its stack.</p>',
    '<ul id="p-notes"></ul>',
    '<div id="p-stack" class="st"></div>',
    '</aside>',
    '</div>',
    `<script type="application/json" id="wg-data">${jsonForScript(stacks.data)}</script>`,
    `<script>${script}</script>`,
    '</body>',
    '</html>',
  );
  return `${out.filter((line) => line !== '').join('\n')}\n`;
}

// ---------------------------------------------------------------------------------------------
// Stacks: one per group, plus the verdict's threads' own, and the marked lines of each thread.

interface Stacks {
  groupHtml: string[];
  ownHtml: string[];
  data: PageData;
}

function buildStacks(analysis: Analysis, groups: readonly ThreadGroup[]): Stacks {
  const threads = threadsByKey(analysis);
  const verdictThreads = new Set<ThreadKey>(analysis.hung);
  for (const deadlock of analysis.deadlocks) for (const key of deadlock.threads) verdictThreads.add(key);

  const notes = new Notes();
  const hitsByThread = collectHits(analysis, verdictThreads, notes);

  const groupOf = new Map<ThreadKey, number>();
  const groupHtml: string[] = [];
  const shownLines = new Map<ThreadKey, StackLine[]>();
  groups.forEach((group, index) => {
    for (const key of group.threads) groupOf.set(key, index);
    const representative = threads.get(group.representative);
    const lines = representative ? linesOf(analysis, representative) : [];
    for (const key of group.threads) shownLines.set(key, lines);
    const marked = new Set((hitsByThread.get(group.representative) ?? []).filter((h) => h.kind === 'verdict').map((h) => positionKey(h)));
    groupHtml.push(
      `<details class="g" id="g${index}"><summary>${escapeHtml(groupTitle(group))}</summary><div class="members" data-g="${index}"></div>` +
        `<pre class="st">${stackHtml(lines, marked)}</pre></details>`,
    );
  });

  // The verdict's threads get their own stack when it reads differently from their group's (the
  // pointers in their arguments, a different line): their marked frames are theirs.
  const own: string[] = [];
  const ownHtml: string[] = [];
  for (const key of [...verdictThreads].sort(compareThreadKeys)) {
    const thread = threads.get(key);
    if (!thread) continue;
    const lines = linesOf(analysis, thread);
    const shared = shownLines.get(key);
    if (shared && sameText(lines, shared)) continue;
    shownLines.set(key, lines);
    own.push(key);
    const marked = new Set((hitsByThread.get(key) ?? []).filter((h) => h.kind === 'verdict').map((h) => positionKey(h)));
    ownHtml.push(`<template id="own-${escapeHtml(key)}"><pre class="st">${stackHtml(lines, marked)}</pre></template>`);
  }

  const rows: ThreadRow[] = [...analysis.threads]
    .sort((a, b) => compareThreadKeys(a.key, b.key))
    .map((t) => [t.key, groupOf.get(t.key) ?? -1, t.lwp, t.name]);

  // A thread's marks point at lines of the stack it is shown with: its own frames map to the same
  // positions in its group's stack (a group shares its functions frame by frame).
  const hits: Record<string, Hit[]> = {};
  for (const [key, list] of hitsByThread) {
    const lines = shownLines.get(key);
    const thread = threads.get(key);
    if (!lines || !thread || list.length === 0) continue;
    const frameLines: number[] = [];
    lines.forEach((line, index) => {
      if (line.frame) frameLines.push(index);
    });
    const positions = framePositions(analysis, thread);
    const mapped: Hit[] = [];
    const seen = new Set<string>();
    for (const hit of list) {
      const position = positions.get(positionKey(hit));
      const line = position === undefined ? undefined : frameLines[position];
      if (line === undefined) continue;
      const id = `${line}:${hit.note}:${hit.kind}`;
      if (seen.has(id)) continue;
      seen.add(id);
      mapped.push([line, hit.note, hit.kind]);
    }
    if (mapped.length > 0) hits[key] = mapped.sort((a, b) => a[0] - b[0] || a[1] - b[1]);
  }

  const first = analysis.deadlocks[0]?.threads[0] ?? analysis.hung[0] ?? null;
  const data: PageData = {
    threads: rows,
    groups: groups.map((g) => g.stateText),
    own,
    hits,
    notes: notes.list,
    resources: resourceLinks(analysis),
    first,
  };
  return { groupHtml, ownHtml, data };
}

interface RawHit {
  backtrace: number;
  level: number;
  note: number;
  kind: HitKind;
}

const positionKey = (hit: { backtrace: number; level: number }): string => `${hit.backtrace}:${hit.level}`;

/** Each thread's marked frames: rule edges from its frames (the verdict's marked as such) and its acquire site. */
function collectHits(analysis: Analysis, verdictThreads: ReadonlySet<ThreadKey>, notes: Notes): Map<ThreadKey, RawHit[]> {
  const verdictEdges = new Set<Edge>();
  for (const deadlock of analysis.deadlocks) {
    for (const row of deadlockRows(analysis, deadlock)) {
      verdictEdges.add(row.wait);
      if (row.hold) verdictEdges.add(row.hold);
    }
  }
  const hung = new Set(analysis.hung);
  const ownerOf = new Map<number, ThreadKey>();
  for (const thread of analysis.threads) for (const index of threadBacktraceIndexes(analysis.dump, thread)) ownerOf.set(index, thread.key);
  const hits = new Map<ThreadKey, RawHit[]>();
  const add = (key: ThreadKey, hit: RawHit): void => {
    const list = hits.get(key);
    if (list) list.push(hit);
    else hits.set(key, [hit]);
  };
  for (const edge of analysis.edges) {
    if (!edge.site) continue;
    const key = ownerOf.get(edge.site.backtrace);
    if (key === undefined) continue;
    const decided = verdictEdges.has(edge) || (hung.has(key) && edge.kind !== 'holds' && edge.from === `thread:${key}`);
    add(key, { backtrace: edge.site.backtrace, level: edge.site.level, note: notes.id(edgeNote(edge)), kind: decided ? 'verdict' : 'rule' });
  }
  for (const key of verdictThreads) {
    const site = analysis.threads.find((t) => t.key === key)?.acquireSite;
    if (site) add(key, { backtrace: site.backtrace, level: site.level, note: notes.id('where it waits: the first frame above the wait primitives'), kind: 'site' });
  }
  return hits;
}

/** `waits for the lazy compile of a JIT trampoline (orc:lazy-compile) [inferred] · rule orc.reenter-wait`. */
function edgeNote(edge: Edge): string {
  const to = parseNodeId(edge.to);
  const from = parseNodeId(edge.from);
  let text: string;
  if (edge.kind === 'holds') text = `holds ${from.key}: ${edge.description}`;
  else if (edge.kind === 'waits-thread') text = `${edge.description}: ${threadTitle(to.key)}${edge.viaState ? ` (${edge.viaState})` : ''}`;
  else text = `${edge.description} (${to.key})${edge.timed ? ', with a time limit' : ''}`;
  return `${text} [${edge.evidence}] · rule ${edge.ruleId}`;
}

class Notes {
  readonly list: string[] = [];
  private readonly index = new Map<string, number>();
  id(text: string): number {
    let n = this.index.get(text);
    if (n === undefined) {
      n = this.list.length;
      this.list.push(text);
      this.index.set(text, n);
    }
    return n;
  }
}

function linesOf(analysis: Analysis, thread: ThreadAnalysis): StackLine[] {
  return stackLines(threadBacktraces(analysis.dump, thread), threadBacktraceIndexes(analysis.dump, thread));
}

/** `backtrace:level` of each of the thread's frames → its position in the thread's frames. */
function framePositions(analysis: Analysis, thread: ThreadAnalysis): Map<string, number> {
  const positions = new Map<string, number>();
  let position = 0;
  for (const index of threadBacktraceIndexes(analysis.dump, thread)) {
    for (const frame of analysis.dump.backtraces[index]!.frames) {
      const key = `${index}:${frame.level}`;
      if (!positions.has(key)) positions.set(key, position);
      position++;
    }
  }
  return positions;
}

function sameText(a: readonly StackLine[], b: readonly StackLine[]): boolean {
  return a.length === b.length && a.every((line, i) => line.text === b[i]!.text);
}

/** A stack's lines, function names in `<b>`, the lines in `marked` (by `backtrace:level`) in `<mark>`. */
function stackHtml(lines: readonly StackLine[], marked: ReadonlySet<string>): string {
  const out: string[] = [];
  for (const line of lines) {
    if (!line.frame) {
      out.push(escapeHtml(line.text));
      continue;
    }
    const { before, name, after } = frameParts(line.frame.frame);
    const html = `${escapeHtml(before)}<b>${escapeHtml(name)}</b>${escapeHtml(after)}`;
    out.push(marked.has(`${line.frame.backtrace}:${line.frame.frame.level}`) ? `<mark>${html}</mark>` : html);
  }
  return out.join('\n');
}

/** Graph resource nodes → the threads that wait for and hold each, for the panel. */
function resourceLinks(analysis: Analysis): Record<string, { waiters: string[]; holders: string[] }> {
  const links = new Map<string, { waiters: Set<string>; holders: Set<string> }>();
  const entry = (id: string): { waiters: Set<string>; holders: Set<string> } => {
    let e = links.get(id);
    if (!e) links.set(id, (e = { waiters: new Set(), holders: new Set() }));
    return e;
  };
  for (const edge of analysis.edges) {
    const from = parseNodeId(edge.from);
    const to = parseNodeId(edge.to);
    if (edge.kind === 'waits' && from.kind === 'thread' && to.kind === 'resource') entry(edge.to).waiters.add(from.key);
    if (edge.kind === 'holds' && from.kind === 'resource' && to.kind === 'thread') entry(edge.from).holders.add(to.key);
  }
  const out: Record<string, { waiters: string[]; holders: string[] }> = {};
  for (const id of [...links.keys()].sort()) {
    const e = links.get(id)!;
    out[id] = { waiters: [...e.waiters].sort(compareThreadKeys), holders: [...e.holders].sort(compareThreadKeys) };
  }
  return out;
}

// ---------------------------------------------------------------------------------------------
// Sections.

function threadButton(key: ThreadKey, label = threadTitle(key)): string {
  return `<button type="button" class="t" data-t="${escapeHtml(key)}">${escapeHtml(label)}</button>`;
}

function threadButtons(keys: readonly ThreadKey[]): string {
  return keys.map((key) => threadButton(key, /^\d+$/.test(key) ? key : threadTitle(key))).join(', ');
}

function evidenceBadge(evidence: string): string {
  return `<span class="ev ${evidence.startsWith('inferred') ? 'inferred' : 'proven'}">${escapeHtml(evidence)}</span>`;
}

/** The holds read from the code (`--source`), each with its line. */
function sourceSection(analysis: Analysis): string {
  const lines = sourceHoldLines(analysis);
  if (lines.length === 0) return '';
  return ['<section class="source">', '<h2>Held, as the source shows (<code>--source</code>)</h2>', '<ul>', ...lines.map((l) => `<li>${ruleTextHtml(l)}</li>`), '</ul>', '</section>'].join('\n');
}

function deadlockSection(analysis: Analysis, deadlock: Deadlock, number: number | null): string {
  const threads = threadsByKey(analysis);
  const out: string[] = ['<section class="deadlock">'];
  if (number !== null) out.push(`<h2>${number}. ${escapeHtml(capitalise(deadlock.title))}</h2>`);
  out.push(
    `<p>Threads ${threadButtons(deadlock.threads)} wait for each other. Evidence: ${evidenceBadge(evidenceLabel(deadlock))}` +
      `${deadlock.evidence === 'inferred' ? (evidenceLabel(deadlock) === 'inferred' ? ' (from frame rules; no owner was read from memory)' : ' (holds read from the code the frames point at; no owner was read from memory)') : ''}. Signature: <code>${escapeHtml(deadlock.signature)}</code>.</p>`,
  );
  out.push('<table class="rows"><thead><tr><th>Thread</th><th>waits for</th><th>held by</th><th>evidence</th><th>where it waits</th></tr></thead><tbody>');
  for (const row of deadlockRows(analysis, deadlock)) {
    const resource = row.resource ?? row.wait.allOf ?? null;
    const waitsFor = `${resource === null ? '' : `<code>${escapeHtml(resource)}</code> `}${escapeHtml(row.wait.description)}`;
    const heldBy = row.hold
      ? `${threadButton(row.holder)} ${escapeHtml(row.hold.description)}`
      : `${threadButton(row.holder)}${row.wait.viaState ? ` (${escapeHtml(row.wait.viaState)})` : ''}`;
    const evidence = row.hold?.basis === 'source'
      ? `wait ${evidenceBadge(row.wait.evidence)}, hold ${evidenceBadge(stepEvidence(row.wait, row.hold))}`
      : row.hold && row.hold.evidence !== row.wait.evidence
        ? `wait ${evidenceBadge(row.wait.evidence)}, hold ${evidenceBadge(row.hold.evidence)}`
        : evidenceBadge(row.hold?.evidence === 'inferred' ? 'inferred' : row.wait.evidence);
    // Where the waiter waits: its first frame outside lock and runtime libraries, not the rule's site (`___pthread_mutex_lock`).
    const site = threads.get(row.waiter)?.acquireSite ?? row.wait.site ?? null;
    out.push(
      `<tr${row.onCycle ? ' class="cycle"' : ''}><td>${threadButton(row.waiter)}</td><td>${waitsFor}</td><td>${heldBy}</td><td>${evidence}</td>` +
        `<td>${site ? `<code>${escapeHtml(siteText(site))}</code>` : ''}</td></tr>`,
    );
  }
  out.push('</tbody></table>');
  out.push(`<h3>Why</h3><p>${ruleTextHtml(deadlock.explanation)}</p>`);
  out.push(`<h3>Fix</h3><p class="fix">${ruleTextHtml(deadlock.fix)}</p>`);
  if (deadlock.blockedBehind.length > 0) {
    out.push(`<p><strong>Blocked behind it:</strong> ${deadlock.blockedBehind.length === 1 ? 'thread' : 'threads'} ${threadButtons(deadlock.blockedBehind)}.</p>`);
  }
  out.push(`<p class="rules">Rules: ${deadlock.rules.map((id) => `<code>${escapeHtml(id)}</code>`).join(', ')}</p>`);
  out.push('</section>');
  return out.join('\n');
}

/** Why a hang is a hang and ok is ok (a deadlock's section says it itself). */
function whySection(analysis: Analysis): string {
  const why = analysis.deadlocks.length === 0 ? (analysis.verdictReasons ?? []).filter((r) => r.kind !== 'nothing-blocked') : [];
  if (why.length === 0) return '';
  return ['<section class="why">', '<h2>Why</h2>', '<ul>', ...why.map((r) => `<li>${escapeHtml(r.text)}</li>`), '</ul>', '</section>'].join('\n');
}

/** The cycles that may hold when the text does not show who holds the locks, with the commands that settle them. */
function candidatesSection(analysis: Analysis): string {
  const cycles = analysis.candidateCycles ?? [];
  if (cycles.length === 0) return '';
  const out = ['<section class="candidates">', '<h2>Candidate cycles</h2>', '<p>The text does not show who holds what these threads wait for; these cycles may hold, smallest first.</p>', '<ul>'];
  for (const cycle of cycles) {
    const proofs = [
      ...cycle.gdbCommands.map((command) => `<li>prove it: <code>${escapeHtml(command)}</code></li>`),
      ...cycle.unprovable.map((what) => `<li>no gdb command names the holder of ${escapeHtml(what)}</li>`),
    ];
    out.push(`<li>${cycle.threads.length === 1 ? 'thread' : 'threads'} ${threadButtons(cycle.threads)}: ${escapeHtml(cycle.text)}${proofs.length > 0 ? `<ul>${proofs.join('')}</ul>` : ''}</li>`);
  }
  out.push('</ul>', '</section>');
  return out.join('\n');
}

function hangSection(analysis: Analysis): string {
  if (analysis.hung.length === 0) return '';
  const threads = threadsByKey(analysis);
  const reasons = new Map((analysis.hangReasons ?? []).map((r) => [r.thread, r.text]));
  const out = ['<section class="hang">', '<h2>Hung threads</h2>', '<ul>'];
  for (const key of analysis.hung) {
    const thread = threads.get(key);
    const what = reasons.get(key) ?? thread?.stateText ?? '';
    out.push(`<li>${threadButton(key)} ${escapeHtml(what)}${thread?.acquireSite ? ` in <code>${escapeHtml(siteText(thread.acquireSite))}</code>` : ''}</li>`);
  }
  out.push('</ul>');
  const behind = analysis.hangBlockedBehind ?? [];
  if (behind.length > 0) {
    out.push(`<p><strong>Blocked behind ${analysis.hung.length === 1 ? 'it' : 'them'}:</strong> ${behind.length === 1 ? 'thread' : 'threads'} ${threadButtons(behind)}.</p>`);
  }
  out.push('</section>');
  return out.join('\n');
}

function unresolvedSection(analysis: Analysis): string {
  if (analysis.unresolved.length === 0) return '';
  const out = ['<section class="unresolved">', '<h2>Waits with no known holder</h2>', '<ul>'];
  for (const wait of analysis.unresolved) {
    let line = `<li>${threadButton(wait.thread)} ${escapeHtml(wait.description)} (<code>${escapeHtml(wait.resource)}</code>, rule <code>${escapeHtml(wait.ruleId)}</code>)`;
    if (wait.gdbCommand) line += `; ask gdb: <code>${escapeHtml(wait.gdbCommand)}</code>`;
    else if (wait.holderHint) line += `; to find who holds it: ${escapeHtml(wait.holderHint)}`;
    out.push(`${line}</li>`);
  }
  out.push('</ul>', '</section>');
  return out.join('\n');
}

function ownersSection(analysis: Analysis): string {
  if (analysis.facts.length === 0) return '';
  const out = ['<section class="owners">', '<h2>Lock owners</h2>', '<ul>'];
  for (const fact of analysis.facts) {
    const holder = [
      fact.holder.threadId !== undefined ? `thread ${fact.holder.threadId}` : null,
      fact.holder.lwp !== undefined ? `LWP ${fact.holder.lwp}` : null,
      fact.holder.ptid !== undefined ? `pthread ${fact.holder.ptid}` : null,
    ].filter((part): part is string => part !== null);
    let line = `<li><code>${escapeHtml(fact.resource)}</code> is held by ${escapeHtml(holder.join(', '))}`;
    line += fact.origin === 'gdb' ? ' (asked of gdb' : ' (printed in the dump';
    if (fact.sourceLine !== null) line += ` at line ${fact.sourceLine}`;
    line += ')';
    if (fact.query) line += `: <code>${escapeHtml(fact.query)}</code>${fact.answer !== null ? ` → <code>${escapeHtml(fact.answer)}</code>` : ''}`;
    out.push(`${line}</li>`);
  }
  out.push('</ul>', '</section>');
  return out.join('\n');
}

function inputSection(analysis: Analysis): string {
  const s = analysis.stats;
  const out = [
    '<section id="input">',
    '<h2>Input</h2>',
    `<p>${s.lines} lines, ${s.backtraces} backtraces, ${s.threads} threads, ${s.frames} frames; ${s.ignoredLines} ${s.ignoredLines === 1 ? 'line' : 'lines'} not part of any backtrace.</p>`,
  ];
  if (analysis.notes.length > 0) {
    out.push('<ul class="notes">');
    for (const note of analysis.notes) out.push(`<li>${ruleTextHtml(note)}</li>`);
    out.push('</ul>');
  }
  out.push('</section>');
  return out.join('\n');
}

/** Rule-authored text: `code spans` become `<code>`, everything is escaped. */
export function ruleTextHtml(text: string): string {
  return text
    .split(/(`[^`\n]+`)/)
    .map((part, index) => (index % 2 === 1 ? `<code>${escapeHtml(part.slice(1, -1))}</code>` : escapeHtml(part)))
    .join('');
}

// ---------------------------------------------------------------------------------------------
// Page parts.

/**
 * Graphviz's SVG document as an inline element: the XML prolog, doctype and comments dropped
 * (a comment holds node ids from the dump; Graphviz escapes them, but markup that is not needed
 * is not kept), the root given an id and a label.
 */
export function inlineSvg(svg: string): string {
  const start = svg.indexOf('<svg');
  const body = (start >= 0 ? svg.slice(start) : svg).replace(/<!--[\s\S]*?-->\n?/g, '').trimEnd();
  return body.replace(/^<svg\b/, '<svg id="graph-svg" role="img" aria-label="wait-for graph"');
}

/** JSON inside `<script type="application/json">`: `<` escaped so nothing can close the element. */
export function jsonForScript(value: unknown): string {
  return escapeJsonInvisibles(JSON.stringify(value)).replace(/</g, '\\u003c').replace(/>/g, '\\u003e').replace(/&/g, '\\u0026');
}

/** `sha256-…` of a script or style element's text, for the Content-Security-Policy. */
export function sha256(text: string): string {
  return `sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}`;
}

/**
 * The page script: html/client.ts as tsc wrote it next to this module, without the lines only a
 * module file has (`export {};`, the source-map comment).
 */
function clientScript(): string {
  const text = readFileSync(new URL('./client.js', import.meta.url), 'utf8');
  return `\n${text
    .split('\n')
    .filter((line) => line !== 'export {};' && !line.startsWith('//# sourceMappingURL='))
    .join('\n')
    .trim()}\n`;
}
