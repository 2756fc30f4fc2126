/**
 * attach / core end to end: one gdb over MI takes `thread apply all bt`, the text is analysed,
 * gdb is asked the owner of every lock a thread waits for, and the answers become OwnerFacts for
 * a second analysis of the same text (so cycles through those locks are proven). gdb is always
 * told to exit (and killed if it does not), so an attached process is never left stopped.
 */
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { isAbsolute, join, resolve } from 'node:path';
import { GdbError, InputError } from '../errors.js';
import type { Analysis, OwnerFact } from '../model/analysis.js';
import { GdbSession } from './gdb-session.js';
import { quoteCString } from './mi.js';
import { factFromAnswer, planOwnerQueries, type AskedQuery } from './owner-queries.js';

export type LiveTarget = { kind: 'pid'; pid: number } | { kind: 'core'; core: string; exe: string | null };

export interface LiveOptions {
  gdbPath: string;
  /** Limit for one gdb command (attach and the backtrace of a big process can take a while). */
  commandTimeoutMs?: number;
  /** Analyses the captured text with the given facts (rules already chosen by the caller). */
  analyzeText: (text: string, facts: OwnerFact[]) => Analysis;
  /** Working directory for relative core and executable paths. */
  cwd: string;
}

export interface LiveResult {
  /** The backtrace text gdb printed, as `thread apply all bt` shows it. */
  text: string;
  analysis: Analysis;
  asked: AskedQuery[];
}

/** `4242` → 4242; anything else (signs, spaces, hex, huge numbers) is a usage error. */
export function parsePid(text: string): number {
  if (!/^[1-9]\d{0,9}$/.test(text.trim())) throw new InputError(`not a process id: ${JSON.stringify(text)}`);
  const pid = Number(text.trim());
  if (pid > 4_194_304) throw new InputError(`not a process id: ${text} (above the kernel's pid limit)`);
  return pid;
}

function checkPath(label: string, path: string, cwd: string): string {
  if (/[\u0000-\u001f\u007f]/.test(path)) throw new InputError(`${label} path contains control characters`);
  const full = isAbsolute(path) ? path : resolve(cwd, path);
  if (!existsSync(full)) throw new InputError(`${label} not found: ${path}`);
  if (!statSync(full).isFile()) throw new InputError(`${label} is not a file: ${path}`);
  return full;
}

/** ELF header check: magic, and e_type ET_CORE (4) for cores. */
function elfType(path: string): number | null {
  const fd = openSync(path, 'r');
  try {
    const head = Buffer.alloc(18);
    const n = readSync(fd, head, 0, 18, 0);
    if (n < 18 || head.readUInt32BE(0) !== 0x7f454c46) return null;
    return head[5] === 2 ? head.readUInt16BE(16) : head.readUInt16LE(16);
  } finally {
    closeSync(fd);
  }
}

