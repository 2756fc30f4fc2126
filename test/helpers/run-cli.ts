/** Runs the real bin/waitgraph.js in a child process, as a user would. */
import { spawnSync } from 'node:child_process';
import { closeSync, openSync } from 'node:fs';
import { BIN, ROOT } from './paths.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/**
 * `stdoutFile`: stdout goes to that file (`/dev/full` for a full disk) instead of a pipe, and
 * `stdout` comes back empty.
 */
export function runWaitgraph(args: string[], options: { input?: string; env?: Record<string, string>; stdoutFile?: string } = {}): CliResult {
  const fd = options.stdoutFile !== undefined ? openSync(options.stdoutFile, 'w') : null;
  try {
    return run(args, options, fd);
  } finally {
    if (fd !== null) closeSync(fd);
  }
}

function run(args: string[], options: { input?: string; env?: Record<string, string> }, stdoutFd: number | null): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    input: options.input ?? '',
    ...(stdoutFd !== null ? { stdio: ['pipe', stdoutFd, 'pipe'] } : {}),
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env },
    maxBuffer: 256 * 1024 * 1024,
    timeout: 60_000,
  });
  return { code: result.status ?? -1, stdout: result.stdout ?? '', stderr: result.stderr };
}
