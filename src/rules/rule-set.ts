/**
 * The rule set a command runs with: the built-in packs, plus the user's rule files (`--rules`),
 * without the rules and packs `--disable` names.
 * The one place that chooses between the build's precompiled built-ins (rules/builtin.ts: no
 * YAML parser, no zod) and the YAML reader, which user files need and which is imported only
 * then (it loads yaml and zod, ~80 ms of a start).
 */
import { loadBuiltinRules } from './builtin.js';
import { disableRules } from './compile.js';
import type { LoadedRules } from './types.js';

export interface RuleSetOptions {
  /** User rule files or folders of them, loaded after the built-ins (`--rules`, repeatable). */
  extraFiles?: readonly string[];
  /** Rule ids and pack names to turn off (`--disable`, repeatable). */
  disable?: readonly string[];
  /** Working directory for relative paths and for the file names in error messages. */
  cwd: string;
}

export async function loadRuleSet(options: RuleSetOptions): Promise<LoadedRules> {
  const extraFiles = options.extraFiles ?? [];
  const disable = options.disable ?? [];
  if (extraFiles.length === 0) return disableRules(loadBuiltinRules(), disable);
  const { loadRules } = await import('./load.js');
  return disableRules(loadRules({ extraFiles: [...extraFiles], cwd: options.cwd }), disable);
}
