/**
 * `waitgraph check [PATH…]`: regression-check saved dumps against what they are known to show.
 * Each dump `NAME.txt` may have a sidecar `NAME.expect.json` such as
 * `{"verdict": "deadlock", "cycles": [[7, 8, 9]]}`; the command analyses every dump that has one,
 * prints file / expected / got / match, and exits 0 when all match, 1 when any does not, 2 when an
 * input cannot be read. `--update` (re)writes sidecars from the current results.
 *
 * Which files are dumps: a path named on the command line always is. In a folder (searched
 * recursively) the dumps are `*.txt`, `*.bt` and `*.log`, except golden outputs: anything under a
 * `golden/` folder and files named `expected.*` or `*.expected.*`. Sidecars (`*.expect.json`) are
 * never dumps. Globs (`'fixtures/**\/*.bt'`) are expanded with tinyglobby.
 */
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join, relative, resolve } from 'node:path';
import { Option, type Command } from 'commander';
import { glob, isDynamicPattern } from 'tinyglobby';
import { z } from 'zod';
import type { CliIO, ExitSink } from '../io.js';
import { ExitCode } from '../exit-codes.js';
import { InputError, UsageError, WaitgraphError } from '../../errors.js';
import type { Analysis, Verdict } from '../../model/analysis.js';
import { analyzeDumpFile } from '../check-analysis.js';
import { createCheckPool } from '../check-pool.js';
import { addRuleOptions, rulesFromFlags, type RuleFlags } from '../rule-options.js';
import type { LoadedRules } from '../../rules/types.js';
import { visible } from '../../model/text-hygiene.js';
import { githubAnnotations, workflowCommand, type Annotation } from '../../report/github.js';
import { renderSarifLog, type SarifEntry } from '../../report/sarif.js';

export const DUMP_EXTENSIONS = ['txt', 'bt', 'log'] as const;
const FOLDER_IGNORES = ['**/golden/**', '**/node_modules/**', '**/expected.*', '**/*.expected.*', '**/*.expect.json'];
const SIDECAR_SUFFIX = '.expect.json';

/**
 * What a sidecar promises about its dump. Cycles are thread-key sets, compared order-free. `hung`
 * (a hang's threads, the JSON report's `hung`) is compared only when the sidecar names it, so a
 * hand-written `{"verdict": "hang"}` still says only the verdict.
 */
export interface Expectation {
  verdict: Verdict;
  cycles: Array<Array<number | string>>;
  hung?: Array<number | string>;
}

const threadKey = z.union([z.number().int().nonnegative(), z.string().regex(/^(\d+(\.\d+)?|bt@\d+)$/)]);

/** Strict: a mistyped key (`"cycle"`) is an error, not a sidecar that silently checks less. */
const expectationSchema = z
  .object({
    verdict: z.enum(['deadlock', 'hang', 'crash', 'ok']),
    cycles: z.array(z.array(threadKey)).default([]),
    hung: z.array(threadKey).optional(),
  })
  .strict();

const SIDECAR_KEYS = ['verdict', 'cycles', 'hung'] as const;

export type CheckStatus = 'match' | 'mismatch' | 'unchecked' | 'updated' | 'error';

export interface CheckRow {
  /** The dump's path relative to the working directory, with `/` separators. */
  file: string;
  sidecar: string;
  expected: Expectation | null;
  got: Expectation | null;
  status: CheckStatus;
  error?: string;
}

export interface CheckOptions {
  strict: boolean;
  update: boolean;
  /** Rules to analyse with; the built-ins when absent. */
  rules?: LoadedRules;
  /** Worker threads analysing dumps (`--jobs`); 1 or absent: this thread. */
  jobs?: number;
  /** The rule flags the workers load their rule set from (the same set as `rules`). */
  ruleFlags?: RuleFlags;
  /** Called with each dump's analysis as it is made (the SARIF log and annotations are built from them). */
  onAnalysed?: (row: CheckRow, analysis: Analysis) => void;
}

