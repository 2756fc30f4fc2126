/**
 * How `check` analyses one dump, shared by the command's own thread and its `--jobs` workers, so
 * both say what `waitgraph analyze FILE` says.
 */
import { relative } from 'node:path';
import type { CliIO } from './io.js';
import { InputError } from '../errors.js';
import { analyzeStream } from '../analyze/index.js';
import type { Analysis } from '../model/analysis.js';
import type { LoadedRules } from '../rules/types.js';
import { readInputChunks } from './read-input.js';

export async function analyzeDumpFile(path: string, io: CliIO, rules: LoadedRules | undefined): Promise<Analysis> {
  // Only the verdict, the cycles and the findings are used, so frames are dropped as they are analysed.
  const analysis = await analyzeStream(readInputChunks(path, io), { keepFrames: false, ...(rules ? { rules } : {}) });
  if (analysis.stats.backtraces === 0) throw new InputError(`no gdb backtrace found in ${relative(io.cwd, path) || path}`);
  return analysis;
}
