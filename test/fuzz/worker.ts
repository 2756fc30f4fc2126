/**
 * One fuzz worker thread: generates seeded batches of hostile inputs (the property tests'
 * arbitraries, Julia and LLDB fixtures among the seeds) and checks each with the whole pipeline. Reports after every batch, so the main
 * thread can tell a hang (no report for a long time) from slow progress; a batch is reproducible
 * from its seed alone. Does nothing when loaded outside a worker.
 */
import { parentPort, workerData } from 'node:worker_threads';
import fc from 'fast-check';
import { dialectFixtureTexts, fixtureTexts, hostileBytes, hostileText } from '../robustness/arbitraries.js';
import { checkBytes, checkText } from '../robustness/check.js';

export interface WorkerJob {
  /** Seeds of the batches this worker runs, in order. */
  batchSeeds: number[];
  batchSize: number;
}

export interface BatchReport {
  type: 'batch';
  seed: number;
  ran: number;
  failures: Array<{ kind: 'text' | 'bytes'; input: string; problem: string }>;
  slowest: number;
}

/** Every how many cases the SVG reporter (Graphviz in WebAssembly) is run too. */
const SVG_EVERY = 400;
/** Every how many cases the text is also parsed in random chunks. */
const CHUNKS_EVERY = 8;
/** Every how many cases the input is bytes (invalid UTF-8) through the Buffer stream path. */
const BYTES_EVERY = 10;

async function runBatch(seed: number, size: number, fixtures: Array<{ text: string }>, dialects: Array<{ text: string }>): Promise<BatchReport> {
  const byteCount = Math.floor(size / BYTES_EVERY);
  const texts = fc.sample(hostileText(fixtures, { window: 30, dialects }), { numRuns: size - byteCount, seed });
  const byteInputs = fc.sample(hostileBytes(fixtures), { numRuns: byteCount, seed: seed ^ 0x5bd1e995 });
  const failures: BatchReport['failures'] = [];
  let slowest = 0;
  for (let i = 0; i < texts.length; i++) {
    const started = performance.now();
    const problem = await checkText(texts[i]!, { svg: i % SVG_EVERY === 0, ...(i % CHUNKS_EVERY === 0 ? { chunkSeed: seed + i } : {}) });
    slowest = Math.max(slowest, performance.now() - started);
    if (problem !== null) failures.push({ kind: 'text', input: texts[i]!, problem });
  }
  for (let i = 0; i < byteInputs.length; i++) {
    const started = performance.now();
    const problem = await checkBytes(byteInputs[i]!, seed + i);
    slowest = Math.max(slowest, performance.now() - started);
    if (problem !== null) failures.push({ kind: 'bytes', input: Buffer.from(byteInputs[i]!).toString('base64'), problem });
  }
  return { type: 'batch', seed, ran: size, failures, slowest };
}

if (parentPort !== null && workerData !== null && typeof workerData === 'object') {
  const job = workerData as WorkerJob;
  const fixtures = fixtureTexts();
  // Julia's and LLDB's text get a share of their own (hostileText's dialect mutations).
  const dialects = dialectFixtureTexts();
  for (const seed of job.batchSeeds) {
    parentPort.postMessage(await runBatch(seed, job.batchSize, fixtures, dialects));
  }
  parentPort.postMessage({ type: 'done' });
}
