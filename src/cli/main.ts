/**
 * The process boundary: the only module that reads `process`. It builds the CLI's I/O from the
 * real streams, runs the program and sets `process.exitCode` (never `process.exit()`, so piped
 * output is flushed).
 *
 * `waitgraph attach PID` (and `core`) starts gdb first, before the program and its commands are imported
 * (live/early.ts): gdb attaches and reads symbols while node loads the parser, rules and
 * reporters, instead of after (issue 4: attach within 1.3 × gdb's own `thread apply all bt`).
 */
import { fstatSync, readFileSync, statSync, writeSync } from 'node:fs';
import { createRequire } from 'node:module';
import type { CliIO } from './io.js';
import { OutputError } from '../errors.js';

/**
 * The whole run, as one promise rather than top-level awaits: the bundle build (build/bundle.ts)
 * makes the CLI one CommonJS script so V8 can reuse its compiled code from a cache, and CommonJS
 * has no top-level await. `done` settles when the command has finished.
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  // Only an attach or core line loads the gdb driver here (others would pay ~10 ms for nothing).
  const early = argv[0] === 'attach' || argv[0] === 'core' ? await import('../live/early.js') : null;
  early?.startEarly(argv, process.env, process.cwd());

  const { runCli } = await import('./program.js');

  const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

  const toFile = stdoutIsFileOrNull();
  const io: CliIO = {
    // stdout to a file writes synchronously and throws (a full disk: ENOSPC); to a pipe the
    // error comes later as an event (below). Either way: one line, exit 2.
    out: (text) => {
      try {
        if (toFile) writeSync(1, text);
        else process.stdout.write(text);
      } catch (error) {
        throw outputError(error as NodeJS.ErrnoException);
      }
    },
    err: (text) => void process.stderr.write(text),
    // Created on first use: only a command that reads stdin pays for opening it.
    get stdin() {
      return process.stdin;
    },
    stdoutIsTTY: !toFile && process.stdout.isTTY === true,
    // Read when asked (only without a file, only by check's progress line): node:tty loads net and
    // the streams, and process.stderr is a stream of its own, ~1–2 ms of a start that writes its
    // report to a file or a pipe (issue 18, figure 4).
    get stdinIsTTY() {
      return (createRequire(import.meta.url)('node:tty') as typeof import('node:tty')).isatty(0);
    },
    ...(!toFile && process.stdout.isTTY === true && process.stdout.columns > 0 ? { stdoutColumns: process.stdout.columns } : {}),
    get stderrIsTTY() {
      return process.stderr.isTTY === true;
    },
    env: process.env,
    cwd: process.cwd(),
  };

  // A closed pipe (`waitgraph … | head`) is not an error worth a stack trace; any other write
  // error on a pipe (EIO, ENOSPC behind it) is one line and exit 2.
  if (!toFile) {
    process.stdout.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
      process.stderr.write(`waitgraph: ${outputError(error).message}\n`);
      process.exit(2);
    });
  }

  try {
    process.exitCode = await runCli(argv, io, packageJson.version);
  } finally {
    // An early gdb the command did not take (it failed before running) detaches and exits.
    await early?.releaseEarlyAttach();
  }
}

/**
 * Whether standard output is a regular file or /dev/null. Then the report is written with
 * fs.writeSync, which is what process.stdout does for a file (its SyncWriteStream), without making
 * process.stdout and loading the stream modules behind it (~1.5 ms of a start; issue 18, figure 4).
 * A terminal, a pipe or a socket (or anything fstat cannot tell) goes through process.stdout.
 */
function stdoutIsFileOrNull(): boolean {
  try {
    const out = fstatSync(1);
    if (out.isFile()) return true;
    return out.isCharacterDevice() && out.rdev === statSync('/dev/null').rdev;
  } catch {
    return false;
  }
}

/** `cannot write the report to standard output: no space left on device (ENOSPC)`. */
function outputError(error: NodeJS.ErrnoException): OutputError {
  const words: Record<string, string> = { ENOSPC: 'no space left on device', EIO: 'an input/output error', EDQUOT: 'over the disk quota', EFBIG: 'the file is too large', EPIPE: 'the reader closed the pipe' };
  const why = error.code ? `${words[error.code] ?? error.message} (${error.code})` : error.message;
  return new OutputError(`cannot write the report to standard output: ${why}`);
}

export const done: Promise<void> = main();
