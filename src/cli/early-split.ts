/**
 * Starting the worker of a split input before the CLI loads its modules (issue 7, figures 1 and
 * 2; analyze/parallel.ts explains the split). cli/main.ts calls `startEarlySplit` first: for a
 * plain `waitgraph [analyze] FILE [--format F]` on a big file it finds a seam near the file's
 * middle (a `Thread N (` line, parse/seam.ts) and starts a worker (split-worker.ts) on the text
 * from there, so the worker's start and its part overlap this thread's start and its part. The
 * analyze command then claims it.
 *
 * Only an argv the analyze command will surely run with frames dropped is recognised (one file, a
 * format other than Markdown, no --group, no --rules: the worker has the built-in rules only); any
 * doubt means no worker. `WAITGRAPH_WORKERS=0` turns the split off; `=1` splits even with one CPU.
 */
import { closeSync, fstatSync, openSync, readSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { resolve } from 'node:path';
import { Worker } from 'node:worker_threads';
import type { PartResult } from '../analyze/split-part.js';
import { isRecordSeamLine } from '../parse/seam.js';
import type { SplitWorkerData } from './split-worker.js';

/**
 * Files below this size are analysed on one thread: a worker pays its own start and JIT warm-up
 * (~100 ms before it parses), which a smaller part does not win back.
 */
export const SPLIT_MIN_BYTES = 8 * 1024 * 1024;
/** The share of the file the main thread parses (it also loads the CLI and writes the report). */
const MAIN_SHARE = 0.5;
/** Bytes read around the target offset to find a seam; the seam line must end inside it. */
const WINDOW_BYTES = 64 * 1024;
const MAX_WINDOWS = 16;
/** The main thread's part covers at least the bytes the binary check reads (read-input.ts SNIFF_BYTES). */
const MIN_HEAD_BYTES = 8192;

/** The report formats that drop frames when --group is not given (commands/analyze.ts FORMATS_NEEDING_FRAMES: Markdown). */
const FRAMELESS_FORMATS: readonly string[] = ['text', 'json', 'mermaid', 'dot', 'svg', 'sarif'];
const COMMAND_WORDS = new Set(['analyze', 'parse', 'check', 'schema', 'attach', 'core', 'help']);

/** The file argv analyses with frames dropped, or null for anything else. */
export function splitFile(argv: readonly string[]): string | null {
  let file: string | null = null;
  for (let i = argv[0] === 'analyze' ? 1 : 0; i < argv.length; i++) {
    const arg = argv[i] as string;
    let format: string | undefined;
    if (arg === '--format' || arg === '-f') format = argv[++i];
    else if (arg.startsWith('--format=')) format = arg.slice('--format='.length);
    else if (arg.startsWith('-f') && arg.length > 2) format = arg.slice(2);
    else if (arg === '--color' || arg === '--no-color') continue;
    else if (arg.startsWith('-') || file !== null || COMMAND_WORDS.has(arg)) return null;
    else {
      file = arg;
      continue;
    }
    if (format === undefined || !FRAMELESS_FORMATS.includes(format)) return null;
  }
  return file;
}

export interface StartedSplit {
  /** The file, resolved. */
  path: string;
  /** Byte offset of the seam, and its line (without the line end). */
  seam: number;
  seamLine: string;
  /** The worker's part; null when the worker failed. */
  part: Promise<PartResult | null>;
  /** Stops the worker (its part is taken or not wanted). */
  release: () => void;
}

let started: StartedSplit | null = null;

/**
 * Starts the worker when argv is a plain analyze of one big file and the split is on; otherwise
 * does nothing. Never throws: any failure means no split.
 */
export function startEarlySplit(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd: string): void {
  const workers = env.WAITGRAPH_WORKERS;
  if (started !== null || workers === '0' || (workers !== '1' && availableParallelism() < 2)) return;
  const file = splitFile(argv);
  if (file === null) return;
  const minBytes = env.WAITGRAPH_SPLIT_MIN_BYTES !== undefined && /^\d+$/.test(env.WAITGRAPH_SPLIT_MIN_BYTES) ? Number(env.WAITGRAPH_SPLIT_MIN_BYTES) : SPLIT_MIN_BYTES;
  try {
    const path = resolve(cwd, file);
    const seam = findSeam(path, minBytes);
    if (seam === null) return;
    const worker = new Worker(new URL('./split-worker.js', import.meta.url), { workerData: { path, from: seam.at } satisfies SplitWorkerData });
    const part = new Promise<PartResult | null>((done) => {
      worker.once('message', (result: PartResult) => done(result));
      worker.once('error', () => done(null));
      worker.once('exit', () => done(null));
    });
    started = { path, seam: seam.at, seamLine: seam.line, part, release: () => void worker.terminate() };
  } catch {
    started = null;
  }
}

/**
 * A seam near MAIN_SHARE of the file: the start of a line that is a record seam
 * (isRecordSeamLine), or null (file too small, not a regular file, no seam nearby).
 */
export function findSeam(path: string, minBytes: number): { at: number; line: string } | null {
  const fd = openSync(path, 'r');
  try {
    const stats = fstatSync(fd);
    if (!stats.isFile() || stats.size < Math.max(minBytes, MIN_HEAD_BYTES * 2)) return null;
    const buffer = Buffer.allocUnsafe(WINDOW_BYTES);
    let from = Math.max(MIN_HEAD_BYTES, Math.floor(stats.size * MAIN_SHARE)) - 1;
    for (let w = 0; w < MAX_WINDOWS && from < stats.size; w++) {
      const n = readSync(fd, buffer, 0, WINDOW_BYTES, from);
      const window = buffer.subarray(0, n);
      // A seam is just after a line end; the window starts one byte early so `from` itself can be one.
      for (let nl = window.indexOf(10); nl >= 0 && nl + 1 < n; nl = window.indexOf(10, nl + 1)) {
        if (window[nl + 1] !== 0x54 /* T */) continue;
        const end = window.indexOf(10, nl + 1);
        if (end < 0) break;
        const line = window.toString('utf8', nl + 1, end);
        if (isRecordSeamLine(line)) return { at: from + nl + 1, line };
      }
      // The next window starts at this one's last line end, so no line is missed between them.
      const last = window.lastIndexOf(10);
      if (n < WINDOW_BYTES || last <= 0) return null;
      from += last;
    }
    return null;
  } finally {
    closeSync(fd);
  }
}

/** The started split of `path` (resolved), handed over once; null when none was started for it. */
export function claimEarlySplit(path: string): StartedSplit | null {
  const split = started;
  if (split === null || split.path !== path) return null;
  started = null;
  return split;
}

/** Stops a worker nobody claimed (the command failed, or ran differently than argv suggested). */
export function releaseEarlySplit(): void {
  started?.release();
  started = null;
}
