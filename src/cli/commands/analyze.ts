/**
 * `waitgraph [analyze] [FILE…|-]`: the default command. Reads each dump (stdin when none is
 * given), analyses it while it streams, prints the report in the chosen format and sets the exit
 * code: 0 nothing found (or a crash alone), 1 deadlock or hang, 2 usage or input error (thrown, mapped in program.ts).
 */
import { Option, type Command } from 'commander';
import type { CliIO, ExitSink } from '../io.js';
import { ExitCode } from '../exit-codes.js';
import { InputError, UsageError } from '../../errors.js';
import { analyzeStream, isFinding } from '../../analyze/index.js';
import { addRuleOptions, rulesFromFlags, type RuleFlags } from '../rule-options.js';
import { createChalk, FORMATS, reporters, type Format } from '../../report/index.js';
import { renderJsonChunks, renderJsonListChunks } from '../../report/json.js';
import type { Analysis } from '../../model/analysis.js';
import { readInputChunks, refuseSilentTerminal } from '../read-input.js';
import { GROUP_MODES, type GroupMode } from '../../report/group.js';
import { visible } from '../../model/text-hygiene.js';
import { gdbCommandFile } from '../../analyze/gdb-commands.js';
import { checkWritable, writeOutputFile } from '../output-file.js';

interface AnalyzeFlags extends RuleFlags {
  format: Format;
  /** --color / --no-color; undefined when neither was given. */
  color?: boolean;
  /** --group: print stacks, alike ones once (text; Markdown always groups, by functions unless given). */
  group?: GroupMode;
  /** --gdb-commands FILE: the report's questions for gdb, as a command file. */
  gdbCommands?: string;
}

/**
 * The formats whose reporter prints stacks (Markdown and HTML group and show them). Every other format
 * reads the analysis alone, so each backtrace's frames are dropped as soon as it is analysed: a
 * 300 MB dump is then not held in memory (issue 7). test/cli/commands/analyze-keep-frames.test.ts fails when a
 * reporter outside this set starts to need frames.
 */
export const FORMATS_NEEDING_FRAMES: ReadonlySet<Format> = new Set<Format>(['markdown', 'html']);

export function registerAnalyze(program: Command, io: CliIO, sink: ExitSink): void {
  const command = program
    .command('analyze', { isDefault: true })
    .description('Find deadlocks and hangs in gdb thread dumps and explain them (the default command).')
    .argument('[files...]', 'files holding gdb output (`thread apply all bt`), or - for standard input (the default)')
    .addOption(new Option('-f, --format <format>', 'report format').choices(FORMATS).default('text'));
  addRuleOptions(command)
    .addOption(new Option('--group <mode>', 'print the stacks, threads with alike stacks once: exact frames or the same functions').choices(GROUP_MODES))
    .option('--color', 'colour the text report even when stdout is not a terminal')
    .option('--no-color', 'never colour the report (as NO_COLOR=1)')
    .option('--gdb-commands <file>', "also write the report's gdb questions (who holds each lock) as a command file: gdb -p PID -batch -x FILE >> DUMP, then analyse DUMP again")
    .action(async (files: string[], flags: AnalyzeFlags) => {
      refuseSilentTerminal(files.length > 0, io);
      const inputs = files.length === 0 ? ['-'] : files;
      if (flags.gdbCommands !== undefined) {
        if (inputs.length > 1) throw new UsageError('--gdb-commands asks about one process: give one dump (or concatenate the pieces of one: cat a b | waitgraph --gdb-commands FILE)');
        checkWritable(flags.gdbCommands, io.cwd, 'the gdb command file');
      }
      const rules = await rulesFromFlags(flags, io);
      const results: Array<{ file: string; analysis: Analysis }> = [];
      for (const file of inputs) {
        const analysis = await analyzeStream(readInputChunks(file, io), { rules, keepFrames: needsFrames(flags) });
        if (analysis.stats.backtraces === 0) {
          const shown = file === '-' ? 'standard input' : file;
          throw new InputError(`no gdb backtrace found in ${shown} (expected lines like "#0  0x… in func (…) at file.c:12")`);
        }
        results.push({ file, analysis });
      }
      if (flags.gdbCommands !== undefined) {
        const only = results[0] as (typeof results)[number];
        writeOutputFile(flags.gdbCommands, gdbCommandFile(only.analysis, only.file === '-' ? 'standard input' : only.file), io.cwd, 'the gdb command file');
      }
      if (flags.format === 'json') {
        // Written chunk by chunk: a 100,000-thread report is ~55 MB of JSON, never held whole
        // (issue 7). io.out is process.stdout.write, synchronous for files and pipes on Linux.
        const only = results.length === 1 ? (results[0] as (typeof results)[number]) : null;
        for (const chunk of only ? renderJsonChunks(only.analysis) : renderJsonListChunks(results)) io.out(chunk);
      } else io.out(await render(results, flags.format, io, flags.color, flags.group));
      sink.code = results.some((r) => isFinding(r.analysis.verdict)) ? ExitCode.Found : ExitCode.Ok;
    });
}

/** Frames are kept only for reports that print stacks: Markdown, and text with --group. */
function needsFrames(flags: AnalyzeFlags): boolean {
  return FORMATS_NEEDING_FRAMES.has(flags.format) || (flags.format === 'text' && flags.group !== undefined);
}

async function render(
  results: Array<{ file: string; analysis: Analysis }>,
  format: Format,
  io: CliIO,
  color: boolean | undefined,
  group: GroupMode | undefined,
): Promise<string> {
  const chalk = createChalk({ isTTY: io.stdoutIsTTY, env: io.env, ...(color !== undefined ? { flag: color } : {}) });
  const shared = group !== undefined ? { chalk, group } : { chalk };
  if (results.length === 1) {
    const only = results[0] as (typeof results)[number];
    return reporters[format](only.analysis, { ...shared, input: only.file });
  }
  const parts: string[] = [];
  for (const r of results) parts.push(`${chalk.bold(`== ${visible(r.file, { oneLine: true })} ==`)}\n${await reporters[format](r.analysis, { ...shared, input: r.file })}`);
  return parts.join('\n');
}