export interface CheckSummary {
  match: number;
  mismatch: number;
  unchecked: number;
  updated: number;
  error: number;
}

export function sidecarPath(dumpPath: string): string {
  const ext = extname(dumpPath);
  const stem = ext ? basename(dumpPath, ext) : basename(dumpPath);
  return join(dirname(dumpPath), `${stem}${SIDECAR_SUFFIX}`);
}

/** The dumps named by the arguments, absolute, sorted, without duplicates. */
export async function findDumps(paths: readonly string[], cwd: string): Promise<string[]> {
  const found = new Set<string>();
  for (const path of paths) {
    const full = resolve(cwd, path);
    if (existsSync(full)) {
      if (statSync(full).isDirectory()) {
        const files = await glob(`**/*.{${DUMP_EXTENSIONS.join(',')}}`, { cwd: full, absolute: true, ignore: FOLDER_IGNORES, dot: false });
        for (const file of files) found.add(resolve(file));
      } else {
        found.add(full);
      }
    } else if (isDynamicPattern(path)) {
      const files = await glob(path, { cwd, absolute: true, ignore: ['**/*.expect.json', '**/node_modules/**'] });
      for (const file of files) found.add(resolve(file));
    } else {
      throw new InputError(`no such file or folder: ${path}`);
    }
  }
  return [...found].sort();
}

const asSidecarKey = (key: string): number | string => (/^\d+$/.test(key) ? Number(key) : key);

/** The expectation an analysis fulfils: its verdict, each deadlock's thread set, and a hang's threads. */
export function expectationOf(analysis: Analysis): Expectation {
  return {
    verdict: analysis.verdict,
    cycles: analysis.deadlocks.map((d) => d.threads.map(asSidecarKey)),
    ...(analysis.verdict === 'hang' ? { hung: analysis.hung.map(asSidecarKey) } : {}),
  };
}

function normalise(expectation: Expectation, withHung: boolean): string {
  const cycles = expectation.cycles.map((cycle) => cycle.map(String).sort(byThread)).map((cycle) => cycle.join(','));
  cycles.sort();
  const hung = withHung ? `|${(expectation.hung ?? []).map(String).sort(byThread).join(',')}` : '';
  return `${expectation.verdict}|${cycles.join(';')}${hung}`;
}

function byThread(a: string, b: string): number {
  const na = /^\d+$/.test(a) ? Number(a) : Number.MAX_SAFE_INTEGER;
  const nb = /^\d+$/.test(b) ? Number(b) : Number.MAX_SAFE_INTEGER;
  return na - nb || (a < b ? -1 : a > b ? 1 : 0);
}

/** A long thread list stays one short cell: `1,2,3,4,5,6,… (4812 threads)`. */
function abbreviated(keys: readonly string[]): string {
  return keys.length <= 8 ? keys.join(',') : `${keys.slice(0, 6).join(',')},… (${keys.length} threads)`;
}

/** Does `got` fulfil `expected`? The hung threads count only when `expected` names them. */
export function sameExpectation(expected: Expectation, got: Expectation): boolean {
  const withHung = expected.hung !== undefined;
  return normalise(expected, withHung) === normalise(got, withHung);
}

/** `deadlock {7,8,9}`, `ok`, `deadlock {1,2} {3,4}`, `hang [3,4]` (a sidecar's hung threads). */
export function describeExpectation(expectation: Expectation | null, options: { hung?: boolean } = {}): string {
  if (!expectation) return '-';
  const cycles = expectation.cycles.map((cycle) => `{${cycle.map(String).sort(byThread).join(',')}}`);
  const hung = options.hung !== false && expectation.hung !== undefined ? [`[${abbreviated(expectation.hung.map(String).sort(byThread))}]`] : [];
  return [expectation.verdict, ...cycles, ...hung].join(' ');
}

