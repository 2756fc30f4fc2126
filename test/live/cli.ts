/** Runs bin/waitgraph.js asynchronously (so several live tests can run side by side). */
import { execFile } from 'node:child_process';
import { BIN, ROOT } from '../helpers/paths.js';

export interface AsyncCliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export function runWaitgraphAsync(args: string[], env: Record<string, string> = {}, timeoutMs = 120_000, cwd: string = ROOT): Promise<AsyncCliResult> {
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { cwd, env: { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...env }, timeout: timeoutMs, maxBuffer: 64 * 1024 * 1024 }, (error, stdout, stderr) => {
      const code = error ? (typeof error.code === 'number' ? error.code : -1) : 0;
      resolve({ code, stdout, stderr });
    });
  });
}
