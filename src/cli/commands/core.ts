/**
 * `waitgraph core CORE [--exe BINARY]`: the same investigation as `attach`, on a core file (e.g.
 * from `gcore PID` or a crash). Lock owners are read from the core's memory. Without --exe the
 * program named in the core is used when that file still exists.
 */
import type { Command } from 'commander';
import type { CliIO, ExitSink } from '../io.js';
import { addLiveOptions, runLive, type LiveCommandOptions } from './attach.js';

export function registerCore(program: Command, io: CliIO, sink: ExitSink): void {
  const command = program
    .command('core')
    .description('Analyse a core file with gdb: thread backtraces plus lock owners read from its memory.')
    .argument('<core>', 'the core file (ELF core, e.g. from gcore)')
    .option('--exe <binary>', 'the program that dumped the core (default: the path recorded in the core, if it exists)');
  addLiveOptions(command).action(async (core: string, options: LiveCommandOptions & { exe?: string }) => {
    sink.code = await runLive({ kind: 'core', core, exe: options.exe ?? null }, options, io);
  });
}
