/**
 * `waitgraph parse [FILE|-]`: prints the parsed model (src/model/dump.ts) as JSON, two-space
 * indented, keys in the model's order. For people checking what the parser saw, and for tools.
 */
import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { ExitCode } from '../exit-codes.js';
import { InputError, UsageError } from '../../errors.js';
import { parseDumpStream } from '../../analyze/index.js';
import { redactText } from '../../analyze/redact/index.js';
import { loadRuleSet } from '../../rules/rule-set.js';
import { visible } from '../../model/text-hygiene.js';
import type { Dump } from '../../model/dump.js';
import { addRedactOption, asChunks, readInputText, redactLevel } from '../redact-option.js';
import { escapeJsonInvisibles } from '../../model/text-hygiene.js';
import { readInputChunks, refuseSilentTerminal } from '../read-input.js';

export function registerParse(program: Command, io: CliIO, sink: { code: number }): void {
  const command = program
    .command('parse')
    .description('Parse gdb backtrace text and print the model as JSON (every input line is either parsed or listed as ignored).')
    .argument('[file]', 'a file holding gdb output, or - for standard input (the default)');
  addRedactOption(command).action(async (given: string | undefined, flags: { redact?: string | boolean }) => {
      const { level, files } = redactLevel(flags.redact, given === undefined ? [] : [given]);
      if (files.length > 1) throw new UsageError(`parse reads one dump (got ${files.map((f) => visible(f, { oneLine: true })).join(', ')})`);
      const file = files[0];
      refuseSilentTerminal(file !== undefined, io);
      let dump: Dump;
      let shown = file;
      if (level === null) dump = await parseDumpStream(readInputChunks(file, io));
      else {
        // The built-in rules say which names are a runtime's (`--redact all` keeps those).
        const redacted = redactText(await readInputText(file, io), { level, rules: await loadRuleSet({ cwd: io.cwd }) });
        dump = await parseDumpStream(asChunks(redacted.text));
        if (file !== undefined && file !== '-') shown = redacted.label(file);
      }
      if (dump.stats.backtraces === 0) {
        const name = shown === undefined || shown === '-' ? 'standard input' : shown;
        throw new InputError(`no gdb backtrace found in ${name} (expected lines like "#0  0x… in func (…) at file.c:12")`);
      }
      // Parsed text is the input's own: bidi marks and C1 controls in it are escaped, as in the JSON report.
      io.out(`${escapeJsonInvisibles(JSON.stringify(dump, null, 2))}\n`);
      sink.code = ExitCode.Ok;
    });
}
