/** The text report's width for this run's stdout (analyze, attach, core). */
import type { CliIO } from './io.js';
import { DEFAULT_WIDTH } from '../report/text.js';

/**
 * The text report's width: the terminal's, when stdout is one; else `COLUMNS` when set (as `ls`
 * and `git` read it); else 100. Kept between 40 and 400 columns, so a narrow pane still shows a
 * sentence per line and a huge one does not make lines nobody can read.
 */
export function textWidth(io: CliIO): number {
  const fromEnv = io.env['COLUMNS'];
  const columns = io.stdoutColumns ?? (fromEnv !== undefined && /^\d{1,5}$/.test(fromEnv) ? Number(fromEnv) : DEFAULT_WIDTH);
  return Math.min(400, Math.max(40, columns));
}
