/**
 * `waitgraph attach PID`: runs gdb on a live process (one gdb over MI: `thread apply all bt`, then
 * the owner of every lock a thread waits for), and reports like `analyze` — with the cycles that
 * gdb's answers prove. The process is detached (never killed) when gdb exits.
 */
import { Option, type Command } from 'commander';
import type { CliIO, ExitSink } from '../io.js';
import { ExitCode } from '../exit-codes.js';
import { UsageError } from '../../errors.js';
import { createLiveAnalyzer, isFinding } from '../../analyze/index.js';
import { addRuleOptions, rulesFromFlags } from '../rule-options.js';
import { FORMATS, createChalk, isFormat, reporters } from '../../report/index.js';
import { gdbIndexCacheFrom, gdbPathFrom } from '../../live/gdb-session.js';
import { investigate, parsePid, type LiveAnalyzer, type LiveTarget } from '../../live/investigate.js';
import { claimEarlyAttach } from '../../live/early.js';
import { transcriptOf } from '../../live/owner-queries.js';
import { checkWritable, writeOutputFile } from '../output-file.js';

export interface LiveCommandOptions {
  format: string;
  rules: string[];
  disable: string[];
  timeout: string;
  saveDump?: string;
}

/** Options shared by `attach` and `core`. */
export function addLiveOptions(command: Command): Command {
  return addRuleOptions(command)
    .addOption(new Option('-f, --format <format>', 'report format').choices(FORMATS).default('text'))
    .option('--timeout <seconds>', 'limit for each gdb step (attach, backtrace, each owner query)', '120')
    .option('--save-dump <file>', "also write what gdb printed to this file: the backtraces, then the owner questions and gdb's answers as a session transcript (to paste into a bug report; it re-analyses to the same verdict)");
}

/** Runs the live investigation and prints the report; returns the exit code. */
export async function runLive(target: LiveTarget, options: LiveCommandOptions, io: CliIO): Promise<number> {
  if (!isFormat(options.format)) throw new UsageError(`unknown format ${options.format} (choose from ${FORMATS.join(', ')})`);
  if (!/^\d{1,5}$/.test(options.timeout) || Number(options.timeout) < 1) throw new UsageError(`--timeout takes whole seconds (1–99999), not ${JSON.stringify(options.timeout)}`);
  // Before gdb does any work: a dump that cannot be saved is a one-line error, not a lost run.
  if (options.saveDump) checkWritable(options.saveDump, io.cwd, 'the dump');
  // Rules and parser are made ready while gdb attaches.
  const prepare = async (): Promise<LiveAnalyzer> => createLiveAnalyzer(await rulesFromFlags(options, io));
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
    render: (analysis) => reporters[format](analysis, { chalk, ...(options.saveDump ? { input: options.saveDump } : {}) }),
  });
  if (options.saveDump) {
    const text = result.text.endsWith('\n') || result.text.length === 0 ? result.text : `${result.text}\n`;
    writeOutputFile(options.saveDump, text + transcriptOf(result.asked), io.cwd, 'the dump');
  }
  io.out(result.rendered ?? '');
  return isFinding(result.analysis.verdict) ? ExitCode.Found : ExitCode.Ok;
}

export function registerAttach(program: Command, io: CliIO, sink: ExitSink): void {
  const command = program
    .command('attach')
    .description('Attach gdb to a running process, take its thread backtraces, ask gdb who owns each lock a thread waits for, and report deadlocks (gdb from PATH or $WAITGRAPH_GDB).')
    .argument('<pid>', 'process id of the hung process');
  addLiveOptions(command).action(async (pid: string, options: LiveCommandOptions) => {
    sink.code = await runLive({ kind: 'pid', pid: parsePid(pid) }, options, io);
  });
}
