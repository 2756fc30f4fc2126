/**
 * `waitgraph [analyze] [FILE…|-]`: the default command. Reads each dump (stdin when none is
 * given), analyses it while it streams, prints the report in the chosen format and sets the exit
 * code: 0 nothing found (or a crash alone), 1 deadlock or hang, 2 usage or input error (thrown, mapped in program.ts).
 */
import { resolve } from 'node:path';
import { Option, type Command } from 'commander';
import type { CliIO, ExitSink } from '../io.js';
import { ExitCode } from '../exit-codes.js';
import { InputError, UsageError } from '../../errors.js';
import { analyzeStream, isFinding, openSource } from '../../analyze/index.js';
import { addRuleOptions, rulesFromFlags, type RuleFlags } from '../rule-options.js';
import { createChalk, FORMATS, type Format } from '../../report/index.js';
import { renderJsonChunks, renderJsonListChunks } from '../../report/json.js';
import type { Analysis } from '../../model/analysis.js';
import { readInputChunks, refuseSilentTerminal } from '../read-input.js';
import { GROUP_MODES, type GroupMode } from '../../report/group.js';
import { renderDocument } from '../../report/document.js';
import { textWidth } from '../text-width.js';
import { gdbCommandFile } from '../../analyze/gdb-commands.js';
import { checkWritable, writeOutputFile } from '../output-file.js';
import { collectAtStageEnd } from '../heap-growth.js';
import { addRedactOption, readInputText, redactLevel } from '../redact-option.js';
import { analyzeText } from '../../analyze/index.js';
import { redactText } from '../../analyze/redact/index.js';
import { createAnalyzer, parseDump, parseDumpStream } from '../../analyze/index.js';
import { givenSnapshots, parseInterval, recogniseSnapshots, type ReadInput, type SeriesReader } from '../snapshot-inputs.js';

