/**
 * The rule options every analysing command shares: `--rules FILE|FOLDER` (user rules and packs,
 * repeatable) and `--disable RULE|PACK` (repeatable), and the rule set they make (rules/rule-set.ts).
 */
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import { loadRuleSet } from '../rules/rule-set.js';
import type { LoadedRules } from '../rules/types.js';

export interface RuleFlags {
  rules: string[];
  disable: string[];
}

const collect = (value: string, previous: string[]): string[] => [...previous, value];

export function addRuleOptions(command: Command): Command {
  return command
    .option('--rules <file>', 'load extra rules from a YAML/JSON rule file or a folder of them (repeatable)', collect, [] as string[])
    .option('--disable <rule|pack>', 'turn off a rule (by id) or a whole pack (by name) (repeatable)', collect, [] as string[]);
}

export async function rulesFromFlags(flags: RuleFlags, io: CliIO): Promise<LoadedRules> {
  return loadRuleSet({ extraFiles: flags.rules, disable: flags.disable, cwd: io.cwd });
}
