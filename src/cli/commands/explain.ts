/**
 * `waitgraph explain FILE --thread N`: for one thread of a dump, which rules fired, which matched
 * their frames but did not fire, and which nearly matched and the first condition that failed
 * (analyze/explain.ts). What a user reads while writing a rule. Exit 0, or 2 for bad input.
 */
import type { Command } from 'commander';
import { dirname, basename } from 'node:path';
import type { CliIO, ExitSink } from '../io.js';
import { ExitCode } from '../exit-codes.js';
import { InputError, UsageError } from '../../errors.js';
import { analyze, parseDumpStream } from '../../analyze/index.js';
import { explainThread, renderExplanation } from '../../analyze/explain.js';
import { readInputChunks } from '../read-input.js';
import { addRuleOptions, rulesFromFlags, type RuleFlags } from '../rule-options.js';
import type { ThreadRuleRaw } from '../../rules/schema.js';
import type { ThreadRule } from '../../rules/types.js';
import { visible } from '../../model/text-hygiene.js';

interface ExplainFlags extends RuleFlags {
  thread: string;
}

export function registerExplain(program: Command, io: CliIO, sink: ExitSink): void {
  const command = program
    .command('explain')
    .description('for one thread: which rules matched, which nearly matched and why not (the first condition that failed)')
    .argument('<file>', 'a file holding gdb output, or - for standard input')
    .requiredOption('-t, --thread <N>', 'the gdb thread number (or bt@LINE for a backtrace with no thread header)');
  addRuleOptions(command).action(async (file: string, flags: ExplainFlags) => {
    const rules = await rulesFromFlags(flags, io);
    const dump = await parseDumpStream(readInputChunks(file, io));
    if (dump.stats.backtraces === 0) throw new InputError(`no gdb backtrace found in ${file === '-' ? 'standard input' : file}`);
    const analysis = analyze(dump, { rules });
    // The rules as written, to quote their conditions (read again: explain is not on a hot path).
    const { readRuleFile } = await import('../../rules/load.js');
    const rawOf = (rule: ThreadRule): ThreadRuleRaw | null => {
      try {
        const entry = readRuleFile({ path: rule.file, display: rule.file, builtin: rule.builtin, packFolder: basename(dirname(rule.file)) });
        return entry.kind === 'thread' ? entry.raw : null;
      } catch {
        return null;
      }
    };
    const explained = explainThread(dump, analysis, rules, flags.thread, rawOf);
    if (explained === null) {
      const keys = analysis.threads.map((t) => t.key);
      throw new UsageError(`no thread ${flags.thread} in ${file} (threads: ${keys.slice(0, 20).join(', ')}${keys.length > 20 ? ', …' : ''})`);
    }
    io.out(visible(renderExplanation(explained)));
    sink.code = ExitCode.Ok;
  });
}
