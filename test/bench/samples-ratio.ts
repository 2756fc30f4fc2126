/**
 * Bench figure for snapshots (issue 14): on a process with 100 threads, the wall time of
 * `waitgraph attach PID --samples 3` (node start, one gdb over MI attached three times, detached
 * between, backtraces, owner queries on the last, three analyses, the report) over the wall time
 * of gdb's own three `gdb -p PID -batch -ex 'thread apply all bt'` runs back to back — the pt-pmp
 * loop without its sleep. Target ≤ 1.3. The samples are asked for 0.05 s apart (the smallest
 * --interval), so attach waits for nothing the loop does not. Runs alternate between the two
 * and the medians are compared. `npm run bench` wires this in; it also runs alone:
 * `node dist/test/bench/samples-ratio.js`.
 */
import { execFile } from 'node:child_process';
import { promisify } from 'node:util';
import { BIN } from '../helpers/paths.js';
import { gdbCaptureArgs, liveSkipReason, withProgram } from '../live/harness.js';

const run = promisify(execFile);

export interface SamplesRatio {
  /** median(attach --samples 3) / median(three gdb batch runs), wall time; NaN when skipped. */
  ratio: number;
  attachMs: number;
  gdbMs: number;
  samples: number;
  threads: number;
  runs: number;
  target: number;
  skipped: string | null;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

export async function measureSamplesRatio(options: { threads?: number; runs?: number } = {}): Promise<SamplesRatio> {
  const threads = options.threads ?? 100;
  const runs = options.runs ?? 5;
  const samples = 3;
  const target = 1.3;
  const skipped = await liveSkipReason();
  if (skipped) return { ratio: Number.NaN, attachMs: Number.NaN, gdbMs: Number.NaN, samples, threads, runs: 0, target, skipped };
  return withProgram(
    'healthy-sleepers',
    async (p) => {
      const env = { ...process.env, NO_COLOR: '1' };
      const gdbOnce = () => run('gdb', gdbCaptureArgs(p.pid), { timeout: 120_000, maxBuffer: 64 << 20 });
      const gdbLoop = async (): Promise<void> => {
        for (let i = 0; i < samples; i++) await gdbOnce();
      };
      // Exit code 0 (a healthy program); anything else fails the measurement.
      const attach = () => run(process.execPath, [BIN, 'attach', String(p.pid), '--samples', String(samples), '--interval', '0.05', '--format', 'json'], { env, timeout: 120_000, maxBuffer: 64 << 20 });
      // One warm-up of each: the first gdb run pays for reading debug info from disk.
      await gdbOnce();
      await attach();
      const gdb: number[] = [];
      const sampled: number[] = [];
      for (let i = 0; i < runs; i++) {
        gdb.push(await timed(gdbLoop));
        sampled.push(await timed(attach));
      }
      const gdbMs = median(gdb);
      const attachMs = median(sampled);
      return { ratio: attachMs / gdbMs, attachMs, gdbMs, samples, threads, runs, target, skipped: null };
    },
    { args: [String(threads)] },
  );
}

// Run directly (not when the test runner loads every file under dist/test, which sets NODE_TEST_CONTEXT).
if (process.argv[1] !== undefined && import.meta.url === `file://${process.argv[1]}` && process.env.NODE_TEST_CONTEXT === undefined) {
  const r = await measureSamplesRatio();
  if (r.skipped) console.log(`samples ratio: skipped (${r.skipped})`);
  else console.log(`attach --samples ${r.samples} / ${r.samples} × gdb thread apply all bt (${r.threads} threads, median of ${r.runs}): ${r.attachMs.toFixed(0)} ms / ${r.gdbMs.toFixed(0)} ms = ${r.ratio.toFixed(2)} (target ≤ ${r.target})`);
}
