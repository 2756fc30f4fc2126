/**
 * The Markdown report: pasted into a GitHub or GitLab issue, it renders as a verdict heading, the
 * deadlock's edges as a table, a Mermaid picture of the cycle, the fix, and every thread's stack
 * folded in `<details>` (grouped, so 60 identical workers take one block).
 *
 * Strings from the dump (function names, paths, thread names, resource ids) are escaped for the
 * context they land in: inline code (with `|` escaped inside tables), HTML (`<summary>`), or a
 * fence longer than any backtick run in the stack. Rule-authored text (explanation, fix) keeps its
 * `code spans` but cannot inject HTML.
 */
import type { Analysis, Deadlock, ThreadAnalysis } from '../model/analysis.js';
import {
  capitalise,
  crashLines,
  deadlockRows,
  evidenceLabel,
  holderClause,
  siteText,
  sourceHoldLines,
  stepEvidence,
  threadList,
  threadsByKey,
  threadTitle,
  verdictLine,
} from './cycle-view.js';
import { groupStackLines, groupThreads, groupTitle, groupsByImportance, type GroupMode } from './group.js';
import { mermaidForDeadlock, renderMermaid } from './mermaid.js';
import { sanitizeAnalysis } from './sanitize.js';
import { motionRows, seriesLine } from './motion-view.js';

export interface MarkdownOptions {
  /** How alike stacks must be to share a `<details>` block. Default `functions`. */
  group?: GroupMode;
}

