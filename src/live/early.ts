/**
 * Starting gdb before the CLI loads its modules. `waitgraph attach PID` spends most of its time
 * waiting for gdb to attach and read symbols; node's own start (commander, parser, rules,
 * reporters) can happen meanwhile instead of before. cli/main.ts calls `attachEarly` first, with
 * only this module and the gdb driver loaded; the attach command then claims the running gdb.
 *
 * Only an argv that the attach command will surely run is recognised: `attach PID` with the
 * attach options and valid values, nothing else (help, unknown options, extra words, `--`). Any
 * doubt means no early start, and the command starts gdb itself as before. The pid goes through
 * the same parsePid check and is only used when /proc shows such a process.
 */
import { existsSync } from 'node:fs';
import { gdbPathFrom } from './gdb-session.js';
import { parsePid, startAttach, type StartedAttach } from './investigate.js';

/** The report formats (report/index.ts FORMATS; a test keeps the two lists equal). */
export const EARLY_FORMATS: readonly string[] = ['text', 'json', 'markdown', 'mermaid', 'dot', 'svg', 'sarif'];

export interface EarlyPlan {
  pid: number;
  commandTimeoutMs: number;
}

/**
 * The pid and gdb step limit `argv` (without node and script) runs `attach` with, or null when
 * argv is anything but a plain, valid attach command line. Mirrors commander's reading of the
 * attach command's options (cli/commands/attach.ts).
 */
export function earlyAttachPlan(argv: readonly string[]): EarlyPlan | null {
  if (argv[0] !== 'attach') return null;
  let pidText: string | null = null;
  let timeout = '120';
  for (let i = 1; i < argv.length; i++) {
    const arg = argv[i] as string;
    const eq = arg.startsWith('--') ? arg.indexOf('=') : -1;
    const name = eq > 0 ? arg.slice(0, eq) : arg;
    const inline = eq > 0 ? arg.slice(eq + 1) : null;
    // The value of an option that takes one: inline (`--format=json`, `-fjson`) or the next word.
    const value = (): string | null => {
      if (inline !== null) return inline;
      const next = argv[i + 1];
      if (next === undefined || next.startsWith('-')) return null;
      i += 1;
      return next;
    };
    if (name === '--format' || name === '-f' || (name.startsWith('-f') && !name.startsWith('--'))) {
      const v = name.length > 2 && !name.startsWith('--') ? name.slice(2) : value();
      if (v === null || !EARLY_FORMATS.includes(v)) return null;
    } else if (name === '--timeout') {
      const v = value();
      if (v === null || !/^\d{1,5}$/.test(v) || Number(v) < 1) return null;
      timeout = v;
    } else if (name === '--save-dump') {
      if (value() === null) return null;
    } else if (name === '--rules' && inline === null) {
      // Variadic: every following word up to the next option is a rule file.
      if (argv[i + 1] === undefined || (argv[i + 1] as string).startsWith('-')) return null;
      while (argv[i + 1] !== undefined && !(argv[i + 1] as string).startsWith('-')) i += 1;
    } else if (arg.startsWith('-') || pidText !== null) {
      return null;
    } else {
      pidText = arg;
    }
  }
  if (pidText === null) return null;
  try {
    return { pid: parsePid(pidText), commandTimeoutMs: Number(timeout) * 1000 };
  } catch {
    return null;
  }
}

let early: StartedAttach | null = null;

/** Starts gdb on the pid when argv is a plain attach command line; otherwise does nothing. */
export function attachEarly(argv: readonly string[], env: Readonly<Record<string, string | undefined>>): void {
  const plan = earlyAttachPlan(argv);
  if (plan === null || early !== null) return;
  // A pid that does not exist gets its error from the command, as without the early start.
  if (!existsSync(`/proc/${plan.pid}`)) return;
  early = startAttach(plan.pid, { gdbPath: gdbPathFrom(env), commandTimeoutMs: plan.commandTimeoutMs });
}

/** The early gdb, handed over once (to the attach command); null when none was started. */
export function claimEarlyAttach(): StartedAttach | null {
  const started = early;
  early = null;
  return started;
}

/** Quits an early gdb nobody claimed (the command failed before it ran); waits for it to exit. */
export async function releaseEarlyAttach(): Promise<void> {
  const started = claimEarlyAttach();
  if (started) await started.session.close();
}
