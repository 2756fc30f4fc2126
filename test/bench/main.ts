/**
 * `npm run bench`: the performance figures of issue 7 (plus parse throughput from issue 2, the
 * attach ratio from issue 4 and the HTML page's weight from issue 17), each a ratio to a baseline measured in the same run, with its target
 * and PASS/FAIL. A benchmark reports, it does not gate: the exit code is 0 whatever the figures,
 * and 1 only when something errs (a crash, a bad exit code, output that does not parse).
 *
 *   npm run bench                   1,000 / 10,000 / 100,000 threads (3 / 30 / 300 MB)
 *   npm run bench -- --quick        100 / 1,000 / 10,000 threads, for trying things
 *   npm run bench -- --runs 5       timed runs per figure (median; default 3)
 *   npm run bench -- --big-runs 3   runs of the largest dump (default 1)
 *   npm run bench -- --no-attach    without the attach figure (it starts a program and gdb)
 *   npm run bench -- --profile      instead: one CLI run under --cpu-prof on the 30 MB dump
 *                                   (3 MB with --quick), top functions by self and inclusive time
 *   npm run bench -- --hang-shapes  only figures 8–11, the big hang shapes (hang-figures.ts)
 *   npm run bench -- --shape joins  only that hang shape (repeatable; implies --hang-shapes)
 *   npm run bench -- --no-hang-shapes  without figures 8–11
 *
 * Progress goes to stderr, the figures to stdout.
 */
import { existsSync, readFileSync, statSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BENCH_DIR, ensureDump, type GeneratedDump } from '../helpers/generate-dump.js';
import { PERL_FOLD } from './baselines.js';
import { childrenCpuMs, median, REPO_ROOT, runChild, type ChildRun } from './measure.js';
import { printProfile, profileRun } from './profile.js';
import { ensureSourceTree, SOURCE_TREE_FILES } from './source-tree.js';
import { hangShapeFigures } from './hang-figures.js';
import { HANG_SHAPES } from './hang-shapes.js';

const execFileAsync = promisify(execFile);

interface Options {
  quick: boolean;
  runs: number;
  bigRuns: number;
  startupRuns: number;
  profile: boolean;
  attach: boolean;
  /** 'only': figures 8–11 alone; false: without them. */
  hangShapes: boolean | 'only';
  shapes?: string[];
}

function parseOptions(argv: string[]): Options {
  const options: Options = { quick: false, runs: 3, bigRuns: 1, startupRuns: 11, profile: false, attach: true, hangShapes: true };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const number = (): number => {
      const v = Number(argv[++i]);
      if (!Number.isInteger(v) || v < 1) throw new Error(`${a} needs a positive integer`);
      return v;
    };
    if (a === '--quick') options.quick = true;
    else if (a === '--profile') options.profile = true;
    else if (a === '--no-attach') options.attach = false;
    else if (a === '--hang-shapes') options.hangShapes = 'only';
    else if (a === '--no-hang-shapes') options.hangShapes = false;
    else if (a === '--shape') {
      const name = argv[++i];
      if (name === undefined || !HANG_SHAPES.some((shape) => shape.name === name)) throw new Error(`--shape needs one of ${HANG_SHAPES.map((shape) => shape.name).join(', ')}`);
      options.hangShapes = 'only';
      (options.shapes ??= []).push(name);
    }
    else if (a === '--runs') options.runs = number();
    else if (a === '--big-runs') options.bigRuns = number();
    else if (a === '--startup-runs') options.startupRuns = number();
    else throw new Error(`unknown option ${a} (known: --quick, --profile, --no-attach, --hang-shapes, --no-hang-shapes, --shape NAME, --runs N, --big-runs N, --startup-runs N)`);
  }
  return options;
}

const BIN = join(REPO_ROOT, 'bin', 'waitgraph.js');
const FOUNDING = join(REPO_ROOT, 'fixtures', 'enzyme-autodiff-deferred.txt');
const WORKER = new URL('./worker.js', import.meta.url).pathname;
const NODE = process.execPath;

