/**
 * `waitgraph check --jobs N`: N worker threads (cli/check-worker.ts) analyse dumps while the
 * command's thread reads the answers in the dumps' order. A folder of thousands of dumps then uses
 * every core; the rows, the SARIF log and the exit code are the same as with one job, because
 * the results are consumed in order (analyses run at most a window of 2 × N ahead, so memory
 * stays bounded).
 */
import { Worker } from 'node:worker_threads';
import { InputError } from '../errors.js';
import type { Analysis } from '../model/analysis.js';

export interface CheckWorkerData {
  cwd: string;
  env: Record<string, string | undefined>;
  rules: string[];
  disable: string[];
}

export interface CheckJob {
  id: number;
  path: string;
}

/** One of: the analysis; an input error (an `error` row); a bug, re-thrown in the command's thread. */
export type CheckJobResult = { id: number; analysis: Analysis } | { id: number; inputError: string } | { id: number; internalError: string };

export interface CheckPool {
  /** Analyses `paths` in order: the i-th promise settles with the i-th dump's analysis. */
  analyseInOrder(paths: readonly string[]): AsyncGenerator<Analysis | InputError>;
  close(): Promise<void>;
}

export function createCheckPool(jobs: number, data: CheckWorkerData): CheckPool {
  const workers = Array.from({ length: jobs }, () => new Worker(new URL('./check-worker.js', import.meta.url), { workerData: data }));
  const pending = new Map<number, { resolve: (r: CheckJobResult) => void; reject: (e: Error) => void }>();
  const idle: Worker[] = [...workers];
  const queue: CheckJob[] = [];
  const dispatch = (): void => {
    while (idle.length > 0 && queue.length > 0) (idle.pop() as Worker).postMessage(queue.shift());
  };
  for (const worker of workers) {
    worker.on('message', (result: CheckJobResult) => {
      idle.push(worker);
      pending.get(result.id)?.resolve(result);
      pending.delete(result.id);
      dispatch();
    });
    worker.on('error', (error) => {
      for (const waiter of pending.values()) waiter.reject(error);
      pending.clear();
    });
  }
  const submit = (job: CheckJob): Promise<CheckJobResult> =>
    new Promise((resolve, reject) => {
      pending.set(job.id, { resolve, reject });
      queue.push(job);
      dispatch();
    });

  return {
    async *analyseInOrder(paths) {
      const window = jobs * 2;
      const started: Array<Promise<CheckJobResult>> = [];
      for (let i = 0; i < paths.length; i++) {
        while (started.length < paths.length && started.length < i + window) started.push(submit({ id: started.length, path: paths[started.length] as string }));
        const result = await (started[i] as Promise<CheckJobResult>);
        // Release the settled promise: a run over 100,000 dumps must not keep every analysis.
        started[i] = Promise.resolve({ id: i, inputError: '' });
        if ('analysis' in result) yield result.analysis;
        else if ('inputError' in result) yield new InputError(result.inputError);
        else throw new Error(`a check worker failed: ${result.internalError}`);
      }
    },
    async close() {
      await Promise.all(workers.map((worker) => worker.terminate()));
    },
  };
}
