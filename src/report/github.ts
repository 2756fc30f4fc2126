/**
 * `--format github`: GitHub Actions workflow commands that annotate the dump's own lines
 * (`::error file=dumps/x.txt,line=118,title=…::…`), so a pull request that adds or changes a dump
 * shows each finding where the thread waits. `waitgraph check --format github` prints the same
 * for every dump it analyses, plus one annotation per mismatch (cli/commands/check.ts).
 *
 * A deadlock is one `error` at the first wait of its cycle (the message: the cycle, the fix, the
 * signature) and a `notice` at each other wait and hold inside it; a hang is one `warning` at the
 * first hung thread and a `notice` at each other; a crash is a `notice` where it shows. GitHub shows at most 10 annotations of each
 * level per step, which is why a finding is one error or warning and the rest notices (the
 * SARIF log holds everything).
 *
 * Safety: a workflow command is one line; the runner reads `%`, CR and LF escaped in the message,
 * and `:` and `,` too in properties (as @actions/core writes them). Text from the dump is escaped
 * so, after sanitize.ts made control characters visible: a thread name cannot end the line and
 * start a command of its own (`::add-mask::`, `::stop-commands::`).
 */
import type { Analysis, Deadlock, FrameRef, ThreadKey } from '../model/analysis.js';
import { capitalise, deadlockRows, siteText, threadList, threadsByKey, threadTitle, verdictLine } from './cycle-view.js';
import { sanitizeAnalysis } from './sanitize.js';

export type AnnotationLevel = 'error' | 'warning' | 'notice';

export interface Annotation {
  level: AnnotationLevel;
  /** 1-based line in the dump, when the finding has one. */
  line?: number;
  title: string;
  message: string;
}

export interface GithubOptions {
  /** The dump's path as the workflow sees it (relative to the repository root); absent for stdin. */
  file?: string;
}

/** The whole `--format github` report: the findings' annotations, or one notice that there are none. */
export function renderGithub(analysis: Analysis, options: GithubOptions = {}): string {
  const annotations = githubAnnotations(analysis);
  if (annotations.length === 0) annotations.push({ level: 'notice', title: 'waitgraph', message: verdictLine(sanitizeAnalysis(analysis)) });
  return annotations.map((a) => workflowCommand(a, options.file)).join('');
}

/** The annotations of an analysis' findings (none for a healthy dump). */
export function githubAnnotations(analysis: Analysis): Annotation[] {
  analysis = sanitizeAnalysis(analysis); // control characters from the dump made visible (sanitize.ts)
  const out: Annotation[] = [];
  for (const deadlock of analysis.deadlocks) for (const a of deadlockAnnotations(analysis, deadlock)) out.push(a);
  for (const a of hangAnnotations(analysis)) out.push(a);
  const crash = analysis.crash;
  if (crash) {
    // A crash alone is exit 0 (the process died; nothing waits), so it is a notice, on the line
    // that shows it: the signal line, else the crash frame, else where it went wrong.
    const line = crash.sourceLine ?? crash.crashFrame?.sourceLine ?? crash.site?.sourceLine;
    out.push({
      level: 'notice',
      ...(line !== undefined && line > 0 ? { line } : lineOf(analysis, null, crash.thread)),
      title: `waitgraph: Crash (${threadTitle(crash.thread)}${crash.signal ? `, ${crash.signal}` : ''})`,
      message: `${crash.text}.`,
    });
  }
  return out;
}

