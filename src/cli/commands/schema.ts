/**
 * `waitgraph schema`: prints the JSON Schema of `--format json` reports, for validators and
 * editors (`waitgraph schema > report.schema.json`).
 */
import type { Command } from 'commander';
import type { CliIO, ExitSink } from '../io.js';
import { ExitCode } from '../exit-codes.js';
import { readReportSchemaText } from '../../report/schema/index.js';

export function registerSchema(program: Command, io: CliIO, sink: ExitSink): void {
  program
    .command('schema')
    .description('print the JSON Schema (draft 2020-12) of the JSON report (--format json)')
    .action(() => {
      const text = readReportSchemaText();
      io.out(text.endsWith('\n') ? text : `${text}\n`);
      sink.code = ExitCode.Ok;
    });
}