const progress = (text: string): void => void process.stderr.write(`bench: ${text}\n`);
const errors: string[] = [];

const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;
const ms = (v: number): string => `${v.toFixed(v < 100 ? 1 : 0)} ms`;
const threadsLabel = (n: number): string => (n >= 1000 ? `${n / 1000}k` : String(n));

// ------------------------------------------------------------------------------------ printing

interface Target {
  /** `max`: lower is better (value ≤ limit); `min`: higher is better (value ≥ limit). */
  sense: 'max' | 'min';
  limit: number;
  aim?: number;
}

function verdict(value: number, target: Target): 'PASS' | 'FAIL' {
  return (target.sense === 'max' ? value <= target.limit : value >= target.limit) ? 'PASS' : 'FAIL';
}

/** Figure lines, printed in their order at the end (they are measured in a different order). */
const figureLines: Array<{ order: number; text: string }> = [];
function emit(label: string, text: string): void {
  const m = /^(\d+)\./.exec(label);
  figureLines.push({ order: m !== null ? Number(m[1]) : 100 + figureLines.length, text });
}

function printFigure(label: string, value: number, digits: number, target: Target, extra = '', pass?: boolean): void {
  const sign = target.sense === 'max' ? '≤' : '≥';
  const aim = target.aim !== undefined ? `, aim ${target.aim}` : '';
  const ok = pass === undefined ? verdict(value, target) : pass && verdict(value, target) === 'PASS' ? 'PASS' : 'FAIL';
  const extraText = extra === '' ? '' : `; ${extra}`;
  emit(label, `${label.padEnd(46)} ${value.toFixed(digits).padStart(7)}  (target ${sign} ${target.limit}${aim}${extraText})  ${ok}`);
}

function printUnavailable(label: string, why: string, kind: 'SKIP' | 'ERROR'): void {
  emit(label, `${label.padEnd(46)} ${'—'.padStart(7)}  (${why})  ${kind}`);
}

// ------------------------------------------------------------------------------------ runs

/** The real CLI, as a user runs it: `node bin/waitgraph.js FILE --format json`, stdout to a file. */
async function runCli(file: string, formatArgs: string[], stdoutFile: string | null): Promise<ChildRun> {
  const run = await runChild(NODE, [BIN, file, ...formatArgs], { stdoutFile, probeRss: true, timeoutMs: 10 * 60_000 });
  // 0 = nothing found, 1 = deadlock or hang found; anything else is a failure to analyse.
  if (run.code !== 0 && run.code !== 1) {
    const firstLine = run.stderr.trim().split('\n').slice(0, 3).join(' | ');
    throw new Error(`waitgraph ${file} exited with ${run.code ?? run.signal}: ${firstLine}`);
  }
  return run;
}

async function perlFold(file: string): Promise<{ ms: number; cpuMs: number; out: string }> {
  const cpuBefore = childrenCpuMs();
  const start = performance.now();
  const { stdout } = await execFileAsync('perl', ['-e', PERL_FOLD, file], { maxBuffer: 1 << 20 });
  return { ms: performance.now() - start, cpuMs: childrenCpuMs() - cpuBefore, out: stdout.trim() };
}

async function worker(mode: 'read-split' | 'parse' | 'fold', file: string): Promise<{ run: ChildRun; result: Record<string, number> }> {
  const run = await runChild(NODE, [WORKER, mode, file], { timeoutMs: 10 * 60_000, probeRss: true });
  if (run.code !== 0) throw new Error(`bench worker ${mode} exited with ${run.code ?? run.signal}: ${run.stderr.trim().split('\n').slice(0, 3).join(' | ')}`);
  return { run, result: JSON.parse(run.stdout) as Record<string, number> };
}

/** The deadlocks a JSON report names, as sorted thread-key lists. */
function reportedCycles(jsonFile: string): string[][] {
  const size = statSync(jsonFile).size;
  if (size > 1.5e9) throw new Error(`JSON report of ${mb(size)} is too big to check`);
  const report = JSON.parse(readFileSync(jsonFile, 'utf8')) as { deadlocks?: Array<{ threads: string[] }> };
  if (!Array.isArray(report.deadlocks)) throw new Error('JSON report has no "deadlocks" array');
  return report.deadlocks.map((d) => [...d.threads].sort((a, b) => Number(a) - Number(b)));
}

