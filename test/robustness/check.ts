/**
 * The invariants every input must keep, checked on the public output only (shared by the property
 * tests and `npm run fuzz`):
 *
 * - parsing, analysis and every reporter return; nothing throws;
 * - every input line is accounted for: `stats.lines` is the input's line count, and each line is
 *   in a frame, a `bt full` local, an owner print, a signal line, the `ignored` list, or inside a backtrace's
 *   `startLine..endLine` (its header and trailers: `(More stack frames follow...)`,
 *   `Backtrace stopped: …`, `No locals.`, elision markers);
 * - counts agree (`stats.frames`, `stats.ignoredLines`, the analysis' stats);
 * - no report prints a raw control character (colour is off here, so there is no ESC at all).
 */
import { Chalk } from 'chalk';
import { DumpParser, parseDump, parseDumpStream } from '../../src/parse/index.js';
import { analyzeText } from '../../src/analyze/index.js';
import type { Dump } from '../../src/model/dump.js';
import { renderText } from '../../src/report/text.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderMermaid } from '../../src/report/mermaid.js';
import { renderDot } from '../../src/report/dot.js';
import { renderSvg } from '../../src/report/svg.js';
import { renderSarif } from '../../src/report/sarif.js';
import { renderHtml } from '../../src/report/html/index.js';
import { renderGithub } from '../../src/report/github.js';
import { htmlSafetyProblem } from './html-safety.js';
import { loadRules } from '../../src/rules/index.js';
import { firstControl } from './hostile.js';
import { exactAccountingProblems } from '../parse/fixtures.js';
import { prng } from '../helpers/prng.js';
export { prng };

const NO_COLOUR = new Chalk({ level: 0 });
/** The built-in rules, compiled once (loading them is most of the cost of a small case). */
const RULES = loadRules();

/**
 * The number of lines the parser must report, computed independently: `\n` ends a line, a final
 * line without one counts, and a text with no `\n` but with `\r` is classic-Mac (CR ends lines).
 * Null when the parser's choice depends on chunking (a `\r` in the first 64 KiB and the first
 * `\n` after it) — then only the internal checks apply.
 */
export function expectedLineCount(text: string): number | null {
  if (text.length === 0) return 0;
  const firstLf = text.indexOf('\n');
  const sep = firstLf < 0 && text.includes('\r') ? '\r' : '\n';
  if (firstLf > 65536 && text.lastIndexOf('\r', firstLf) >= 0) return null;
  let count = 0;
  for (let i = text.indexOf(sep); i >= 0; i = text.indexOf(sep, i + 1)) count++;
  return text.endsWith(sep) ? count : count + 1;
}

/** Checks the line accounting of `dump` for an input of `lines` lines; returns the first problem. */
export function accountingProblem(dump: Dump, lines: number | null): string | null {
  const n = dump.stats.lines;
  if (lines !== null && n !== lines) return `stats.lines is ${n}, the input has ${lines} lines`;
  if (dump.stats.ignoredLines !== dump.ignored.length) return `stats.ignoredLines ${dump.stats.ignoredLines} != ignored.length ${dump.ignored.length}`;
  if (dump.stats.backtraces !== dump.backtraces.length) return `stats.backtraces ${dump.stats.backtraces} != ${dump.backtraces.length}`;
  const frames = dump.backtraces.reduce((sum, bt) => sum + bt.frames.length, 0);
  if (dump.stats.frames !== frames) return `stats.frames ${dump.stats.frames} != ${frames} frames listed`;
  const covered = new Uint8Array(n + 2);
  const claim = (line: number, what: string): string | null => {
    if (!Number.isInteger(line) || line < 1 || line > n) return `${what} names line ${line}, outside 1..${n}`;
    covered[line] = 1;
    return null;
  };
  for (const ig of dump.ignored) {
    const p = claim(ig.line, 'an ignored line');
    if (p) return p;
  }
  for (const hint of dump.ownerHints) {
    for (const line of [hint.sourceLine, ...(hint.continuationLines ?? [])]) {
      const p = claim(line, 'an owner hint');
      if (p) return p;
    }
  }
  for (const signal of dump.signals ?? []) {
    const p = claim(signal.sourceLine, 'a signal line');
    if (p) return p;
  }
  if (dump.process) {
    const p = claim(dump.process.sourceLine, 'the process line');
    if (p) return p;
  }
  let previousEnd = 0;
  for (const [b, bt] of dump.backtraces.entries()) {
    if (bt.startLine < 1 || bt.endLine < bt.startLine || bt.endLine > n) return `backtrace ${b} spans ${bt.startLine}..${bt.endLine} of ${n}`;
    if (bt.startLine <= previousEnd && bt.startLine !== previousEnd) return `backtrace ${b} starts at ${bt.startLine}, inside the previous one (ends ${previousEnd})`;
    previousEnd = bt.endLine;
    for (let line = bt.startLine; line <= bt.endLine; line++) covered[line] = 1;
    for (const f of bt.frames) {
      for (const line of [f.sourceLine, ...(f.continuationLines ?? [])]) {
        if (line < bt.startLine || line > bt.endLine) return `frame #${f.level} of backtrace ${b} names line ${line}, outside its backtrace ${bt.startLine}..${bt.endLine}`;
      }
      for (const local of f.locals ?? []) {
        for (const line of [local.sourceLine, ...(local.continuationLines ?? [])]) {
          if (line < bt.startLine || line > bt.endLine) return `a local of frame #${f.level} names line ${line}, outside ${bt.startLine}..${bt.endLine}`;
        }
      }
    }
  }
  for (let line = 1; line <= n; line++) if (covered[line] !== 1) return `line ${line} is neither parsed nor listed as ignored`;
  return null;
}

