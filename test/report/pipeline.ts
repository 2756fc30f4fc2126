/** The real pipeline for report tests: gdb text → parseDump → analyze → Analysis. */
import { readFileSync } from 'node:fs';
import { parseDump } from '../../src/parse/index.js';
import { analyze } from '../../src/analyze/index.js';
import type { Analysis } from '../../src/model/analysis.js';

export function analyzeText(text: string): Analysis {
  return analyze(parseDump(text));
}

export function analyzeFile(path: string): Analysis {
  return analyzeText(readFileSync(path, 'utf8'));
}
