/**
 * The process boundary: the only module that reads `process`. It builds the CLI's I/O from the
 * real streams, runs the program and sets `process.exitCode` (never `process.exit()`, so piped
 * output is flushed).
 *
 * `waitgraph attach PID` (and `core`) starts gdb first, before the program and its commands are imported
 * (live/early.ts): gdb attaches and reads symbols while node loads the parser, rules and
 * reporters, instead of after (issue 4: attach within 1.3 × gdb's own `thread apply all bt`).
 * Likewise `waitgraph FILE` on a big file starts the worker that analyses its second half
 * (early-split.ts) before the CLI loads.
 */
import { readFileSync } from 'node:fs';
import type { CliIO } from './io.js';

const argv = process.argv.slice(2);
const NOT_ANALYZE = new Set(['parse', 'check', 'schema', 'help']);
// Only an attach or core line loads the gdb driver here (others would pay ~10 ms for nothing).
const early = argv[0] === 'attach' || argv[0] === 'core' ? await import('../live/early.js') : null;
early?.startEarly(argv, process.env, process.cwd());
// A plain analyze of a big file starts its second thread now (early-split.ts): only a line with a
// word that can be a file loads that module.
const split = early === null && argv.some((a) => !a.startsWith('-')) && !NOT_ANALYZE.has(argv[0] as string) ? await import('./early-split.js') : null;
split?.startEarlySplit(argv, process.env, process.cwd());

const { runCli } = await import('./program.js');

const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

const io: CliIO = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  // Created on first use: only a command that reads stdin pays for opening it.
  get stdin() {
    return process.stdin;
  },
  stdoutIsTTY: process.stdout.isTTY === true,
  stderrIsTTY: process.stderr.isTTY === true,
  env: process.env,
  cwd: process.cwd(),
};

// A closed pipe (`waitgraph … | head`) is not an error worth a stack trace.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(process.exitCode ?? 0);
  throw error;
});

try {
  process.exitCode = await runCli(argv, io, packageJson.version);
} finally {
  // An early gdb the command did not take (it failed before running) detaches and exits.
  await early?.releaseEarlyAttach();
  // A worker the analyze command did not take (it failed, or ran otherwise) stops.
  split?.releaseEarlySplit();
}
