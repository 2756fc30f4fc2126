/**
 * The rule set a command runs with: the built-in packs, plus the user's rule files (`--rules`).
 * The one place that chooses between the build's precompiled built-ins (rules/builtin.ts: no
 * YAML parser, no zod) and the YAML reader, which user files need and which is imported only
 * then (it loads yaml and zod, ~80 ms of a start).
 */
import { loadBuiltinRules } from './builtin.js';
import type { LoadedRules } from './types.js';

export interface RuleSetOptions {
  /** User rule files or folders of them, loaded after the built-ins (`--rules`, repeatable). */
  extraFiles?: readonly string[];
  /** Working directory for relative paths and for the file names in error messages. */
  cwd: string;
}

export async function loadRuleSet(options: RuleSetOptions): Promise<LoadedRules> {
  const extraFiles = options.extraFiles ?? [];
  if (extraFiles.length === 0) return loadBuiltinRules();
  const { loadRules } = await import('./load.js');
  return loadRules({ extraFiles: [...extraFiles], cwd: options.cwd });
}