interface AnalyzeFlags extends RuleFlags {
  format: Format;
  /** --color / --no-color; undefined when neither was given. */
  color?: boolean;
  /** --group: print stacks, alike ones once (text; Markdown always groups, by functions unless given). */
  group?: GroupMode;
  /** --gdb-commands FILE: the report's questions for gdb, as a command file. */
  gdbCommands?: string;
  /** --source DIR (repeatable): the code the frames point at, read for the locks each function holds. */
  source: string[];
  /** --redact [all]: analyse the redacted dump (analyze/redact/); a value other than `all` is a file. */
  redact?: string | boolean;
  /** --sarif-root DIR: SARIF artifact URIs are relative to it (default: the working directory). */
  sarifRoot?: string;
  /** --limit N: thread numbers listed per group in the text report. */
  limit?: string;
  /** --snapshots: the dumps are snapshots of one process, in the order taken. */
  snapshots?: boolean;
  /** --interval SECONDS: the time between the snapshots. */
  interval?: string;
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
    .option('--source <dir>', "read the C/C++ code the frames point at (the checkout the program was built from): the locks each function took before its line are held (repeatable)", (value: string, previous: string[]) => [...previous, value], [] as string[])
    .option('--limit <n>', 'text: list at most N threads per group (… and 4,800 more); JSON stays complete')
    .option('--sarif-root <dir>', 'SARIF: artifact URIs relative to this folder (default: the current directory); frame paths outside it become logical locations')
    .option('--snapshots', 'the dumps (several files, or several `thread apply all bt` in one) are snapshots of one process in the order taken: threads that never moved, and a verdict over time')
    .option('--interval <seconds>', 'with snapshots: the seconds between them (for how long a thread was stuck)')
    .option('--gdb-commands <file>', "also write the report's gdb questions (who holds each lock) as a command file: gdb -p PID -batch -x FILE >> DUMP, then analyse DUMP again");
  addRedactOption(command)
    .action(async (given: string[], flags: AnalyzeFlags) => {
      const { level, files } = redactLevel(flags.redact, given);
      refuseSilentTerminal(files.length > 0, io);
      if (flags.limit !== undefined && (!/^\d{1,9}$/.test(flags.limit) || Number(flags.limit) < 1)) throw new UsageError(`--limit takes a number of threads (1 or more), not ${JSON.stringify(flags.limit)}`);
      const inputs = files.length === 0 ? ['-'] : files;
      if (flags.gdbCommands !== undefined) {
        // Snapshots are one process: the questions are the last snapshot's.
        if (inputs.length > 1 && flags.snapshots !== true) throw new UsageError('--gdb-commands asks about one process: give one dump (or concatenate the pieces of one: cat a b | waitgraph --gdb-commands FILE)');
        checkWritable(flags.gdbCommands, io.cwd, 'the gdb command file');
      }
      const rules = await rulesFromFlags(flags, io);
      const source = flags.source.length > 0 ? await openSource({ dirs: flags.source, cwd: io.cwd, rules: flags.rules }) : undefined;
      const interval = flags.interval !== undefined ? parseInterval(flags.interval) : null;
      const read: ReadInput[] = [];
      // The redacted text of each input (with --redact), so a snapshot series can be read again with its frames.
      const texts: string[] = [];
      // --snapshots compares every frame: kept from the start (standard input cannot be read twice).
      const keepAll = flags.snapshots === true;
      for (const file of inputs) {
        // The source reader reads each thread's frames, so they are kept until the analysis is done.
        const keepFrames = keepAll || source !== undefined || needsFrames(flags);
        const options = source !== undefined ? { rules, keepFrames: true, source, atStageEnd: collectAtStageEnd } : { rules, keepFrames, atStageEnd: collectAtStageEnd };
        let analysis: Analysis;
        let shown = file;
        if (level === null) analysis = await analyzeStream(readInputChunks(file, io), options);
        else {
          // Every report is made from the redacted text, so no format can show what it hides.
          const redacted = redactText(await readInputText(file, io), { level, rules });
          if (source !== undefined) await source.prepare();
          analysis = analyzeText(redacted.text, options);
          texts[read.length] = redacted.text;
          if (file !== '-') shown = redacted.label(file);
        }
        if (analysis.stats.backtraces === 0) {
          throw new InputError(`no gdb backtrace found in ${shown === '-' ? 'standard input' : shown} (expected lines like "#0  0x… in func (…) at file.c:12")`);
        }
        read.push({ shown, analysis, framesKept: keepFrames, path: file === '-' ? '-' : resolve(io.cwd, file) });
      }
      // Made when a series is re-analysed, not before: one dump never is, and building the
      // analyzer's matcher was ~1.3 ms of every start (issue 18, figure 4).
      let session: ReturnType<typeof createAnalyzer> | null = null;
      const reader: SeriesReader = {
        interval,
        analyze: (dump) => (session ??= createAnalyzer(source !== undefined ? { rules, source } : { rules })).analyze(dump),
        withFrames: async (i) => {
          const input = read[i] as ReadInput;
          if (input.framesKept) return input.analysis.dump;
          const text = texts[i];
          if (text !== undefined) return parseDump(text);
          const file = inputs[i] as string;
          if (file === '-') return null;
          return parseDumpStream(readInputChunks(file, io), { keepFrames: true });
        },
      };
      const series = flags.snapshots === true ? [await givenSnapshots(read, reader)] : await recogniseSnapshots(read, reader);
      const results: Array<{ file: string; analysis: Analysis }> = series.map((r) => ({ file: r.shown, analysis: r.analysis }));
      if (flags.gdbCommands !== undefined) {
        const only = results[0] as (typeof results)[number];
        writeOutputFile(flags.gdbCommands, gdbCommandFile(only.analysis, only.file === '-' ? 'standard input' : only.file), io.cwd, 'the gdb command file');
      }
      if (flags.format === 'json') {
        // Written chunk by chunk: a 100,000-thread report is ~55 MB of JSON, never held whole
        // (issue 7). io.out is process.stdout.write, synchronous for files and pipes on Linux.
        const only = results.length === 1 ? (results[0] as (typeof results)[number]) : null;
        for (const chunk of only ? renderJsonChunks(only.analysis) : renderJsonListChunks(results)) io.out(chunk);
      } else io.out(await render(results, flags.format, io, flags, program.version() ?? ''));
      sink.code = results.some((r) => isFinding(r.analysis.verdict)) ? ExitCode.Found : ExitCode.Ok;
    });
}

/** Frames are kept only for reports that print stacks: Markdown, and text with --group. */
function needsFrames(flags: AnalyzeFlags): boolean {
  return FORMATS_NEEDING_FRAMES.has(flags.format) || (flags.format === 'text' && flags.group !== undefined);
}

async function render(
  results: Array<{ file: string; analysis: Analysis }>,
  format: Exclude<Format, 'json'>,
  io: CliIO,
  flags: AnalyzeFlags,
  version: string,
): Promise<string> {
  const chalk = createChalk({ isTTY: io.stdoutIsTTY, env: io.env, ...(flags.color !== undefined ? { flag: flags.color } : {}) });
  // SARIF names files relative to --sarif-root (default: here), so it is given absolute paths.
  const entries = format === 'sarif' ? results.map((r) => ({ ...r, file: r.file === '-' ? r.file : resolve(io.cwd, r.file) })) : results;
  return renderDocument(entries, format, {
    chalk,
    width: textWidth(io),
    ...(flags.limit !== undefined ? { limit: Number(flags.limit) } : {}),
    ...(flags.group !== undefined ? { group: flags.group } : {}),
    ...(format === 'sarif' ? { version, sarifRoot: resolve(io.cwd, flags.sarifRoot ?? '.') } : {}),
  });
}

