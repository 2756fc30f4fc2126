/** Runs the real bin/waitgraph.js in a child process, as a user would. */
import { spawnSync } from 'node:child_process';
import { BIN, ROOT } from './paths.js';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runWaitgraph(args: string[], options: { input?: string; env?: Record<string, string> } = {}): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    cwd: ROOT,
    input: options.input ?? '',
    encoding: 'utf8',
    env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...options.env },
    maxBuffer: 256 * 1024 * 1024,
    timeout: 60_000,
  });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr };
}