function readSidecar(path: string, shownPath: string): Expectation | null {
  if (!existsSync(path)) return null;
  let data: unknown;
  try {
    data = JSON.parse(readFileSync(path, 'utf8'));
  } catch (error) {
    throw new InputError(`${shownPath}: not valid JSON (${(error as Error).message})`);
  }
  const parsed = expectationSchema.safeParse(data);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    if (issue?.code === 'unrecognized_keys') throw new InputError(`${shownPath}: ${unknownKeysMessage(issue.keys)}`);
    throw new InputError(`${shownPath}: ${issue ? `${issue.path.join('.') || 'value'}: ${issue.message}` : 'not an expectation'}`);
  }
  return { verdict: parsed.data.verdict, cycles: parsed.data.cycles, ...(parsed.data.hung ? { hung: parsed.data.hung } : {}) };
}

/** `unknown key "cycle" (did you mean "cycles"?; a sidecar has verdict, cycles, hung)`. */
function unknownKeysMessage(keys: readonly string[]): string {
  const guesses = keys.map((key) => SIDECAR_KEYS.find((known) => known.startsWith(key.toLowerCase()) || key.toLowerCase().startsWith(known)) ?? null);
  const named = keys.map((key, i) => `"${key}"${guesses[i] ? ` (did you mean "${guesses[i]}"?)` : ''}`);
  return `unknown ${keys.length === 1 ? 'key' : 'keys'} ${named.join(', ')}; a sidecar has ${SIDECAR_KEYS.join(', ')}`;
}

/**
 * Checks (or updates) every dump; never throws for one bad file, it becomes an `error` row.
 * First every sidecar is read (cheap), then the dumps that need it are analysed — in this thread,
 * or by `options.jobs` worker threads — and their rows settled in the dumps' order.
 */
export async function checkDumps(
  dumps: readonly string[],
  options: CheckOptions,
  io: CliIO,
  onProgress: (done: number, total: number, file: string) => void = () => {},
): Promise<CheckRow[]> {
  const rows: CheckRow[] = [];
  const toAnalyse: Array<{ row: CheckRow; dump: string; sidecar: string }> = [];
  for (const dump of dumps) {
    const file = relative(io.cwd, dump).split('\\').join('/') || dump;
    const sidecar = sidecarPath(dump);
    const sidecarShown = relative(io.cwd, sidecar).split('\\').join('/');
    const row: CheckRow = { file, sidecar: sidecarShown, expected: null, got: null, status: 'unchecked' };
    rows.push(row);
    try {
      row.expected = readSidecar(sidecar, sidecarShown);
      // A dump without a sidecar is not analysed unless asked to write one: other tools' sample
      // inputs (even deliberately broken ones) may share the folder.
      if (row.expected || options.update) toAnalyse.push({ row, dump, sidecar });
    } catch (error) {
      if (!(error instanceof WaitgraphError)) throw error;
      row.status = 'error';
      row.error = error.message;
    }
  }
  const analyses = analyseAll(toAnalyse.map((t) => t.dump), options, io);
  try {
    for (const [index, { row, sidecar }] of toAnalyse.entries()) {
      onProgress(index, toAnalyse.length, row.file);
      const next = await analyses.next();
      const analysis = next.value as Analysis | WaitgraphError;
      if (analysis instanceof WaitgraphError) {
        row.status = 'error';
        row.error = analysis.message;
        continue;
      }
      try {
        settle(row, analysis, sidecar, options);
      } catch (error) {
        if (!(error instanceof WaitgraphError)) throw error;
        row.status = 'error';
        row.error = error.message;
      }
    }
  } finally {
    await analyses.return(undefined);
  }
  onProgress(toAnalyse.length, toAnalyse.length, '');
  return rows;
}

/** The analyses of `paths`, in order; an unreadable dump yields its InputError instead. */
async function* analyseAll(paths: readonly string[], options: CheckOptions, io: CliIO): AsyncGenerator<Analysis | WaitgraphError, void, undefined> {
  const jobs = Math.min(options.jobs ?? 1, paths.length);
  if (jobs <= 1) {
    for (const path of paths) {
      try {
        yield await analyzeDumpFile(path, io, options.rules);
      } catch (error) {
        if (!(error instanceof WaitgraphError)) throw error;
        yield error;
      }
    }
    return;
  }
  const pool = createCheckPool(jobs, { cwd: io.cwd, env: { ...io.env }, rules: options.ruleFlags?.rules ?? [], disable: options.ruleFlags?.disable ?? [] });
  try {
    yield* pool.analyseInOrder(paths);
  } finally {
    await pool.close();
  }
}

