/**
 * `waitgraph redact [FILE|-]`: prints the dump with home directories, user and host names and
 * string arguments replaced by stable placeholders (`--all`: also the names of the user's own
 * code), line for line, ready to attach to a public issue; it analyses to the same verdict and
 * cycle as the original (analyze/redact/). What was replaced is summed up on stderr. Exit 0, or 2
 * for bad input.
 */
import type { Command } from 'commander';
import type { CliIO, ExitSink } from '../io.js';
import { ExitCode } from '../exit-codes.js';
import { InputError } from '../../errors.js';
import { redactText, type RedactCounts } from '../../analyze/redact/index.js';
import { addRuleOptions, rulesFromFlags, type RuleFlags } from '../rule-options.js';
import { readInputText } from '../redact-option.js';
import { refuseSilentTerminal } from '../read-input.js';

interface RedactFlags extends RuleFlags {
  all?: boolean;
}

const NAMES: Array<[keyof RedactCounts, string, string]> = [
  ['home', 'home directory', 'home directories'],
  ['user', 'user name', 'user names'],
  ['host', 'host name', 'host names'],
  ['str', 'string', 'strings'],
  ['fn', 'function name', 'function names'],
  ['file', 'file name', 'file names'],
  ['lib', 'library name', 'library names'],
];

/** `redacted 1 home directory, 1 user name, 3 strings` (or `nothing to redact`). */
export function describeCounts(counts: RedactCounts): string {
  const parts = NAMES.filter(([k]) => counts[k] > 0).map(([k, one, many]) => `${counts[k]} ${counts[k] === 1 ? one : many}`);
  return parts.length === 0 ? 'nothing to redact' : `redacted ${parts.join(', ')}`;
}

export function registerRedact(program: Command, io: CliIO, sink: ExitSink): void {
  const command = program
    .command('redact')
    .description('print the dump with home paths, user and host names and strings replaced by placeholders, ready to attach to a public issue')
    .argument('[file]', 'a file holding gdb output, or - for standard input (the default)')
    .option('--all', 'also replace the function, file and library names of your own code (frames outside the known runtimes)');
  addRuleOptions(command).action(async (file: string | undefined, flags: RedactFlags) => {
    refuseSilentTerminal(file !== undefined, io);
    const rules = await rulesFromFlags(flags, io);
    const redacted = redactText(await readInputText(file, io), { level: flags.all ? 'all' : 'basic', rules });
    if (redacted.backtraces === 0) {
      const name = file === undefined || file === '-' ? 'standard input' : redacted.label(file);
      throw new InputError(`no gdb backtrace found in ${name} (expected lines like "#0  0x… in func (…) at file.c:12")`);
    }
    io.out(redacted.text);
    io.err(`waitgraph: ${describeCounts(redacted.counts)}\n`);
    sink.code = ExitCode.Ok;
  });
}
