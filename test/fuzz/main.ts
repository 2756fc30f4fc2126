/**
 * `npm run fuzz`: at least 1,000,000 hostile inputs through parse → analyze → every reporter, on
 * worker threads (one a core by default). Prints how many cases ran and how many failed. Each
 * distinct failure is shrunk (lines, then characters, dropped while it still fails) and saved
 * under fixtures/robustness/ — test/robustness/regressions.test.ts then runs it in `npm test`.
 *
 *   node dist/test/fuzz/main.js [--cases N] [--workers W] [--seed S] [--batch B]
 *
 * A batch that reports nothing for HANG_MS is a hang: the worker is stopped and the batch's seed
 * printed (the batch is reproducible from it) and counted as failed.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { Worker } from 'node:worker_threads';
import { FIXTURES } from '../helpers/paths.js';
import { checkBytes, checkText } from '../robustness/check.js';
import type { BatchReport, WorkerJob } from './worker.js';

const HANG_MS = 180_000;
const MAX_SAVED = 20;

function option(name: string, fallback: number): number {
  const i = process.argv.indexOf(`--${name}`);
  if (i < 0) return fallback;
  const value = Number(process.argv[i + 1]);
  if (!Number.isSafeInteger(value) || value < 0) throw new Error(`--${name} needs a non-negative integer`);
  return value;
}

const cases = option('cases', 1_000_000);
const workers = Math.max(1, option('workers', Math.min(2, availableParallelism())));
const seed = option('seed', Date.now() % 2 ** 31);
const batchSize = Math.max(10, option('batch', 2000));
const batches = Math.ceil(cases / batchSize);
const OUT_DIR = join(FIXTURES, 'robustness');

interface Failure {
  kind: 'text' | 'bytes' | 'hang';
  input: string;
  problem: string;
}

/** Drops lines, then characters, while `fails` still holds: a small regression fixture. */
async function shrink(input: string, fails: (text: string) => Promise<boolean>): Promise<string> {
  let current = input;
  for (const unit of ['\n', ''] as const) {
    let parts = unit === '\n' ? current.split('\n') : Array.from(current);
    if (parts.length > 4000) continue;
    for (let chunk = Math.max(1, Math.floor(parts.length / 2)); chunk >= 1; chunk = Math.floor(chunk / 2)) {
      for (let i = 0; i < parts.length; ) {
        const candidate = [...parts.slice(0, i), ...parts.slice(i + chunk)];
        if (candidate.length > 0 && (await fails(candidate.join(unit)))) parts = candidate;
        else i += chunk;
      }
    }
    current = parts.join(unit);
  }
  return current;
}

/** The first line of a problem, without line numbers and counts: failures that are one bug. */
function bugKey(problem: string): string {
  return (problem.split('\n')[0] ?? '').replace(/\d+/g, 'N');
}

async function save(failure: Failure): Promise<string> {
  const firstLine = bugKey(failure.problem);
  let text = failure.kind === 'bytes' ? new TextDecoder().decode(Buffer.from(failure.input, 'base64')) : failure.input;
  if (failure.kind !== 'hang') {
    text = await shrink(text, async (t) => {
      const p = await checkText(t);
      return p !== null && bugKey(p) === firstLine;
    });
  }
  const id = createHash('sha256').update(text).digest('hex').slice(0, 10);
  mkdirSync(OUT_DIR, { recursive: true });
  const base = join(OUT_DIR, `fuzz-${id}`);
  if (failure.kind === 'bytes') writeFileSync(`${base}.bin`, Buffer.from(failure.input, 'base64'));
  writeFileSync(`${base}.txt`, text);
  writeFileSync(`${base}.problem`, `${failure.problem}\n`);
  return `${base}.txt`;
}

async function main(): Promise<number> {
  const started = performance.now();
  const seeds = Array.from({ length: batches }, (_, i) => (seed + i * 7919) % 2 ** 31);
  const shares: number[][] = Array.from({ length: workers }, () => []);
  seeds.forEach((s, i) => shares[i % workers]!.push(s));
  let ran = 0;
  let failed = 0;
  let slowest = 0;
  const failures: Failure[] = [];
  let lastPrint = 0;
  console.log(`fuzz: ${cases.toLocaleString('en')} cases in ${batches} batches of ${batchSize} on ${workers} worker(s), seed ${seed}`);

  await Promise.all(
    shares.map(
      (share, w) =>
        new Promise<void>((resolve) => {
          let remaining = share.slice();
          const start = (): void => {
            if (remaining.length === 0) return resolve();
            const job: WorkerJob = { batchSeeds: remaining, batchSize };
            const worker = new Worker(new URL('./worker.js', import.meta.url), { workerData: job });
            let timer = setTimeout(onHang, HANG_MS);
            function onHang(): void {
              const stuck = remaining[0]!;
              failed += 1;
              failures.push({ kind: 'hang', input: '', problem: `worker ${w}: batch seed ${stuck} reported nothing for ${HANG_MS / 1000} s (a hang; replay with --seed ${stuck} --cases ${batchSize} --workers 1)` });
              remaining = remaining.slice(1);
              void worker.terminate().then(start);
            }
            worker.on('message', (message: BatchReport | { type: 'done' }) => {
              if (message.type === 'done') {
                clearTimeout(timer);
                void worker.terminate().then(() => resolve());
                return;
              }
              clearTimeout(timer);
              timer = setTimeout(onHang, HANG_MS);
              remaining = remaining.slice(1);
              ran += message.ran;
              failed += message.failures.length;
              slowest = Math.max(slowest, message.slowest);
              for (const f of message.failures) failures.push(f);
              const now = performance.now();
              if (now - lastPrint > 10_000) {
                lastPrint = now;
                const rate = ran / ((now - started) / 1000);
                console.log(`  ${ran.toLocaleString('en')} ran, ${failed} failed (${Math.round(rate)} cases/s)`);
              }
            });
            worker.on('error', (error) => {
              clearTimeout(timer);
              failed += 1;
              failures.push({ kind: 'hang', input: '', problem: `worker ${w} crashed on batch seed ${remaining[0]}: ${error.stack ?? error.message}` });
              remaining = remaining.slice(1);
              start();
            });
          };
          start();
        }),
    ),
  );

  const seconds = (performance.now() - started) / 1000;
  console.log(`fuzz: ${ran.toLocaleString('en')} cases ran, ${failed} failed, in ${seconds.toFixed(0)} s (${Math.round(ran / seconds)} cases/s; slowest case ${slowest.toFixed(0)} ms)`);
  const seen = new Set<string>();
  for (const failure of failures) {
    const key = bugKey(failure.problem);
    if (seen.has(key) || seen.size >= MAX_SAVED) continue;
    seen.add(key);
    const path = failure.kind === 'hang' ? null : await save(failure);
    console.log(`FAILED: ${failure.problem.split('\n')[0]}${path ? `\n  saved: ${path}` : ''}`);
  }
  return failed === 0 ? 0 : 1;
}

// Re-check helpers are imported so a saved bytes failure can be replayed the same way.
void checkBytes;
process.exitCode = await main();