export function renderMarkdown(analysis: Analysis, options: MarkdownOptions = {}): string {
  analysis = sanitizeAnalysis(analysis); // control characters from the dump made visible (sanitize.ts)
  const out: string[] = [];
  const threads = threadsByKey(analysis);
  out.push(`## ${escapeText(verdictLine(analysis))}`, '');
  if (analysis.partial !== undefined) out.push(`> **Partial paste:** ${escapeText(analysis.partial.text)} Capture it with \`${analysis.partial.command}\`.`, '');
  if (analysis.crash !== undefined) {
    if (analysis.verdict !== 'crash') out.push(`**Crash:** ${escapeText(analysis.crash.text)}.`, '');
    for (const line of crashLines(analysis.crash)) out.push(`- ${escapeText(line)}`);
    out.push('');
  }

  if (analysis.deadlocks.length === 1) {
    for (const line of deadlockSection(analysis, analysis.deadlocks[0]!, threads, null)) out.push(line);
  } else {
    analysis.deadlocks.forEach((deadlock, index) => {
      for (const line of deadlockSection(analysis, deadlock, threads, index + 1)) out.push(line); // no spread: a deadlock can have 100,000s of rows
    });
  }

  // Why a hang is a hang and ok is ok (a deadlock's cycle says it itself).
  const why = analysis.deadlocks.length === 0 ? (analysis.verdictReasons ?? []).filter((r) => r.kind !== 'nothing-blocked') : [];
  if (why.length > 0) {
    out.push('### Why', '');
    for (const r of why) out.push(`- ${escapeText(r.text)}`);
    out.push('');
  }

  if (analysis.hung.length > 0) {
    out.push(`### Hung threads`, '');
    const reasons = new Map((analysis.hangReasons ?? []).map((r) => [r.thread, r.text]));
    for (const key of analysis.hung) {
      const thread = threads.get(key);
      const what = reasons.get(key) ?? thread?.stateText ?? '';
      out.push(`- **${escapeText(threadTitle(key))}** ${escapeText(what)}${thread?.acquireSite ? ` in ${code(siteText(thread.acquireSite))}` : ''}`);
    }
    const behind = analysis.hangBlockedBehind ?? [];
    if (behind.length > 0) out.push('', `**Blocked behind ${analysis.hung.length === 1 ? 'it' : 'them'}:** ${behind.length === 1 ? 'thread' : 'threads'} ${threadList(behind)}.`);
    out.push('');
  }

  const candidates = analysis.candidateCycles ?? [];
  if (candidates.length > 0) {
    out.push('### Candidate cycles', '', 'The text does not show who holds what these threads wait for; these cycles may hold, smallest first.', '');
    candidates.forEach((cycle, i) => {
      out.push(`${i + 1}. **${cycle.threads.length === 1 ? 'thread' : 'threads'} ${threadList(cycle.threads)}**: ${escapeText(cycle.text)}`);
      for (const command of cycle.gdbCommands) out.push(`   - prove it: ${code(command)}`);
      for (const what of cycle.unprovable) out.push(`   - no gdb command names the holder of ${escapeText(what)}`);
    });
    out.push('');
  }

  // A hang has no cycle to draw; the whole wait-for graph shows where the waits lead.
  if (analysis.deadlocks.length === 0 && analysis.edges.length > 0) {
    out.push('```mermaid', renderMermaid(analysis).trimEnd(), '```', '');
  }

  if (analysis.unresolved.length > 0) {
    out.push('### Waits with no known holder', '');
    for (const wait of analysis.unresolved) {
      let line = `- **${escapeText(threadTitle(wait.thread))}** ${escapeText(wait.description)} (${code(wait.resource)}, rule ${code(wait.ruleId)})`;
      if (wait.gdbCommand) line += `; ask gdb: ${code(wait.gdbCommand)}`;
      else if (wait.holderHint) line += `; to find who holds it: ${escapeText(wait.holderHint)}`;
      out.push(line);
    }
    out.push('');
  }

  const fromSource = sourceHoldLines(analysis);
  if (fromSource.length > 0) {
    out.push('### Held, as the source shows (`--source`)', '');
    for (const line of fromSource) out.push(`- ${escapeRuleText(line)}`);
    out.push('');
  }

  if (analysis.facts.length > 0) {
    out.push('### Lock owners', '');
    for (const fact of analysis.facts) {
      const holder = [
        fact.holder.threadId !== undefined ? `thread ${fact.holder.threadId}` : null,
        fact.holder.lwp !== undefined ? `LWP ${fact.holder.lwp}` : null,
        fact.holder.ptid !== undefined ? `pthread ${fact.holder.ptid}` : null,
      ].filter((part): part is string => part !== null);
      let line = `- ${code(fact.resource)} is held by ${escapeText(holder.join(', '))}`;
      line += fact.origin === 'gdb' ? ' (asked of gdb' : ' (printed in the dump';
      if (fact.sourceLine !== null) line += ` at line ${fact.sourceLine}`;
      line += ')';
      if (fact.query) line += `: ${code(fact.query)}${fact.answer !== null ? ` → ${code(fact.answer)}` : ''}`;
      out.push(line);
    }
    out.push('');
  }

  if (analysis.snapshots !== undefined) {
    out.push(`### What moved (${escapeText(seriesLine(analysis.snapshots))})`, '', '| Thread | Motion | |', '| --- | --- | --- |');
    for (const r of motionRows(analysis)) {
      const who = `${escapeCell(`${threadTitle(r.key)}${r.record.lwp !== null ? ` (LWP ${r.record.lwp})` : ''}`)}${r.record.name ? ` ${code(r.record.name, true)}` : ''}`;
      out.push(`| ${who} | ${r.record.motion} | ${escapeCell(r.words)} |`);
    }
    out.push('');
  }

  out.push('### Threads', '');
  // The deadlock's and hung threads' stacks first: they are what the reader came for.
  for (const group of groupsByImportance(analysis, groupThreads(analysis, options.group ?? 'functions'))) {
    for (const line of detailsBlock(groupTitle(group), groupStackLines(group))) out.push(line); // no spread: a stack can be 100,000s of lines
  }

  out.push('### Input', '');
  const s = analysis.stats;
  out.push(`${s.lines} lines, ${s.backtraces} backtraces, ${s.threads} threads, ${s.frames} frames; ${s.ignoredLines} ${s.ignoredLines === 1 ? 'line' : 'lines'} not part of any backtrace.`);
  for (const note of analysis.notes) out.push(`- ${escapeRuleText(note)}`);
  out.push('');
  return `${out.join('\n').replace(/\n{3,}/g, '\n\n').trimEnd()}\n`;
}

