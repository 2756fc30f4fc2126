/**
 * `waitgraph rules test [DIR…]`: runs a pack's rules against their fixtures and goldens
 * (`<id>.txt` and `<id>.edges` beside each `<id>.yaml`) with the checks the built-in packs' test
 * runs (analyze/rule-fixtures.ts), so a team keeps its own pack under test in its CI. The user's
 * rules are loaded with the built-ins, as `--rules DIR` would load them. Without DIR it tests the
 * built-in packs. Exit 0 when every rule passes, 1 when one fails, 2 when a rule does not load.
 */
import { existsSync } from 'node:fs';
import { join, relative, resolve } from 'node:path';
import type { Command } from 'commander';
import type { CliIO, ExitSink } from '../io.js';
import { ExitCode } from '../exit-codes.js';
import { UsageError } from '../../errors.js';
import { checkRuleFixture, orphanFixtures, type FixtureResult } from '../../analyze/rule-fixtures.js';
import { builtinRulesDir } from '../../rules/builtin-dir.js';
import { addRuleOptions, rulesFromFlags, type RuleFlags } from '../rule-options.js';
import type { Rule } from '../../rules/types.js';

interface RulesTestFlags extends RuleFlags {
  update: boolean;
}

export function registerRules(program: Command, io: CliIO, sink: ExitSink): void {
  const rules = program.command('rules').description('work on rule packs (see src/rules/README.md)');
  const test = rules
    .command('test')
    .description("run each rule of a pack on its fixture (<id>.txt beside <id>.yaml) against its golden (<id>.edges); the built-in packs when no folder is given")
    .argument('[folders...]', 'pack folders (or rule files) to test');
  addRuleOptions(test)
    .option('--update', 'write each golden from what its rule yields (review the diff)', false)
    .action(async (folders: string[], flags: RulesTestFlags) => {
      for (const f of folders) if (!existsSync(resolve(io.cwd, f))) throw new UsageError(`no such pack folder or rule file: ${f}`);
      const loaded = await rulesFromFlags({ ...flags, rules: [...folders, ...flags.rules] }, io);
      const roots = folders.length > 0 ? folders.map((f) => resolve(io.cwd, f)) : [builtinRulesDir()];
      const under = (file: string): boolean => roots.some((root) => file === root || !relative(root, file).startsWith('..'));
      const tested: Rule[] = [...loaded.threadRules, ...loaded.cycleRules, ...(loaded.localsRules ?? [])].filter((r) => under(r.file)).sort((a, b) => (a.file < b.file ? -1 : a.file > b.file ? 1 : 0));
      if (tested.length === 0) throw new UsageError(`no rules in ${folders.join(', ')}`);
      const results = tested.map((rule) => checkRuleFixture(loaded, rule, { update: flags.update }));
      const shown = (p: string): string => {
        const rel = relative(io.cwd, p);
        return rel.startsWith('..') ? p : rel;
      };
      const ids = new Set(tested.map((r) => r.id));
      const orphans = [...new Set(tested.map((r) => join(r.file, '..')))].flatMap((dir) => orphanFixtures(dir, ids).map((f) => shown(join(dir, f))));
      io.out(renderResults(results, orphans, shown));
      sink.code = results.every((r) => r.problems.length === 0) && orphans.length === 0 ? ExitCode.Ok : ExitCode.Found;
    });
}

/** One line a rule (`ok`/`FAIL`, id, hits and near misses, fixture), its problems indented under it, then the totals. */
export function renderResults(results: FixtureResult[], orphans: string[], shown: (p: string) => string): string {
  const width = Math.max(...results.map((r) => r.ruleId.length));
  const lines: string[] = [];
  for (const r of results) {
    const counts = `${r.hits} hit, ${r.nearMisses} near miss${r.nearMisses === 1 ? '' : 'es'}`;
    lines.push(`${r.problems.length === 0 ? 'ok  ' : 'FAIL'}  ${r.ruleId.padEnd(width)}  ${counts.padEnd(24)}  ${shown(r.fixture)}${r.updated ? ' (golden written)' : ''}`);
    for (const p of r.problems) for (const line of p.split('\n')) lines.push(`      ${line}`);
  }
  for (const o of orphans) lines.push(`FAIL  ${o}: a fixture or golden without its rule`);
  const failed = results.filter((r) => r.problems.length > 0).length;
  lines.push('', `${results.length} rule${results.length === 1 ? '' : 's'}: ${results.length - failed} passed, ${failed} failed${orphans.length > 0 ? `, ${orphans.length} orphaned fixture file${orphans.length === 1 ? '' : 's'}` : ''}`);
  return `${lines.join('\n')}\n`;
}
