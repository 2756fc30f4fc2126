/**
 * `waitgraph attach PID`: runs gdb on a live process (one gdb over MI: `thread apply all bt`, then
 * the owner of every lock a thread waits for), and reports like `analyze` — with the cycles that
 * gdb's answers prove. The process is detached (never killed) when gdb exits.
 */
import { Option, type Command } from 'commander';
import type { CliIO, ExitSink } from '../io.js';
import { ExitCode } from '../exit-codes.js';
import { UsageError } from '../../errors.js';
import { createLiveAnalyzer, isFinding, openSource } from '../../analyze/index.js';
import { addRuleOptions, rulesFromFlags } from '../rule-options.js';
import { FORMATS, createChalk, isFormat, reporters } from '../../report/index.js';
import { gdbIndexCacheFrom, gdbPathFrom } from '../../live/gdb-session.js';
import { investigate, parsePid, type LiveAnalyzer, type LiveTarget } from '../../live/investigate.js';
import { claimEarlyAttach } from '../../live/early.js';
import { transcriptOf } from '../../live/owner-queries.js';
import type { LiveSample } from '../../live/investigate.js';
import { markerLine } from '../../analyze/snapshots/index.js';
import { parseInterval } from '../snapshot-inputs.js';
import { checkWritable, writeOutputFile } from '../output-file.js';
import { textWidth } from '../text-width.js';

export interface LiveCommandOptions {
  format: string;
  rules: string[];
  disable: string[];
  timeout: string;
  saveDump?: string;
  /** --source DIR (repeatable): the code the frames point at. */
  source: string[];
  /** attach --samples [N]: N snapshots (true: the default 3). */
  samples?: string | boolean;
  /** attach --interval SECONDS between samples. */
  interval?: string;
  /** attach --owners last|each. */
  owners?: string;
}