export async function investigate(target: LiveTarget, options: LiveOptions): Promise<LiveResult> {
  const cwd = options.cwd;
  let core = '';
  let exe: string | null = null;
  if (target.kind === 'pid') {
    if (existsSync('/proc/self') && !existsSync(`/proc/${target.pid}`)) throw new GdbError(`no process with pid ${target.pid}`);
  } else {
    core = checkPath('core file', target.core, cwd);
    if (elfType(core) !== 4) throw new InputError(`not a core file: ${target.core} (expected an ELF core dump, e.g. from gcore)`);
    if (target.exe !== null) {
      exe = checkPath('executable', target.exe, cwd);
      if (elfType(exe) === null) throw new InputError(`not an executable: ${target.exe}`);
    }
  }

  const session = await GdbSession.start({ gdbPath: options.gdbPath, commandTimeoutMs: options.commandTimeoutMs ?? 120_000 });
  try {
    for (const setting of ['style enabled off', 'confirm off', 'print thread-events off', 'width 0', 'height 0']) {
      await session.command(`-gdb-set ${setting}`);
    }
    if (target.kind === 'pid') {
      const attached = await session.command(`-target-attach ${target.pid}`);
      if (!attached.ok) throw new GdbError(`cannot attach to pid ${target.pid}: ${attachHint(attached.error ?? '')}`);
    } else {
      await openCore(session, core, exe, target.core);
    }
    const bt = await session.console('thread apply all bt');
    if (!bt.ok) throw new GdbError(`gdb could not print the backtraces: ${bt.error}`);
    const text = bt.console;
    const first = options.analyzeText(text, []);
    const asked: AskedQuery[] = [];
    for (const query of planOwnerQueries(first)) {
      let last: AskedQuery | null = null;
      for (const expression of query.expressions) {
        const result = await session.command(`-data-evaluate-expression ${quoteCString(expression)}`);
        last = { query, command: `print ${expression}`, answer: result.ok ? valueOf(result.rest) : (result.error ?? 'error'), ok: result.ok };
        if (result.ok) break;
      }
      if (last) asked.push(last);
    }
    const facts = asked.map(factFromAnswer).filter((f): f is OwnerFact => f !== null);
    const analysis = options.analyzeText(text, facts);
    for (const a of asked) {
      if (!a.ok) analysis.notes.push(`asked gdb \`${a.command}\` for ${a.query.label}: ${a.answer}`);
      else if (factFromAnswer(a) === null) analysis.notes.push(`asked gdb \`${a.command}\` for ${a.query.label}: ${a.answer} (no holder)`);
    }
    return { text, analysis, asked };
  } finally {
    await session.close();
  }
}

function valueOf(rest: string): string {
  const m = /^value="((?:[^"\\]|\\.)*)"/.exec(rest);
  return m ? (m[1] as string).replace(/\\(.)/g, '$1') : rest;
}

function attachHint(message: string): string {
  const msg = message.trim();
  if (/Operation not permitted/i.test(msg)) {
    return `${msg} (ptrace is not allowed: run as the process owner or root, check /proc/sys/kernel/yama/ptrace_scope, and in containers CAP_SYS_PTRACE)`;
  }
  return msg;
}

/**
 * gdb's MI and CLI file commands do not take quoted names (`-target-select core "a b"` looks for a
 * file called `"a b"`), so user paths never enter a command: they are symlinked under fixed names
 * in a fresh temp dir, and only those names are sent.
 */
function linkDir(): string {
  const base = /^[\w./-]+$/.test(tmpdir()) ? tmpdir() : '/tmp';
  return mkdtempSync(join(base, 'waitgraph-core-'));
}

async function openCore(session: GdbSession, core: string, exe: string | null, shown: string): Promise<void> {
  const dir = linkDir();
  try {
    const coreLink = join(dir, 'core');
    symlinkSync(core, coreLink);
    let program = exe;
    if (program === null) {
      // gdb 13 does not load the program of a core by itself; it does say which one it was.
      const probe = await session.command(`-target-select core ${coreLink}`);
      if (!probe.ok) throw new GdbError(`gdb cannot open the core ${shown}: ${probe.error}`);
      const generated = /Core was generated by `([^'`\s]+)/.exec(probe.console);
      const candidate = generated?.[1];
      if (!candidate || !isAbsolute(candidate) || !existsSync(candidate) || elfType(candidate) === null) {
        throw new GdbError(`core ${shown}: its executable${candidate ? ` (${candidate})` : ''} is not available; pass --exe BINARY`);
      }
      program = candidate;
      await session.command('-target-detach');
    }
    const programLink = join(dir, 'program');
    symlinkSync(program, programLink);
    const loaded = await session.command(`-file-exec-and-symbols ${programLink}`);
    if (!loaded.ok) throw new GdbError(`gdb cannot load the executable ${program}: ${loaded.error}`);
    const opened = await session.command(`-target-select core ${coreLink}`);
    if (!opened.ok) throw new GdbError(`gdb cannot open the core ${shown}: ${opened.error}`);
    if (/core file may not match/i.test(opened.log + opened.console)) {
      throw new GdbError(`core ${shown} does not match the executable ${program}; pass the binary that dumped it with --exe`);
    }
  } finally {
    // gdb has opened both files by now; the links are no longer needed.
    rmSync(dir, { recursive: true, force: true });
  }
}