/** Compares (or, with --update, writes) one analysed dump's sidecar. */
function settle(row: CheckRow, analysis: Analysis, sidecar: string, options: CheckOptions): void {
  row.got = expectationOf(analysis);
  options.onAnalysed?.(row, analysis);
  if (options.update) {
    // A sidecar that names fewer facts than the analysis gives (no `hung`) is rewritten whole.
    const unchanged = row.expected !== null && sameExpectation(row.expected, row.got) && (row.expected.hung !== undefined) === (row.got.hung !== undefined);
    if (!unchanged) writeSidecar(sidecar, row.sidecar, row.got);
    row.status = unchanged ? 'match' : 'updated';
    row.expected = row.got;
  } else {
    row.status = sameExpectation(row.expected as Expectation, row.got) ? 'match' : 'mismatch';
  }
}

function writeSidecar(path: string, shownPath: string, expectation: Expectation): void {
  try {
    writeFileSync(path, formatSidecar(expectation));
  } catch (error) {
    throw new InputError(`cannot write ${shownPath}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}

/** `{"verdict": "deadlock", "cycles": [[7, 8, 9]]}`: one line, as people write it by hand. */
export function formatSidecar(expectation: Expectation): string {
  const keys = (list: ReadonlyArray<number | string>): string => list.map((key) => JSON.stringify(key)).join(', ');
  const cycles = expectation.cycles.map((cycle) => `[${keys(cycle)}]`).join(', ');
  const hung = expectation.hung !== undefined ? `, "hung": [${keys(expectation.hung)}]` : '';
  return `{"verdict": ${JSON.stringify(expectation.verdict)}, "cycles": [${cycles}]${hung}}\n`;
}

export function summarise(rows: readonly CheckRow[]): CheckSummary {
  const summary: CheckSummary = { match: 0, mismatch: 0, unchecked: 0, updated: 0, error: 0 };
  for (const row of rows) summary[row.status]++;
  return summary;
}

/** True when no dump was compared or written: every row is unchecked (no sidecar). */
export function nothingChecked(rows: readonly CheckRow[]): boolean {
  return rows.every((row) => row.status === 'unchecked');
}

export function checkExitCode(rows: readonly CheckRow[], options: CheckOptions): number {
  const summary = summarise(rows);
  if (summary.error > 0) return ExitCode.Failure;
  // --strict in CI promises that something was checked: a run that checked nothing (a wrong
  // path, sidecars not committed) cannot be told from a pass, so it is an input error.
  if (options.strict && nothingChecked(rows)) return ExitCode.Failure;
  if (summary.mismatch > 0 || (options.strict && summary.unchecked > 0)) return ExitCode.Found;
  return ExitCode.Ok;
}

const STATUS_TEXT: Record<CheckStatus, string> = {
  match: 'ok',
  mismatch: 'MISMATCH',
  unchecked: 'unchecked',
  updated: 'updated',
  error: 'ERROR',
};

/** The table: file, expected, got, match; then a one-line summary and any errors. */
export function renderCheckTable(rows: readonly CheckRow[], options: CheckOptions & { verbose?: boolean }): string {
  const header = ['file', 'expected', 'got', 'match'];
  // Dumps without a sidecar are listed when they count (--strict) or when asked (--verbose);
  // otherwise a folder of other tools' samples would bury the rows that matter.
  const listUnchecked = options.strict || options.verbose === true;
  const shown = rows.filter((row) => listUnchecked || row.status !== 'unchecked');
  const body = shown.map((row) => [visible(row.file, { oneLine: true }), describeExpectation(row.expected), describeExpectation(row.got, { hung: row.expected?.hung !== undefined }), STATUS_TEXT[row.status]]);
  const widths = header.map((h) => h.length);
  for (const cells of body) cells.forEach((cell, i) => (widths[i] = Math.max(widths[i]!, cell.length))); // no spread: a folder may hold 100,000 dumps
  const line = (cells: string[]): string => cells.map((cell, i) => (i === cells.length - 1 ? cell : cell.padEnd(widths[i]!))).join('  ');
  const out = [line(header), ...body.map(line), ''];
  const summary = summarise(rows);
  const uncheckedNote = summary.unchecked === 0 ? '' : options.strict ? ' (failures with --strict)' : listUnchecked ? '' : ' (no sidecar; --verbose lists them)';
  const parts = [`${summary.match} matched`, `${summary.mismatch} mismatched`, `${summary.unchecked} unchecked${uncheckedNote}`];
  if (summary.updated > 0) parts.push(`${summary.updated} ${summary.updated === 1 ? 'sidecar' : 'sidecars'} written`);
  if (summary.error > 0) parts.push(`${summary.error} unreadable`);
  out.push(parts.join(', '));
  if (rows.length > 0 && nothingChecked(rows)) {
    const which = rows.length === 1 ? 'the one dump has no sidecar' : `none of the ${rows.length} dumps has a sidecar`;
    out.push(`nothing was checked: ${which} (NAME.expect.json; \`waitgraph check --update\` writes them)${options.strict ? ', which is an error with --strict' : ''}`);
  }
  for (const row of rows) if (row.error) out.push(visible(`error: ${row.file}: ${row.error}`, { oneLine: true }));
  return `${out.join('\n')}\n`;
}

export function renderCheckJson(rows: readonly CheckRow[], options: CheckOptions): string {
  const report = {
    schemaVersion: 1,
    strict: options.strict,
    update: options.update,
    files: rows.map((row) => ({
      file: row.file,
      sidecar: row.sidecar,
      expected: row.expected,
      got: row.got,
      match: row.status,
      ...(row.error ? { error: row.error } : {}),
    })),
    summary: summarise(rows),
    exitCode: checkExitCode(rows, options),
  };
  return `${JSON.stringify(report, null, 2)}\n`;
}

/**
 * `--format github`: the analysed dumps' findings as workflow commands on their own lines (the
 * same as `analyze --format github`), one error per mismatch, unreadable dump (and, with
 * --strict, dump without a sidecar), a summary notice; then the table, for the log.
 */
export function renderCheckGithub(rows: readonly CheckRow[], findings: ReadonlyMap<CheckRow, Annotation[]>, options: CheckOptions): string {
  const out: string[] = [];
  for (const row of rows) {
    for (const annotation of findings.get(row) ?? []) out.push(workflowCommand(annotation, row.file));
    const problem =
      row.status === 'mismatch'
        ? { title: 'waitgraph check: mismatch', message: `expected ${describeExpectation(row.expected)} (${row.sidecar}), got ${describeExpectation(row.got, { hung: row.expected?.hung !== undefined })}. If the change is right, \`waitgraph check --update\` rewrites the sidecar.` }
        : row.status === 'error'
          ? { title: 'waitgraph check: unreadable', message: row.error ?? 'cannot be read' }
          : row.status === 'unchecked' && options.strict
            ? { title: 'waitgraph check: no sidecar', message: `no ${row.sidecar} (--strict); \`waitgraph check --update\` writes it from the current result` }
            : null;
    if (problem) out.push(workflowCommand({ level: 'error', title: problem.title, message: visible(problem.message) }, row.file));
  }
  const table = renderCheckTable(rows, options);
  const summary = table.trimEnd().split('\n').find((line) => / matched, /.test(line)) ?? '';
  out.push(workflowCommand({ level: checkExitCode(rows, options) === ExitCode.Ok ? 'notice' : 'error', title: 'waitgraph check', message: summary }));
  return `${out.join('')}${table}`;
}

/** `[#######.............] 7/20 fixtures/x.txt` on one rewritten stderr line. */
function progressBar(io: CliIO): (done: number, total: number, file: string) => void {
  if (!io.stderrIsTTY) return () => {};
  return (done, total, file) => {
    if (total < 2) return;
    if (done >= total) {
      io.err('\r\u001b[K');
      return;
    }
    const width = 20;
    const filled = Math.round((done / total) * width);
    // `3/20 name`: the third of twenty is being analysed; the bar shows the ones finished.
    io.err(`\r\u001b[K[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${done + 1}/${total} ${visible(file, { oneLine: true })}`.slice(0, 120));
  };
}

export function registerCheck(program: Command, io: CliIO, sink: ExitSink): void {
  const command = program
    .command('check')
    .description('check saved dumps against their NAME.expect.json sidecars (CI regression test)')
    .argument('[paths...]', 'dump files, folders (searched for *.txt, *.bt, *.log) or globs', ['.'])
    .option('--strict', 'count dumps without a sidecar as failures', false)
    .option('--update', 'write or refresh the sidecars from the current results', false)
    .option('-v, --verbose', 'list the dumps without a sidecar too', false)
    .option('-j, --jobs <n>', 'analyse dumps in N worker threads (for folders of thousands of dumps; the output is the same)', '1');
  addRuleOptions(command)
    .addOption(new Option('-f, --format <format>', 'output format: the table, JSON, or GitHub workflow commands annotating each finding and mismatch (then the table)').choices(['text', 'json', 'github']).default('text'))
    .option('--sarif <file>', 'also write the findings of every analysed dump as one SARIF 2.1.0 log, located on the dump lines (for code scanning)')
    .addHelpText(
      'after',
      '\nSidecar: NAME.expect.json beside NAME.txt, e.g. {"verdict": "deadlock", "cycles": [[7, 8, 9]]}.\n' +
        'In folders, golden outputs (golden/ folders, expected.* files) are not dumps.\n' +
        'Exit: 0 all checked dumps match, 1 a mismatch (or an unchecked dump with --strict), 2 unreadable input.',
    )
    .action(async (paths: string[], options: RuleFlags & { strict: boolean; update: boolean; verbose: boolean; format: 'text' | 'json' | 'github'; sarif?: string; jobs: string }) => {
      if (!/^\d{1,3}$/.test(options.jobs) || Number(options.jobs) < 1) throw new UsageError(`--jobs takes a number of worker threads (1–999), not ${JSON.stringify(options.jobs)}`);
      const rules = await rulesFromFlags(options, io);
      const sarifEntries: SarifEntry[] = [];
      const findings = new Map<CheckRow, Annotation[]>();
      const checkOptions: CheckOptions = {
        strict: options.strict,
        update: options.update,
        rules,
        jobs: Number(options.jobs),
        ruleFlags: { rules: options.rules, disable: options.disable },
        onAnalysed: (row, analysis) => {
          if (options.sarif !== undefined) sarifEntries.push({ analysis, inputUri: row.file });
          if (options.format === 'github') findings.set(row, githubAnnotations(analysis));
        },
      };
      const dumps = await findDumps(paths, io.cwd);
      if (dumps.length === 0) throw new UsageError(`no dumps found in ${paths.join(', ')} (looked for ${DUMP_EXTENSIONS.map((e) => `*.${e}`).join(', ')})`);
      const rows = await checkDumps(dumps, checkOptions, io, progressBar(io));
      if (options.sarif !== undefined) writeReport(resolve(io.cwd, options.sarif), options.sarif, renderSarifLog(sarifEntries, { locateInDump: true }));
      const output =
        options.format === 'json'
          ? renderCheckJson(rows, checkOptions)
          : options.format === 'github'
            ? renderCheckGithub(rows, findings, checkOptions)
            : renderCheckTable(rows, { ...checkOptions, verbose: options.verbose });
      io.out(output);
      sink.code = checkExitCode(rows, checkOptions);
    });
}

function writeReport(path: string, shown: string, text: string): void {
  try {
    writeFileSync(path, text);
  } catch (error) {
    throw new InputError(`cannot write ${shown}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`);
  }
}