function deadlockSection(
  analysis: Analysis,
  deadlock: Deadlock,
  threads: Map<string, ThreadAnalysis>,
  number: number | null,
): string[] {
  const out: string[] = [];
  if (number !== null) out.push(`### ${number}. ${escapeText(capitalise(deadlock.title))}`, '');
  out.push(
    `Threads **${threadList(deadlock.threads)}** wait for each other. Evidence: **${evidenceLabel(deadlock)}**` +
      `${deadlock.evidence === 'inferred' ? (evidenceLabel(deadlock) === 'inferred' ? ' (from frame rules; no owner was read from memory)' : ' (holds read from the code the frames point at; no owner was read from memory)') : ''}. Signature: ${code(deadlock.signature)}.`,
    '',
  );
  out.push(escapeRuleText(deadlock.explanation), '');

  out.push('| Thread | waits for | held by | evidence | where it waits |', '| --- | --- | --- | --- | --- |');
  for (const row of deadlockRows(analysis, deadlock)) {
    const resource = row.resource ?? row.wait.allOf ?? null;
    const waitsFor = resource === null ? escapeCell(row.wait.description) : `${code(resource, true)} ${escapeCell(row.wait.description)}`;
    const heldBy = row.hold
      ? `${escapeCell(threadTitle(row.holder))}${escapeCell(holderClause(row.hold))}`
      : `${escapeCell(threadTitle(row.holder))}${row.wait.viaState ? ` (${escapeCell(row.wait.viaState)})` : ''}`;
    const evidence = row.hold?.basis === 'source' ? `wait ${row.wait.evidence}, hold ${stepEvidence(row.wait, row.hold)}` : row.hold && row.hold.evidence !== row.wait.evidence ? `wait ${row.wait.evidence}, hold ${row.hold.evidence}` : row.wait.evidence;
    // Where the waiter waits: its first frame outside lock and runtime libraries, not the rule's site (`___pthread_mutex_lock`).
    const site = threads.get(row.waiter)?.acquireSite ?? row.wait.site ?? null;
    out.push(`| ${row.onCycle ? '**' : ''}${escapeCell(threadTitle(row.waiter))}${row.onCycle ? '**' : ''} | ${waitsFor} | ${heldBy} | ${evidence} | ${site ? code(siteText(site), true) : ''} |`);
  }
  out.push('', '```mermaid', mermaidForDeadlock(analysis, deadlock).trimEnd(), '```', '');
  out.push(`**Fix:** ${escapeRuleText(deadlock.fix)}`, '');
  if (deadlock.blockedBehind.length > 0) {
    out.push(`**Blocked behind it:** ${deadlock.blockedBehind.length === 1 ? 'thread' : 'threads'} ${threadList(deadlock.blockedBehind)}.`, '');
  }
  out.push(`<sub>Rules: ${deadlock.rules.map((id) => code(id)).join(', ')}</sub>`, '');
  return out;
}

function detailsBlock(summary: string, body: string[]): string[] {
  const fence = fenceFor(body.join('\n'));
  return ['<details>', `<summary>${escapeHtml(summary)}</summary>`, '', fence, ...body, fence, '', '</details>', ''];
}

/** A backtick fence longer than any run of backticks in the content (CommonMark §4.5). */
export function fenceFor(content: string): string {
  let longest = 0;
  for (const m of content.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  return '`'.repeat(Math.max(3, longest + 1));
}

/** Inline code that survives any content; in a table cell `|` is escaped (GFM reads it first). */
export function code(text: string, inTable = false): string {
  let body = text.replace(/[\r\n]+/g, ' ');
  let longest = 0;
  for (const m of body.matchAll(/`+/g)) longest = Math.max(longest, m[0].length);
  const ticks = '`'.repeat(longest + 1);
  if (body.startsWith('`') || body.endsWith('`') || (body.startsWith(' ') && body.endsWith(' ') && body.trim() !== '')) body = ` ${body} `;
  if (inTable) body = body.replace(/\|/g, '\\|');
  return `${ticks}${body}${ticks}`;
}

export function escapeHtml(text: string): string {
  return text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
}

/** Plain text that renders as itself: Markdown punctuation backslash-escaped, HTML neutralised. */
export function escapeText(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .replace(/[\\`*_{}[\]()#+\-.!|~]/g, (c) => (c === '.' || c === '-' || c === '(' || c === ')' || c === '!' ? c : `\\${c}`))
    .replace(/^([#+\-]|\d+\.)(?=\s)/, '\\$1')
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;');
}

function escapeCell(text: string): string {
  return escapeText(text);
}

/** Rule-authored text: keeps `code spans` as written, but HTML outside them is shown, not run. */
export function escapeRuleText(text: string): string {
  return text
    .replace(/[\r\n]+/g, ' ')
    .split(/(`+[^`]*`+)/)
    .map((part, index) => (index % 2 === 1 ? part : part.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;')))
    .join('');
}
