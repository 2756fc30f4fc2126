/**
 * `waitgraph parse [FILE|-]`: prints the parsed model (src/model/dump.ts) as JSON, two-space
 * indented, keys in the model's order. For people checking what the parser saw, and for tools.
 */
import type { Command } from 'commander';
import type { CliIO } from '../io.js';
import { ExitCode } from '../exit-codes.js';
import { InputError } from '../../errors.js';
import { parseDumpStream } from '../../analyze/index.js';
import { escapeJsonInvisibles } from '../../model/text-hygiene.js';
import { readInputChunks, refuseSilentTerminal } from '../read-input.js';

export function registerParse(program: Command, io: CliIO, sink: { code: number }): void {
  program
    .command('parse')
    .description('Parse gdb backtrace text and print the model as JSON (every input line is either parsed or listed as ignored).')
    .argument('[file]', 'a file holding gdb output, or - for standard input (the default)')
    .action(async (file: string | undefined) => {
      refuseSilentTerminal(file !== undefined, io);
      const dump = await parseDumpStream(readInputChunks(file, io));
      if (dump.stats.backtraces === 0) {
        const name = file === undefined || file === '-' ? 'standard input' : file;
        throw new InputError(`no gdb backtrace found in ${name} (expected lines like "#0  0x… in func (…) at file.c:12")`);
      }
      // Parsed text is the input's own: bidi marks and C1 controls in it are escaped, as in the JSON report.
      io.out(`${escapeJsonInvisibles(JSON.stringify(dump, null, 2))}\n`);
      sink.code = ExitCode.Ok;
    });
}
