/** Running a measured child process: wall time, exit code, stderr, peak RSS when probed. */
import { spawn } from 'node:child_process';
import { closeSync, mkdirSync, openSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BENCH_DIR } from '../helpers/generate-dump.js';

export interface ChildRun {
  ms: number;
  code: number | null;
  signal: NodeJS.Signals | null;
  stdout: string;
  stderr: string;
  /** Peak RSS in KiB, when the child was a node process run with the RSS probe. */
  maxRssKiB: number | null;
  /** CPU time (user + system, all threads) of the child in ms, when probed. */
  cpuMs: number | null;
}

export interface ChildOptions {
  /** Write stdout to this file instead of collecting it (big reports); `null` discards it. */
  stdoutFile?: string | null;
  /** Preload the RSS probe (node children only: pass node's own arguments first in `args`). */
  probeRss?: boolean;
  env?: Record<string, string>;
  /** Variables removed from the child's environment (e.g. NODE_EXTRA_CA_CERTS for the context line). */
  unsetEnv?: string[];
  timeoutMs?: number;
}

const PROBE_PATH = fileURLToPath(new URL('./rss-probe.cjs', import.meta.url));

let probeCounter = 0;

/** Runs `command args` and measures its wall time from spawn to exit. Never throws for a failing child. */
export function runChild(command: string, args: string[], options: ChildOptions = {}): Promise<ChildRun> {
  const rssFile = options.probeRss === true ? join(BENCH_DIR, `rss-${process.pid}-${probeCounter++}.json`) : null;
  // `--hang-shapes` alone on a fresh machine runs before anything else made the folder: the probe
  // could not write its file, and every RSS and CPU figure came out NaN.
  if (rssFile !== null) mkdirSync(BENCH_DIR, { recursive: true });
  const fullArgs = rssFile !== null ? ['--require', PROBE_PATH, ...args] : args;
  const outFd = typeof options.stdoutFile === 'string' ? openSync(options.stdoutFile, 'w') : null;
  const stdout = outFd !== null ? outFd : options.stdoutFile === null ? 'ignore' : 'pipe';
  return new Promise((resolve, reject) => {
    const env: NodeJS.ProcessEnv = { ...process.env, NO_COLOR: '1', FORCE_COLOR: '0', ...(rssFile !== null ? { WAITGRAPH_BENCH_RSS_OUT: rssFile } : {}), ...options.env };
    for (const name of options.unsetEnv ?? []) delete env[name];
    const start = performance.now();
    const child = spawn(command, fullArgs, { stdio: ['ignore', stdout, 'pipe'], env });
    const out: Buffer[] = [];
    const err: Buffer[] = [];
    child.stdout?.on('data', (b: Buffer) => out.push(b));
    child.stderr?.on('data', (b: Buffer) => err.push(b));
    const timer = options.timeoutMs !== undefined ? setTimeout(() => child.kill('SIGKILL'), options.timeoutMs) : null;
    child.on('error', (error) => {
      if (timer !== null) clearTimeout(timer);
      if (outFd !== null) closeSync(outFd);
      reject(error);
    });
    child.on('close', (code, signal) => {
      const ms = performance.now() - start;
      if (timer !== null) clearTimeout(timer);
      if (outFd !== null) closeSync(outFd);
      let maxRssKiB: number | null = null;
      let cpuMs: number | null = null;
      if (rssFile !== null) {
        try {
          const probe = JSON.parse(readFileSync(rssFile, 'utf8')) as { maxRssKiB: number; cpuMs: number };
          maxRssKiB = probe.maxRssKiB;
          cpuMs = probe.cpuMs;
        } catch {
          maxRssKiB = null;
        }
        rmSync(rssFile, { force: true });
      }
      resolve({ ms, code, signal, stdout: Buffer.concat(out).toString('utf8'), stderr: Buffer.concat(err).toString('utf8'), maxRssKiB, cpuMs });
    });
  });
}

export function median(values: number[]): number {
  if (values.length === 0) return Number.NaN;
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 === 1 ? (sorted[mid] as number) : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * CPU time (user + system) of this process's finished, waited-for children so far, in ms, from
 * /proc/self/stat (cutime + cstime, clock ticks of 10 ms); NaN where /proc is missing.
 */
export function childrenCpuMs(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[13]) + Number(fields[14])) * 10;
  } catch {
    return Number.NaN;
  }
}

/** The repository root, from dist/test/bench/ (three levels up). */
export const REPO_ROOT = fileURLToPath(new URL('../../../', import.meta.url));
