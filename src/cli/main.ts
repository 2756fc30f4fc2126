/**
 * The process boundary: the only module that reads `process`. It builds the CLI's I/O from the
 * real streams, runs the program and sets `process.exitCode` (never `process.exit()`, so piped
 * output is flushed).
 */
import { readFileSync } from 'node:fs';
import { runCli } from './program.js';
import type { CliIO } from './io.js';

const packageJson = JSON.parse(readFileSync(new URL('../../../package.json', import.meta.url), 'utf8')) as { version: string };

const io: CliIO = {
  out: (text) => void process.stdout.write(text),
  err: (text) => void process.stderr.write(text),
  stdin: process.stdin,
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

process.exitCode = await runCli(process.argv.slice(2), io, packageJson.version);
