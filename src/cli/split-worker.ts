/**
 * Entry of the worker thread that analyses the second part of a split input (cli/early-split.ts
 * starts it, analyze/parallel.ts explains the split). It reads the file from the seam on, parses
 * and summarises it, and posts the result (split-part.ts PartResult). Anything that goes wrong
 * ends the worker with an error, and the main thread parses that part itself.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { analyzePart } from '../analyze/split-part.js';
import { loadBuiltinRules } from '../rules/builtin.js';
import { readFileTail } from './read-input.js';

export interface SplitWorkerData {
  /** The file, resolved. */
  path: string;
  /** Byte offset of the seam (the start of a `Thread N (` line). */
  from: number;
}

const { path, from } = workerData as SplitWorkerData;
parentPort!.postMessage(await analyzePart(readFileTail(path, from), loadBuiltinRules()));