export interface CheckOptions {
  /** Also render SVG and HTML (Graphviz in WebAssembly: slow, so the fuzz does it for a sample). */
  svg?: boolean;
  /** Also parse in random-sized chunks and compare with the one-piece parse. */
  chunkSeed?: number;
}

/** Runs the whole pipeline on `text`; returns null when every invariant holds, else what broke. */
export async function checkText(text: string, options: CheckOptions = {}): Promise<string | null> {
  let stage = 'parse';
  try {
    const dump = parseDump(text);
    const problem = accountingProblem(dump, expectedLineCount(text));
    if (problem !== null) return `accounting: ${problem}`;
    // Exact: every input line named exactly once (frames, headers, marker lines or ignored).
    const exact = exactAccountingProblems(dump, text);
    if (exact.length > 0) return `exact accounting: ${exact[0]}${exact.length > 1 ? ` (+${exact.length - 1} more)` : ''}`;
    if (options.chunkSeed !== undefined) {
      stage = 'chunked parse';
      const chunked = parseInChunks(text, options.chunkSeed);
      if (JSON.stringify(chunked) !== JSON.stringify(dump)) return 'parsing in chunks gives another Dump than parsing in one piece';
    }
    stage = 'analyze';
    const analysis = analyzeText(text, { rules: RULES });
    if (analysis.stats.lines !== dump.stats.lines) return `analysis.stats.lines ${analysis.stats.lines} != dump ${dump.stats.lines}`;
    if (analysis.stats.backtraces !== dump.stats.backtraces) return `analysis.stats.backtraces ${analysis.stats.backtraces} != dump ${dump.stats.backtraces}`;
    const outputs: Array<[string, () => string | Promise<string>]> = [
      ['text', () => renderText(analysis, { chalk: NO_COLOUR })],
      ['json', () => renderJson(analysis)],
      ['markdown', () => renderMarkdown(analysis)],
      ['mermaid', () => renderMermaid(analysis)],
      ['dot', () => renderDot(analysis)],
      ['sarif', () => renderSarif(analysis, { inputUri: 'dump.txt' })],
      ['github', () => renderGithub(analysis, { file: 'dump.txt' })],
    ];
    if (options.svg === true) outputs.push(['svg', () => renderSvg(analysis)], ['html', () => renderHtml(analysis)]);
    for (const [format, render] of outputs) {
      stage = `render ${format}`;
      const out = await render();
      if (typeof out !== 'string' || out.length === 0) return `${format} report is empty`;
      const raw = firstControl(out);
      if (raw !== null) return `${format} report holds a raw control character: ${raw}`;
      if (format === 'json' || format === 'sarif') JSON.parse(out);
      if (format === 'github' && out.split('\n').some((line) => line !== '' && !/^::(error|warning|notice) [^:]*::/.test(line))) return 'github report has a line that is not a workflow command';
      if (format === 'html') {
        const unsafe = htmlSafetyProblem(out);
        if (unsafe !== null) return `html report: ${unsafe}`;
      }
    }
    return null;
  } catch (error) {
    const e = error as Error;
    return `${stage} threw ${e?.name ?? typeof error}: ${e?.message ?? String(error)}\n${(e?.stack ?? '').split('\n').slice(1, 6).join('\n')}`;
  }
}


/** Parses `text` pushed in chunks of 1..64 characters (cuts fall mid-line, mid-CRLF, mid-prompt). */
export function parseInChunks(text: string, seed: number): Dump {
  const random = prng(seed);
  const parser = new DumpParser();
  for (let i = 0; i < text.length; ) {
    const size = 1 + Math.floor(random() * 64);
    parser.push(text.slice(i, i + size));
    i += size;
  }
  return parser.end();
}

/**
 * The Buffer path: `bytes` (invalid UTF-8, NULs, anything) streamed in random chunks through
 * parseDumpStream must give the Dump of the decoded text, and that text must pass checkText.
 */
export async function checkBytes(bytes: Uint8Array, seed: number): Promise<string | null> {
  const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
  try {
    const random = prng(seed);
    async function* chunks(): AsyncGenerator<Buffer> {
      for (let i = 0; i < bytes.length; ) {
        const size = 1 + Math.floor(random() * 33);
        yield Buffer.from(bytes.subarray(i, i + size));
        i += size;
      }
    }
    const streamed = await parseDumpStream(chunks());
    if (JSON.stringify(streamed) !== JSON.stringify(parseDump(text))) return 'the Buffer stream gives another Dump than the decoded text';
  } catch (error) {
    return `parseDumpStream threw ${(error as Error)?.name}: ${(error as Error)?.message}`;
  }
  return checkText(text);
}