/** Options shared by `attach` and `core`. */
export function addLiveOptions(command: Command): Command {
  return addRuleOptions(command)
    .addOption(new Option('-f, --format <format>', 'report format').choices(FORMATS).default('text'))
    .option('--timeout <seconds>', 'limit for each gdb step (attach, backtrace, each owner query)', '120')
    .option('--source <dir>', 'read the C/C++ code the frames point at: the locks each function took before its line are held (repeatable)', (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--save-dump <file>', "also write what gdb printed to this file: the backtraces, then the owner questions and gdb's answers as a session transcript (to paste into a bug report; it re-analyses to the same verdict)");
}

/** Runs the live investigation and prints the report; returns the exit code. */
export async function runLive(target: LiveTarget, options: LiveCommandOptions, io: CliIO): Promise<number> {
  if (!isFormat(options.format)) throw new UsageError(`unknown format ${options.format} (choose from ${FORMATS.join(', ')})`);
  if (!/^\d{1,5}$/.test(options.timeout) || Number(options.timeout) < 1) throw new UsageError(`--timeout takes whole seconds (1–99999), not ${JSON.stringify(options.timeout)}`);
  const sampling = samplingFrom(options);
  // Before gdb does any work: a dump that cannot be saved is a one-line error, not a lost run.
  if (options.saveDump) checkWritable(options.saveDump, io.cwd, 'the dump');
  // A missing --source folder, too (with --source gdb is not started early: see live/early.ts).
  const reader = options.source.length > 0 ? await openSource({ dirs: options.source, cwd: io.cwd, allGrammars: true, ...(options.rules ? { rules: options.rules } : {}) }) : undefined;
  // Rules and parser are made ready while gdb attaches.
  const prepare = async (): Promise<LiveAnalyzer> => createLiveAnalyzer(await rulesFromFlags(options, io), reader);
  const format = options.format;
  const chalk = createChalk({ isTTY: io.stdoutIsTTY, env: io.env });
  const result = await investigate(target, {
    gdbPath: gdbPathFrom(io.env),
    indexCache: gdbIndexCacheFrom(io.env),
    prepare,
    commandTimeoutMs: Number(options.timeout) * 1000,
    cwd: io.cwd,
    // gdb started by cli/main.ts before the modules loaded, if argv was a plain attach/core line.
    started: claimEarlyAttach(),
    // The report is written while gdb detaches.
    render: (analysis) => reporters[format](analysis, { chalk, width: textWidth(io), ...(options.saveDump ? { input: options.saveDump } : {}) }),
    samples: sampling.samples,
    intervalMs: sampling.intervalMs,
    ownersEach: sampling.ownersEach,
  });
  if (options.saveDump) {
    const samples = result.samples ?? [{ text: result.text, asked: result.asked, at: 0 }];
    const pid = target.kind === 'pid' ? target.pid : 0;
    writeOutputFile(options.saveDump, savedSamples(samples, pid), io.cwd, 'the dump');
  }
  io.out(result.rendered ?? '');
  return isFinding(result.analysis.verdict) ? ExitCode.Found : ExitCode.Ok;
}

/** Samples of attach --samples when the option is given with no number. */
export const DEFAULT_SAMPLES = 3;
/** Seconds between samples when --interval is not given. */
export const DEFAULT_INTERVAL = 1;
const MAX_SAMPLES = 100;

/** --samples / --interval / --owners, checked: one sample (today's attach) unless asked for more. */
function samplingFrom(options: LiveCommandOptions): { samples: number; intervalMs: number; ownersEach: boolean } {
  let samples = 1;
  if (options.samples === true) samples = DEFAULT_SAMPLES;
  else if (typeof options.samples === 'string') {
    if (!/^\d{1,3}$/.test(options.samples) || Number(options.samples) < 1 || Number(options.samples) > MAX_SAMPLES) throw new UsageError(`--samples takes a number of snapshots (1–${MAX_SAMPLES}), not ${JSON.stringify(options.samples)}`);
    samples = Number(options.samples);
  } else if (options.interval !== undefined) samples = DEFAULT_SAMPLES;
  const interval = options.interval !== undefined ? parseInterval(options.interval) : DEFAULT_INTERVAL;
  if (options.owners !== undefined && options.owners !== 'last' && options.owners !== 'each') throw new UsageError(`--owners takes last or each, not ${JSON.stringify(options.owners)}`);
  return { samples, intervalMs: Math.round(interval * 1000), ownersEach: options.owners === 'each' };
}

/**
 * What --save-dump keeps: each sample's backtraces (and the owner questions asked on it), separated
 * as gdb prints a detach, with when the next was taken — split.ts reads the series back from it:
 *   [Inferior 1 (process 25660) detached]
 *   waitgraph: snapshot 2 of 3, 1.002 s after the first
 */
export function savedSamples(samples: ReadonlyArray<LiveSample>, pid: number): string {
  const parts: string[] = [];
  samples.forEach((sample, i) => {
    const text = sample.text.endsWith('\n') || sample.text.length === 0 ? sample.text : `${sample.text}\n`;
    if (i > 0) parts.push(`[Inferior 1 (process ${pid}) detached]\n${markerLine(i + 1, samples.length, sample.at)}\n`);
    parts.push(text + transcriptOf(sample.asked));
  });
  return parts.join('');
}

export function registerAttach(program: Command, io: CliIO, sink: ExitSink): void {
  const command = program
    .command('attach')
    .description('Attach gdb to a running process, take its thread backtraces, ask gdb who owns each lock a thread waits for, and report deadlocks (gdb from PATH or $WAITGRAPH_GDB).')
    .argument('<pid>', 'process id of the hung process')
    .option('--samples [n]', `take N backtrace snapshots (${DEFAULT_SAMPLES} when no number is given), detaching between them so the process runs: threads that never moved, and a verdict over time`)
    .option('--interval <seconds>', `seconds between samples (default ${DEFAULT_INTERVAL}; implies --samples)`)
    .option('--owners <when>', 'with --samples: ask the lock owners on the last sample (last, the default) or on every one (each)');
  addLiveOptions(command).action(async (pid: string, options: LiveCommandOptions) => {
    sink.code = await runLive({ kind: 'pid', pid: parsePid(pid) }, options, io);
  });
}
