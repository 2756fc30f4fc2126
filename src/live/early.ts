/**
 * Starting gdb before the CLI loads its modules. `waitgraph attach PID` (and `core CORE`) spends
 * most of its time waiting for gdb to attach (or load the core) and read symbols; node's own
 * start (commander, parser, rules, reporters) can happen meanwhile instead of before.
 * cli/main.ts calls `startEarly` first, with only this module and the gdb driver loaded; the
 * command then claims the running gdb.
 *
 * Only an argv that the command will surely run is recognised: `attach PID` / `core CORE` with
 * that command's options and valid values, nothing else (help, unknown options, extra words,
 * `--`). Any doubt means no early start, and the command starts gdb itself as before. The target
 * passes the same checks first (parsePid, /proc, the core's ELF header).
 */
import { gdbIndexCacheFrom, gdbPathFrom } from './gdb-session.js';
import { parsePid, startLive, type LiveTarget, type StartedAttach } from './investigate.js';

/** The report formats (report/index.ts FORMATS; a test keeps the two lists equal). */
export const EARLY_FORMATS: readonly string[] = ['text', 'json', 'markdown', 'mermaid', 'dot', 'svg', 'sarif', 'html', 'github'];

export interface EarlyPlan {
  target: LiveTarget;
  commandTimeoutMs: number;
}

/**
 * The target and gdb step limit `argv` (without node and script) runs `attach` or `core` with,
 * or null when argv is anything but a plain, valid attach or core command line. Mirrors
 * commander's reading of those commands' options (cli/commands/attach.ts, core.ts).
 */
export function earlyPlan(argv: readonly string[]): EarlyPlan | null {
  const command = argv[0];
  if (command !== 'attach' && command !== 'core') return null;
  let positional: string | null = null;
  let timeout = '120';
  let exe: string | null = null;
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
    } else if (name === '--save-dump' || name === '--disable' || name === '--rules') {
      if (value() === null) return null;
    } else if (name === '--samples' && command === 'attach') {
      // An optional number, as commander reads it: the next word when it does not start with `-`.
      const next = inline ?? (argv[i + 1] !== undefined && !(argv[i + 1] as string).startsWith('-') ? argv[++i] : undefined);
      if (next !== undefined && (!/^\d{1,3}$/.test(next) || Number(next) < 1 || Number(next) > 100)) return null;
    } else if (name === '--interval' && command === 'attach') {
      const v = value();
      if (v === null || !/^\d{1,4}(?:\.\d{1,3})?$/.test(v) || Number(v) < 0.05 || Number(v) > 3600) return null;
    } else if (name === '--owners' && command === 'attach') {
      const v = value();
      if (v !== 'last' && v !== 'each') return null;
    } else if (name === '--exe' && command === 'core') {
      exe = value();
      if (exe === null || exe === '') return null;
    } else if (arg.startsWith('-') || positional !== null) {
      return null;
    } else {
      positional = arg;
    }
  }
  if (positional === null) return null;
  const commandTimeoutMs = Number(timeout) * 1000;
  if (command === 'core') return { target: { kind: 'core', core: positional, exe }, commandTimeoutMs };
  try {
    return { target: { kind: 'pid', pid: parsePid(positional) }, commandTimeoutMs };
  } catch {
    return null;
  }
}

let early: StartedAttach | null = null;

/**
 * Starts gdb when argv is a plain attach or core command line; otherwise does nothing. A target
 * that fails its checks (no such pid, not a core) starts nothing: the command reports it, as
 * without the early start.
 */
export function startEarly(argv: readonly string[], env: Readonly<Record<string, string | undefined>>, cwd: string): void {
  const plan = earlyPlan(argv);
  if (plan === null || early !== null) return;
  try {
    early = startLive(plan.target, { gdbPath: gdbPathFrom(env), indexCache: gdbIndexCacheFrom(env), commandTimeoutMs: plan.commandTimeoutMs, cwd });
  } catch {
    early = null;
  }
}

/** The early gdb, handed over once (to the attach or core command); null when none was started. */
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
