/**
 * Figures 8–11 (issue 15): reports linear in the dump on the big hang shapes of hang-shapes.ts.
 * For each shape, a dump of ~300 MB (10× the threads of a ~30 MB one; 30 and 3 MB with --quick),
 * generated into a fresh temp dir and removed after:
 *   - output / input: the text and the JSON report of the big dump, each over the dump's size (≤ 2);
 *   - peak RSS of the CLI child (resourceUsage().maxRSS, rss-probe.cts) on the big dump, text and
 *     JSON (≤ 512 MiB);
 *   - time(10× threads) / time(threads), JSON report (≤ 11; wall time, with the CPU-time ratio,
 *     which a loaded machine distorts less).
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HANG_SHAPES, writeHangShape, type HangShape } from './hang-shapes.js';
import { median, type ChildRun } from './measure.js';

export interface HangFigureHooks {
  runCli(file: string, formatArgs: string[], stdoutFile: string | null): Promise<ChildRun>;
  printFigure(label: string, value: number, digits: number, target: { sense: 'max' | 'min'; limit: number }, extra?: string): void;
  guarded<T>(label: string, fn: () => Promise<T>): Promise<T | undefined>;
  progress(text: string): void;
}

const FIRST_FIGURE = 8;
const mb = (bytes: number): string => `${(bytes / 1e6).toFixed(bytes < 1e7 ? 1 : 0)} MB`;
const ms = (v: number): string => `${v.toFixed(v < 100 ? 1 : 0)} ms`;
const k = (n: number): string => (n >= 1000 ? `${(n / 1000).toFixed(n % 1000 === 0 ? 0 : 1)}k` : String(n));

/** Threads of `shape` that make about `bytes` of dump (measured on 1,000 threads). */
function threadsFor(shape: HangShape, bytes: number): number {
  let sample = 0;
  for (const piece of shape.pieces(1000)) sample += Buffer.byteLength(piece);
  return Math.max(10, Math.round(bytes / (sample / 1000) / 10) * 10);
}

export async function hangShapeFigures(hooks: HangFigureHooks, options: { quick: boolean; runs: number; only?: string[] }): Promise<void> {
  const bigBytes = options.quick ? 30e6 : 300e6;
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-hang-shapes-'));
  try {
    for (const [i, shape] of HANG_SHAPES.entries()) {
      if (options.only !== undefined && !options.only.includes(shape.name)) continue;
      const n = `${FIRST_FIGURE + i}.`;
      const labels = {
        size: `${n} ${shape.label}: out / in`,
        rss: `${n} ${shape.label}: RSS MiB`,
        time: `${n} ${shape.label}: 10× thr time`,
      };
      await hooks.guarded(labels.size, async () => {
        const big = threadsFor(shape, bigBytes);
        const small = big / 10;
        hooks.progress(`${shape.name}: generating ${k(small)} and ${k(big)} threads …`);
        const smallDump = await writeHangShape(shape, small, dir);
        const bigDump = await writeHangShape(shape, big, dir);
        const out = join(dir, 'report.out');
        hooks.progress(`${shape.name}: ${options.runs} runs of ${mb(smallDump.bytes)}, then ${mb(bigDump.bytes)} (text and JSON) …`);
        const smallMs: number[] = [];
        const smallCpu: number[] = [];
        for (let r = 0; r < options.runs; r++) {
          const run = await hooks.runCli(smallDump.path, ['--format', 'json'], out);
          smallMs.push(run.ms);
          if (run.cpuMs !== null) smallCpu.push(run.cpuMs);
        }
        const sizes: Record<'text' | 'json', number> = { text: 0, json: 0 };
        const rss: Record<'text' | 'json', number> = { text: 0, json: 0 };
        let bigJson: ChildRun | null = null;
        for (const format of ['text', 'json'] as const) {
          const run = await hooks.runCli(bigDump.path, ['--format', format], out);
          sizes[format] = statSync(out).size;
          rss[format] = (run.maxRssKiB ?? Number.NaN) / 1024;
          if (format === 'json') bigJson = run;
        }
        rmSync(smallDump.path, { force: true });
        rmSync(bigDump.path, { force: true });
        rmSync(out, { force: true });
        const input = bigDump.bytes;
        const ratio = Math.max(sizes.text, sizes.json) / input;
        const where = `${mb(input)}, ${k(big)} threads`;
        hooks.printFigure(labels.size, ratio, 3, { sense: 'max', limit: 2 }, `${where}: text ${mb(sizes.text)} (${(sizes.text / input).toFixed(3)}), JSON ${mb(sizes.json)} (${(sizes.json / input).toFixed(3)})`);
        hooks.printFigure(labels.rss, Math.max(rss.text, rss.json), 0, { sense: 'max', limit: 512 }, `${where}: text ${rss.text.toFixed(0)}, JSON ${rss.json.toFixed(0)}`);
        const json = bigJson as ChildRun;
        const cpu = json.cpuMs !== null && smallCpu.length > 0 ? `, CPU-time ratio ${(json.cpuMs / median(smallCpu)).toFixed(2)}` : '';
        hooks.printFigure(labels.time, json.ms / median(smallMs), 2, { sense: 'max', limit: 11 }, `JSON, ${k(big)} threads ${ms(json.ms)} vs ${k(small)} ${ms(median(smallMs))} (median of ${options.runs})${cpu}`);
      });
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
