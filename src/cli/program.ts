/**
 * The commander program: one sub-command per module in ./commands. `analyze` is the default, so
 * `waitgraph dump.txt` and `gdb … | waitgraph` analyse. Each command's action returns its exit
 * code; nothing here touches `process`.
 */
import { Command, CommanderError } from 'commander';
import type { CliIO } from './io.js';
import { ExitCode } from './exit-codes.js';
import { UsageError, WaitgraphError } from '../errors.js';
import { registerAnalyze } from './commands/analyze.js';
import { registerParse } from './commands/parse.js';
import { registerCheck } from './commands/check.js';
import { registerSchema } from './commands/schema.js';
import { registerAttach } from './commands/attach.js';
import { registerCore } from './commands/core.js';
import { visible } from '../report/sanitize.js';

/** Receives the exit code of whichever action ran. */
export interface ExitSink {
  code: number;
}

export function createProgram(io: CliIO, version: string, sink: ExitSink): Command {
  const program = new Command('waitgraph')
    .description('Explain deadlocks in gdb thread dumps (`thread apply all bt` output).')
    .version(version, '-V, --version')
    .showSuggestionAfterError(true)
    .exitOverride()
    .configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(visible(s)) });
  registerAnalyze(program, io, sink);
  registerParse(program, io, sink);
  registerCheck(program, io, sink);
  registerSchema(program, io, sink);
  registerAttach(program, io, sink);
  registerCore(program, io, sink);
  for (const sub of program.commands) sub.exitOverride().configureOutput({ writeOut: (s) => io.out(s), writeErr: (s) => io.err(visible(s)) });
  return program;
}

/** Runs argv (without node and script) and returns the exit code; never throws. */
export async function runCli(argv: string[], io: CliIO, version: string): Promise<number> {
  const sink: ExitSink = { code: ExitCode.Ok };
  const program = createProgram(io, version, sink);
  try {
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

export { UsageError };
