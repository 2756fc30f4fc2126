/**
 * One worker thread of `waitgraph check --jobs N` (cli/check-pool.ts): it loads the rule set the
 * command was given, once, then analyses each dump path it is sent exactly as `check` does in its
 * own thread (commands/check.ts analyzeFile), and posts the analysis back. A thread is its own
 * process boundary, so this module reads `workerData` and `parentPort` as cli/main.ts reads
 * `process`.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { CliIO } from './io.js';
import { WaitgraphError } from '../errors.js';
import { loadRuleSet } from '../rules/rule-set.js';
import { analyzeDumpFile } from './check-analysis.js';
import type { CheckJob, CheckJobResult, CheckWorkerData } from './check-pool.js';

const data = workerData as CheckWorkerData;
const port = parentPort;

const io: CliIO = {
  out: () => {},
  err: () => {},
  stdin: (async function* () {})(),
  stdoutIsTTY: false,
  stderrIsTTY: false,
  env: data.env,
  cwd: data.cwd,
};

const rules = loadRuleSet({ extraFiles: data.rules, disable: data.disable, cwd: data.cwd });

port?.on('message', (job: CheckJob) => {
  void answer(job).then((result) => port.postMessage(result));
});

async function answer(job: CheckJob): Promise<CheckJobResult> {
  try {
    return { id: job.id, analysis: await analyzeDumpFile(job.path, io, await rules) };
  } catch (error) {
    if (error instanceof WaitgraphError) return { id: job.id, inputError: error.message };
    return { id: job.id, internalError: error instanceof Error ? (error.stack ?? error.message) : String(error) };
  }
}