function deadlockAnnotations(analysis: Analysis, deadlock: Deadlock): Annotation[] {
  const title = `waitgraph: ${capitalise(deadlock.title)} (${deadlock.threads.length === 1 ? 'thread' : 'threads'} ${threadList(deadlock.threads)})`;
  const rows = deadlockRows(analysis, deadlock);
  const steps = rows.map((row) => {
    const tag = row.wait.evidence === 'inferred' || row.hold?.evidence === 'inferred' ? 'inferred' : 'proven';
    const resource = row.resource ?? row.wait.allOf ?? null;
    if (!row.hold) return `${threadTitle(row.waiter)} ${row.wait.description}${resource ? ` (${resource})` : ''}: ${threadTitle(row.holder)}${row.wait.viaState ? ` (${row.wait.viaState})` : ''} [${tag}]`;
    return `${threadTitle(row.waiter)} ${row.wait.description}${resource ? ` (${resource})` : ''}, held by ${threadTitle(row.holder)}, ${row.hold.description} [${tag}]`;
  });
  const first = rows[0];
  const out: Annotation[] = [
    {
      level: 'error',
      ...lineOf(analysis, first?.wait.site ?? null, first?.waiter ?? deadlock.threads[0]),
      title,
      message: [
        `Threads ${threadList(deadlock.threads)} wait for each other (evidence: ${deadlock.evidence}; signature ${deadlock.signature}).`,
        ...steps,
        `Fix: ${deadlock.fix}`,
      ].join('\n'),
    },
  ];
  const seen = new Set<number>(out[0]!.line !== undefined ? [out[0]!.line] : []);
  const notice = (site: FrameRef | null, key: ThreadKey, message: string): void => {
    const at = lineOf(analysis, site, key);
    if (at.line === undefined || seen.has(at.line)) return;
    seen.add(at.line);
    out.push({ level: 'notice', ...at, title, message });
  };
  rows.forEach((row, index) => {
    if (index > 0) notice(row.wait.site, row.waiter, steps[index]!);
    if (row.hold) notice(row.hold.site, row.holder, `${threadTitle(row.holder)} holds ${row.resource}: ${row.hold.description} [${row.hold.evidence}]`);
  });
  return out;
}

function hangAnnotations(analysis: Analysis): Annotation[] {
  if (analysis.hung.length === 0) return [];
  const threads = threadsByKey(analysis);
  const reasons = new Map((analysis.hangReasons ?? []).map((r) => [r.thread, r.text]));
  const title = `waitgraph: Hang (${analysis.hung.length === 1 ? 'thread' : 'threads'} ${threadList(analysis.hung)})`;
  return analysis.hung.map((key, index): Annotation => {
    const thread = threads.get(key);
    const what = reasons.get(key) ?? thread?.stateText ?? 'waits';
    const site = thread?.acquireSite ?? null;
    return {
      level: index === 0 ? 'warning' : 'notice',
      ...lineOf(analysis, site, key),
      title,
      message: `${threadTitle(key)} ${what}${site ? ` in ${siteText(site)}` : ''}; it waits with no time limit for something that is not released.`,
    };
  });
}

/** The dump line of a site, else of the thread's acquire site, else of its backtrace's header. */
function lineOf(analysis: Analysis, site: FrameRef | null, key: ThreadKey | undefined): { line?: number } {
  if (site && site.sourceLine > 0) return { line: site.sourceLine };
  const thread = key === undefined ? undefined : analysis.threads.find((t) => t.key === key);
  if (thread?.acquireSite && thread.acquireSite.sourceLine > 0) return { line: thread.acquireSite.sourceLine };
  const start = thread ? analysis.dump.backtraces[thread.backtrace]?.startLine : undefined;
  return start !== undefined && start > 0 ? { line: start } : {};
}

/** One workflow command line: `::error file=…,line=…,title=…::message`. */
export function workflowCommand(annotation: Annotation, file?: string): string {
  const properties: string[] = [];
  if (file !== undefined && file !== '' && file !== '-') properties.push(`file=${escapeProperty(file)}`);
  if (annotation.line !== undefined) properties.push(`line=${annotation.line}`);
  properties.push(`title=${escapeProperty(annotation.title)}`);
  return `::${annotation.level} ${properties.join(',')}::${escapeData(annotation.message)}\n`;
}

/** The runner's escapes for a command's message (as @actions/core's escapeData). */
export function escapeData(text: string): string {
  return text.replace(/%/g, '%25').replace(/\r/g, '%0D').replace(/\n/g, '%0A');
}

/** The runner's escapes for a command's property value (as @actions/core's escapeProperty). */
export function escapeProperty(text: string): string {
  return escapeData(text).replace(/:/g, '%3A').replace(/,/g, '%2C');
}