function compareCycles(expected: string[][], found: string[][]): { found: number; missing: string[][]; extra: string[][] } {
  const key = (c: string[]): string => c.join(',');
  const foundKeys = new Set(found.map(key));
  const expectedKeys = new Set(expected.map(key));
  const missing = expected.filter((c) => !foundKeys.has(key(c)));
  const extra = found.filter((c) => !expectedKeys.has(key(c)));
  return { found: expected.length - missing.length, missing, extra };
}

/**
 * The same ratio over CPU time (user + system, every thread), which a shared, loaded machine
 * distorts far less than wall time; the verdict stays on wall time, as the targets are stated.
 */
function cpuNote(numerator: number[], denominator: number[]): string {
  const a = median(numerator);
  const b = median(denominator);
  return Number.isFinite(a) && Number.isFinite(b) && b > 0 ? `CPU-time ratio ${(a / b).toFixed(2)}` : 'CPU time not measured';
}

/** Runs `fn` and turns a thrown error into a printed ERROR line; returns undefined then. */
async function guarded<T>(label: string, fn: () => Promise<T>): Promise<T | undefined> {
  try {
    return await fn();
  } catch (error) {
    const message = error instanceof Error ? error.message : String(error);
    errors.push(`${label}: ${message}`);
    printUnavailable(label, message.split('\n')[0] ?? message, 'ERROR');
    return undefined;
  }
}

// ------------------------------------------------------------------------------------ attach

interface AttachResult {
  ratio?: number;
  cpuRatio?: number;
  attachMs?: number;
  gdbMs?: number;
  threads?: number;
  runs?: number;
  ratioWithoutCaCerts?: number;
  ratioWithoutIndexCache?: number;
  skipped?: string | null;
}

/** The attach figure of issue 4, from test/bench/attach-ratio.ts (the live helper's measurement). */
async function attachFigure(): Promise<void> {
  const label = 'attach(100 threads) / gdb thread apply all bt';
  const modulePath = new URL('./attach-ratio.js', import.meta.url);
  if (!existsSync(modulePath)) {
    printUnavailable(label, 'test/bench/attach-ratio.ts not written yet', 'SKIP');
    return;
  }
  const mod = (await import(modulePath.href)) as { measureAttachRatio?: () => Promise<AttachResult> };
  if (typeof mod.measureAttachRatio !== 'function') {
    printUnavailable(label, 'attach-ratio.js exports no measureAttachRatio()', 'SKIP');
    return;
  }
  const measure = mod.measureAttachRatio;
  progress('attach ratio (starts a 100-thread program, attaches gdb) …');
  const result = await guarded(label, async () => await measure());
  if (result === undefined) return;
  if (typeof result.skipped === 'string' && result.skipped !== '') {
    printUnavailable(label, `gdb cannot attach here: ${result.skipped}`, 'SKIP');
    return;
  }
  if (typeof result.ratio !== 'number' || !Number.isFinite(result.ratio)) {
    printUnavailable(label, 'no ratio measured', 'ERROR');
    errors.push(`${label}: no ratio measured`);
    return;
  }
  const parts: string[] = [];
  if (result.attachMs !== undefined && result.gdbMs !== undefined) parts.push(`${ms(result.attachMs)} vs ${ms(result.gdbMs)}`);
  if (result.cpuRatio !== undefined && Number.isFinite(result.cpuRatio)) parts.push(`CPU-time ratio ${result.cpuRatio.toFixed(2)}`);
  if (result.runs !== undefined) parts.push(`median of ${result.runs}`);
  if (result.ratioWithoutIndexCache !== undefined && Number.isFinite(result.ratioWithoutIndexCache)) {
    parts.push(`gdb index cache on (warm; gdb's own run has it off): ${result.ratioWithoutIndexCache.toFixed(2)} with WAITGRAPH_GDB_INDEX_CACHE=off`);
  }
  if (result.ratioWithoutCaCerts !== undefined && Number.isFinite(result.ratioWithoutCaCerts)) {
    parts.push(`context: ${result.ratioWithoutCaCerts.toFixed(2)} with NODE_EXTRA_CA_CERTS unset`);
  }
  printFigure(label, result.ratio, 2, { sense: 'max', limit: 1.3 }, parts.join(', '));
}

