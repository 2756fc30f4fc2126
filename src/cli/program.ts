/**
 * The commander program: one sub-command per module in ./commands. `analyze` is the default, so
 * `waitgraph dump.txt` and `gdb … | waitgraph` analyse. Each command's action returns its exit
 * code; nothing here touches `process`.
 */
import { Command, CommanderError } from 'commander';
import type { CliIO, ExitSink } from './io.js';
import { ExitCode } from './exit-codes.js';
import { WaitgraphError } from '../errors.js';
import { visible } from '../model/text-hygiene.js';

type Register = (program: Command, io: CliIO, sink: ExitSink) => void;

/**
 * Each command's module, imported only when that command can run: a start pays for the command
 * it runs (analyze: parser, rules, reports; check: zod; attach and core: the gdb driver), not for
 * all of them (issue 7, figure 4: the founding report within 2.5 × `node -e 0`).
 */
const COMMANDS: Record<string, () => Promise<Register>> = {
  analyze: async () => (await import('./commands/analyze.js')).registerAnalyze,
  parse: async () => (await import('./commands/parse.js')).registerParse,
  check: async () => (await import('./commands/check.js')).registerCheck,
  schema: async () => (await import('./commands/schema.js')).registerSchema,
  attach: async () => (await import('./commands/attach.js')).registerAttach,
  core: async () => (await import('./commands/core.js')).registerCore,
  rules: async () => (await import('./commands/rules.js')).registerRules,
  explain: async () => (await import('./commands/explain.js')).registerExplain,
  redact: async () => (await import('./commands/redact.js')).registerRedact,
};

/**
 * The commands argv may run: the default command (analyze), every command argv names, and all of
 * them for `--help` / `help` (which list them). Loading one too many only costs time.
 */
export function commandsFor(argv: readonly string[]): string[] {
  const all = Object.keys(COMMANDS);
  if (argv.some((a) => a === '-h' || a === '--help' || a === 'help')) return all;
  return all.filter((name, i) => i === 0 || argv.includes(name));
}

/** The program with the commands `argv` may run (all of them when argv is not given). */
export async function createProgram(io: CliIO, version: string, sink: ExitSink, argv?: readonly string[]): Promise<Command> {
  const program = new Command('waitgraph')
    .description('Explain deadlocks in gdb thread dumps (`thread apply all bt` output).')
    .version(version, '-V, --version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(visible(s)) });
  for (const name of argv === undefined ? Object.keys(COMMANDS) : commandsFor(argv)) (await COMMANDS[name]!())(program, io, sink);
  for (const sub of program.commands) sub.exitOverride().configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(visible(s)) });
  return program;
}

/** Runs argv (without node and script) and returns the exit code; never throws. */
export async function runCli(argv: string[], io: CliIO, version: string): Promise<number> {
  const sink: ExitSink = { code: ExitCode.Ok };
  try {
    const program = await createProgram(io, version, sink, argv);
    await program.parseAsync(argv, { from: 'user' });
    return sink.code;
  } catch (error) {
    return reportError(error, io, version);
  }
}

function reportError(error: unknown, io: CliIO, version: string): number {
  if (error instanceof CommanderError) {
    // --help and --version end through exitOverride too; they are not failures.
    if (error.code === 'commander.helpDisplayed' || error.code === 'commander.version' || error.code === 'commander.help') {
      return ExitCode.Ok;
    }
    // commander has already printed its one-line message; its own exit code (1) means "usage".
    return ExitCode.Failure;
  }
  if (error instanceof WaitgraphError) {
    // Messages name files and pids the user (or a glob over a stranger's repo) gave: no raw controls.
    io.err(`waitgraph: ${visible(oneLine(error.message), { oneLine: true })}\n`);
    return ExitCode.Failure;
  }
  const detail = error instanceof Error ? (error.stack ?? error.message) : String(error);
  io.err(`waitgraph: internal error (please report it with the input, waitgraph ${version}):\n${detail}\n`);
  return ExitCode.Failure;
}

function oneLine(message: string): string {
  return message.replace(/\s*\n\s*/g, ' ');
}