/** The snapshots figure of issue 14, from test/bench/samples-ratio.ts. */
async function samplesFigure(): Promise<void> {
  const label = 'attach --samples 3 / 3 × gdb thread apply all bt (100 threads)';
  const { measureSamplesRatio } = await import('./samples-ratio.js');
  progress('samples ratio (starts a 100-thread program, attaches gdb three times) …');
  const result = await guarded(label, async () => await measureSamplesRatio());
  if (result === undefined) return;
  if (result.skipped !== null) {
    printUnavailable(label, `gdb cannot attach here: ${result.skipped}`, 'SKIP');
    return;
  }
  printFigure(label, result.ratio, 2, { sense: 'max', limit: result.target }, `${ms(result.attachMs)} vs ${ms(result.gdbMs)}, one gdb attached 3 times against 3 gdb runs back to back, median of ${result.runs}`);
}

// ------------------------------------------------------------------------------------ main

async function main(): Promise<number> {
  const options = parseOptions(process.argv.slice(2));
  const sizes = options.quick ? { small: 100, mid: 1_000, big: 10_000 } : { small: 1_000, mid: 10_000, big: 100_000 };
  if (options.profile) {
    const dump = await ensureDump({ threads: sizes.mid });
    console.log(`profiling: node --cpu-prof bin/waitgraph.js ${dump.path} --format json (${mb(dump.bytes)})`);
    const summary = await profileRun(BENCH_DIR, async (dir) => {
      const run = await runChild(NODE, ['--cpu-prof', `--cpu-prof-dir=${dir}`, BIN, dump.path, '--format', 'json'], { stdoutFile: null });
      if (run.code !== 0 && run.code !== 1) throw new Error(`waitgraph exited with ${run.code ?? run.signal}: ${run.stderr.trim().split('\n')[0]}`);
      console.log(`wall ${ms(run.ms)}`);
    });
    printProfile(summary);
    return 0;
  }
  console.log(`waitgraph benchmark — node ${process.version}, ${cpus().length} CPUs, load average ${loadavg()[0]?.toFixed(1)}, ${options.quick ? 'quick' : 'full'} mode, median of ${options.runs} runs (${options.bigRuns} for the largest dump)`);
  const hangShapes = async (): Promise<void> => {
    if (options.hangShapes === false) return;
    await hangShapeFigures({ runCli, printFigure, guarded, progress }, { quick: options.quick, runs: options.runs, ...(options.shapes ? { only: options.shapes } : {}) });
  };
  if (options.hangShapes === 'only') {
    await hangShapes();
    for (const line of figureLines.sort((a, b) => a.order - b.order)) console.log(line.text);
    console.log(`load average at the end ${loadavg().map((l) => l.toFixed(1)).join(' ')}`);
    for (const e of errors) console.log(`  error: ${e}`);
    return errors.length > 0 ? 1 : 0;
  }

  const dumps: Record<'small' | 'mid' | 'big', GeneratedDump> = {} as never;
  for (const which of ['small', 'mid', 'big'] as const) {
    progress(`generating ${sizes[which]} threads …`);
    dumps[which] = await ensureDump({ threads: sizes[which] });
  }
  console.log(
    `dumps (${BENCH_DIR}): ` +
      (['small', 'mid', 'big'] as const)
        .map((w) => `${threadsLabel(sizes[w])} threads ${mb(dumps[w].bytes)}, ${dumps[w].plan.cycles.length} cycles${dumps[w].reused ? '' : ' (new)'}`)
        .join('; '),
  );
  const mid = dumps.mid;
  const big = dumps.big;
  const midLabel = mb(mid.bytes);
  const bigLabel = mb(big.bytes);

  const cliBuilt = existsSync(join(REPO_ROOT, 'dist', 'src', 'cli', 'commands', 'analyze.js'));
  const parserBuilt = existsSync(join(REPO_ROOT, 'dist', 'src', 'parse', 'index.js'));

  // Baselines and the mid-size analysis, interleaved so drift on a shared machine hits all alike.
  progress(`baselines and analysis of ${midLabel} (${options.runs} runs each) …`);
  const perlMs: number[] = [];
  const perlCpu: number[] = [];
  const readSplitMs: number[] = [];
  const readSplitCpu: number[] = [];
  const cliMidCpu: number[] = [];
  const readSplitInnerMs: number[] = [];
  const nodeFoldMs: number[] = [];
  const nodeFoldCpu: number[] = [];
  const cliMidMs: number[] = [];
  const cliMidRss: number[] = [];
  let perlOut = '';
  let cliMidError: string | null = cliBuilt ? null : 'the analyze command is not built yet';
  const midReport = join(BENCH_DIR, `report-${process.pid}-mid.json`);
  for (let i = 0; i < options.runs; i++) {
    const perl = await perlFold(mid.path);
    perlMs.push(perl.ms);
    perlCpu.push(perl.cpuMs);
    perlOut = perl.out;
    const rs = await worker('read-split', mid.path);
    readSplitMs.push(rs.run.ms);
    if (rs.run.cpuMs !== null) readSplitCpu.push(rs.run.cpuMs);
    readSplitInnerMs.push(rs.result.ms as number);
    const nf = await worker('fold', mid.path);
    nodeFoldMs.push(nf.run.ms);
    if (nf.run.cpuMs !== null) nodeFoldCpu.push(nf.run.cpuMs);
    if (cliMidError === null) {
      try {
        const run = await runCli(mid.path, ['--format', 'json'], midReport);
        cliMidMs.push(run.ms);
        if (run.cpuMs !== null) cliMidCpu.push(run.cpuMs);
        if (run.maxRssKiB !== null) cliMidRss.push(run.maxRssKiB);
      } catch (error) {
        cliMidError = (error as Error).message;
        errors.push(cliMidError);
      }
    }
  }
  const startupMs: number[] = [];
  const startupCpu: number[] = [];
  const cliFoundingMs: number[] = [];
  const cliFoundingCpu: number[] = [];
  let cliFoundingError: string | null = cliBuilt ? null : 'the analyze command is not built yet';
  progress(`startup: node -e 0 and the founding report (${options.startupRuns} runs each) …`);
  for (let i = 0; i < options.startupRuns; i++) {
    // Probed like the CLI (the probe's own cost is in both).
    const bare = await runChild(NODE, ['-e', '0'], { probeRss: true });
    startupMs.push(bare.ms);
    if (bare.cpuMs !== null) startupCpu.push(bare.cpuMs);
    if (cliFoundingError === null) {
      try {
        const run = await runCli(FOUNDING, [], null);
        cliFoundingMs.push(run.ms);
        if (run.cpuMs !== null) cliFoundingCpu.push(run.cpuMs);
      } catch (error) {
        cliFoundingError = (error as Error).message;
        errors.push(cliFoundingError);
      }
    }
  }
  // Context, not a figure: a machine-wide NODE_EXTRA_CA_CERTS makes every node start parse that
  // certificate file before any script runs (this sandbox points it at the whole system bundle:
  // ~40 ms a start). The figures are measured in the machine's environment as it is; this line
  // shows how much of each start that is, with and without it.
  const caCerts = process.env.NODE_EXTRA_CA_CERTS;
  let caContext = '';
  if (caCerts !== undefined && caCerts !== '' && cliFoundingError === null) {
    const bareWithout: number[] = [];
    const foundingWithout: number[] = [];
    for (let i = 0; i < options.startupRuns; i++) {
      bareWithout.push((await runChild(NODE, ['-e', '0'], { probeRss: true, unsetEnv: ['NODE_EXTRA_CA_CERTS'] })).ms);
      foundingWithout.push((await runChild(NODE, [BIN, FOUNDING], { probeRss: true, unsetEnv: ['NODE_EXTRA_CA_CERTS'] })).ms);
    }
    caContext =
      `context (not a target): this environment sets NODE_EXTRA_CA_CERTS=${caCerts}, which every node start reads first; ` +
      `without it node -e 0 takes ${ms(median(bareWithout))} (with: ${ms(median(startupMs))}) and the founding report ${ms(median(foundingWithout))} ` +
      `(with: ${ms(median(cliFoundingMs))}), figure 4 would be ${(median(foundingWithout) / median(bareWithout)).toFixed(2)}`;
  }
  const perlMed = median(perlMs);
  const readSplitMed = median(readSplitMs);
  const startupMed = median(startupMs);
  console.log(
    `baselines: perl fold(${midLabel}) ${ms(perlMed)} [${perlOut}]; node read-and-split(${midLabel}) ${ms(readSplitMed)} ` +
      `(${ms(median(readSplitInnerMs))} after startup); node -e 0 ${ms(startupMed)}`,
  );
  console.log(
    `context (not a target): the perl fold ported to Node, same regex and fold: ${ms(median(nodeFoldMs))}, ` +
      `${(median(nodeFoldMs) / perlMed).toFixed(2)} of perl's wall time, ${cpuNote(nodeFoldCpu, perlCpu)}`,
  );

  if (caContext !== '') console.log(caContext);

  // Figures 1 and 2.
  const f1 = `1. analysis(${midLabel}) / perl fold`;
  const f2 = `2. analysis(${midLabel}) / node read-and-split`;
  let midCycles = '';
  if (cliMidError === null) {
    const cliMed = median(cliMidMs);
    try {
      const cmp = compareCycles(mid.plan.cycles, reportedCycles(midReport));
      midCycles = `cycles found ${cmp.found}/${mid.plan.cycles.length}${cmp.extra.length > 0 ? `, ${cmp.extra.length} unexpected` : ''}`;
    } catch (error) {
      midCycles = `report not checked: ${(error as Error).message}`;
    }
    console.log(`analysis(${midLabel}): ${ms(cliMed)}, peak RSS ${(median(cliMidRss) / 1024).toFixed(0)} MiB, ${midCycles}`);
    printFigure(f1, cliMed / perlMed, 2, { sense: 'max', limit: 1.0, aim: 0.6 }, cpuNote(cliMidCpu, perlCpu));
    printFigure(f2, cliMed / readSplitMed, 2, { sense: 'max', limit: 2.0 }, cpuNote(cliMidCpu, readSplitCpu));
  } else {
    printUnavailable(f1, cliMidError, cliBuilt ? 'ERROR' : 'SKIP');
    printUnavailable(f2, cliMidError, cliBuilt ? 'ERROR' : 'SKIP');
  }

  // Figure 4: the founding report, default (text) format, over node -e 0 (issue 7 set 2.5; issue 18: at
  // most 2.0 with every pack loaded).
  const f4 = '4. analysis(founding report) / node -e 0';
  if (cliFoundingError === null) {
    printFigure(f4, median(cliFoundingMs) / startupMed, 2, { sense: 'max', limit: 2.0, aim: 1.5 }, `${ms(median(cliFoundingMs))} vs ${ms(startupMed)}; ${cpuNote(cliFoundingCpu, startupCpu)}`);
  } else {
    printUnavailable(f4, cliFoundingError, cliBuilt ? 'ERROR' : 'SKIP');
  }

  // Figures 3 and 5: the largest dump, one process, stdout to a file for the cycle check.
  const f3 = `3. peak RSS analysing ${bigLabel} (MiB)`;
  const f5 = `5. analysis(${threadsLabel(sizes.big)} thr) / analysis(${threadsLabel(sizes.mid)} thr)`;
  if (cliMidError === null) {
    progress(`analysis of ${bigLabel} (${options.bigRuns} run${options.bigRuns > 1 ? 's' : ''}) …`);
    const bigReport = join(BENCH_DIR, `report-${process.pid}-big.json`);
    const bigMs: number[] = [];
    const bigCpu: number[] = [];
    const bigRss: number[] = [];
    let bigError: string | null = null;
    for (let i = 0; i < options.bigRuns && bigError === null; i++) {
      try {
        const run = await runCli(big.path, ['--format', 'json'], bigReport);
        bigMs.push(run.ms);
        if (run.cpuMs !== null) bigCpu.push(run.cpuMs);
        if (run.maxRssKiB !== null) bigRss.push(run.maxRssKiB);
      } catch (error) {
        bigError = (error as Error).message;
        errors.push(bigError);
      }
    }
    if (bigError === null) {
      const rssMiB = Math.max(...bigRss) / 1024;
      printFigure(f3, rssMiB, 0, { sense: 'max', limit: 512, aim: 256 });
      let check: ReturnType<typeof compareCycles> | null = null;
      let checkError = '';
      try {
        check = compareCycles(big.plan.cycles, reportedCycles(bigReport));
      } catch (error) {
        checkError = (error as Error).message;
        errors.push(`cycle check: ${checkError}`);
      }
      const cyclesText =
        check === null
          ? `cycles not checked: ${checkError}`
          : `cycles found ${check.found}/${big.plan.cycles.length}${check.extra.length > 0 ? `, ${check.extra.length} unexpected` : ''}`;
      const allFound = check !== null && check.missing.length === 0 && check.extra.length === 0;
      printFigure(f5, median(bigMs) / median(cliMidMs), 2, { sense: 'max', limit: 11 }, `${ms(median(bigMs))}; ${cpuNote(bigCpu, cliMidCpu)}; ${cyclesText}`, allFound);
      if (check !== null && check.missing.length > 0) emit('5.', `   missing cycles: ${check.missing.slice(0, 10).map((c) => `{${c.join(', ')}}`).join(' ')}${check.missing.length > 10 ? ' …' : ''}`);
      if (check !== null && check.extra.length > 0) emit('5.', `   unexpected cycles: ${check.extra.slice(0, 10).map((c) => `{${c.join(', ')}}`).join(' ')}${check.extra.length > 10 ? ' …' : ''}`);
    } else {
      printUnavailable(f3, bigError, 'ERROR');
      printUnavailable(f5, bigError, 'ERROR');
    }
  } else {
    printUnavailable(f3, cliMidError, cliBuilt ? 'ERROR' : 'SKIP');
    printUnavailable(f5, cliMidError, cliBuilt ? 'ERROR' : 'SKIP');
  }

  // Figure 6: the HTML report's weight on a 10,000-thread dump against the text report that shows
  // the same stacks (`--group functions`, the grouping the page uses); a size, not a time.
  const f6 = '6. HTML page / text --group report (10k thr)';
  if (cliBuilt) {
    progress('HTML and text reports of 10,000 threads …');
    await guarded(f6, async () => {
      const dump = sizes.mid === 10_000 ? mid : sizes.big === 10_000 ? big : await ensureDump({ threads: 10_000 });
      const html = join(BENCH_DIR, `report-${process.pid}.html`);
      const text = join(BENCH_DIR, `report-${process.pid}-group.txt`);
      const plain = join(BENCH_DIR, `report-${process.pid}.txt`);
      const htmlRun = await runCli(dump.path, ['--format', 'html'], html);
      await runCli(dump.path, ['--group', 'functions'], text);
      await runCli(dump.path, [], plain);
      const [htmlBytes, textBytes, plainBytes] = [html, text, plain].map((f) => statSync(f).size) as [number, number, number];
      printFigure(
        f6,
        htmlBytes / textBytes,
        2,
        { sense: 'max', limit: 2 },
        `${mb(htmlBytes)} vs ${mb(textBytes)}; ${(htmlBytes / plainBytes).toFixed(1)}× the text report without stacks (${mb(plainBytes)}); rendered in ${ms(htmlRun.ms)}`,
      );
    });
  } else {
    printUnavailable(f6, 'the analyze command is not built yet', 'SKIP');
  }

  // Figure 7 (issue 16): the founding report with --source on a tree of 5,000 C files, over the
  // same without it, runs interleaved; and the grammars' load time (web-tree-sitter + C + C++).
  const f7 = `7. founding report --source (${SOURCE_TREE_FILES / 1000}k C files) / without`;
  if (cliBuilt) {
    progress(`founding report with and without --source on ${SOURCE_TREE_FILES} C files (${options.startupRuns} runs each) …`);
    await guarded(f7, async () => {
      const tree = ensureSourceTree(FOUNDING);
      const without: number[] = [];
      const withSource: number[] = [];
      for (let i = 0; i < options.startupRuns; i++) {
        without.push((await runCli(FOUNDING, [], null)).ms);
        withSource.push((await runCli(FOUNDING, ['--source', tree], null)).ms);
      }
      // The grammars' load time: the runtime and the C grammar (what the founding report's C files
      // need), then the C++ one; the first load in this process, then again.
      const { loadGrammars } = await import('../../src/source/grammars.js');
      const loads: Array<{ c: number; cpp: number }> = [];
      for (let i = 0; i < 3; i++) {
        const g = await loadGrammars();
        await g.language('c');
        const c = g.loadMs();
        await g.language('cpp');
        loads.push({ c, cpp: g.loadMs() - c });
      }
      const first = loads[0] as { c: number; cpp: number };
      printFigure(
        f7,
        median(withSource) / median(without),
        2,
        { sense: 'max', limit: 1.5 },
        `${ms(median(withSource))} vs ${ms(median(without))}; grammar load: runtime + C ${ms(first.c)}, C++ ${ms(first.cpp)} (again in one process: ${ms(median(loads.slice(1).map((l) => l.c)))}, ${ms(median(loads.slice(1).map((l) => l.cpp)))})`,
      );
    });
  } else {
    printUnavailable(f7, 'the analyze command is not built yet', 'SKIP');
  }

  // Parse throughput (issue 2).
  const fp = `parse throughput(${midLabel}), MB/s`;
  if (parserBuilt) {
    progress(`parser alone on ${midLabel} (${options.runs} runs) …`);
    await guarded(fp, async () => {
      const rates: number[] = [];
      const parseMs: number[] = [];
      let last: Record<string, number> = {};
      for (let i = 0; i < options.runs; i++) {
        const { result } = await worker('parse', mid.path);
        last = result;
        parseMs.push(result.ms as number);
        rates.push((result.bytes as number) / 1e6 / ((result.ms as number) / 1000));
      }
      const ratio = median(parseMs) / median(readSplitInnerMs);
      printFigure(
        fp,
        median(rates),
        1,
        { sense: 'min', limit: 60 },
        `parse / read-and-split ${ratio.toFixed(2)}; ${last.backtraces} backtraces, ${last.frames} frames, import ${ms(last.importMs as number)}, peak RSS ${((last.maxRssKiB as number) / 1024).toFixed(0)} MiB`,
      );
    });
  } else {
    printUnavailable(fp, 'src/parse/index.ts is not built yet', 'SKIP');
  }

  await hangShapes();

  if (options.attach) {
    await attachFigure();
    await samplesFigure();
  } else {
    printUnavailable('attach(100 threads) / gdb thread apply all bt', 'not measured: --no-attach', 'SKIP');
    printUnavailable('attach --samples 3 / 3 × gdb thread apply all bt (100 threads)', 'not measured: --no-attach', 'SKIP');
  }

  for (const line of figureLines.sort((a, b) => a.order - b.order)) console.log(line.text);

  if (errors.length > 0) {
    console.log(`\n${errors.length} error(s):`);
    for (const e of errors) console.log(`  ${e}`);
    return 1;
  }
  return 0;
}

// `node --test dist/test/` runs every file under dist/test; the benchmark must not run there.
if (process.env.NODE_TEST_CONTEXT === undefined) {
  try {
    process.exitCode = await main();
  } catch (error) {
    process.stderr.write(`bench: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`);
    process.exitCode = 1;
  }
}
