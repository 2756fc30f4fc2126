/**
 * attach / core end to end: one gdb over MI takes `thread apply all bt`, the text is analysed,
 * gdb is asked the owner of every lock a thread waits for, and the answers become OwnerFacts for
 * a second analysis of the same text (so cycles through those locks are proven). gdb is always
 * told to exit (and killed if it does not), so an attached process is never left stopped.
 */
import { closeSync, existsSync, mkdtempSync, openSync, readSync, rmSync, statSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, isAbsolute, join, resolve } from 'node:path';
import { GdbError, InputError } from '../errors.js';
import type { Analysis, OwnerFact } from '../model/analysis.js';
import type { Dump } from '../model/dump.js';
import { GdbSession, type CommandResult } from './gdb-session.js';
import { quoteCString } from './mi.js';
import { factFromAnswer, planOwnerQueries, type AskedQuery, type OwnerQuery } from './owner-queries.js';

export type LiveTarget = { kind: 'pid'; pid: number } | { kind: 'core'; core: string; exe: string | null };

/** How the caller analyses the captured text, made ready while gdb attaches. */
export interface LiveAnalyzer {
  parse(text: string): Dump;
  analyze(dump: Dump, facts: OwnerFact[]): Analysis;
  /**
   * Optional: a parser and analyser fed gdb's backtrace text while gdb prints it (chunks of any
   * size); `end()` gives what `analyze(parse(text), [])` would. Parsing during the printing takes
   * that work off the path between gdb's last line and the owner questions.
   */
  stream?(): LiveStream;
  /**
   * Several samples of the process (attach --samples) as one analysis: each sample's dump and
   * analysis in order, and the seconds from each to the next. Required for samples > 1.
   */
  series?(samples: ReadonlyArray<{ dump: Dump; analysis: Analysis }>, times: number[]): Analysis;
}

export interface LiveStream {
  push(chunk: string): void;
  end(): { dump: Dump; analysis: Analysis };
}

export interface LiveOptions {
  gdbPath: string;
  /** gdb's index cache (gdb-session.ts gdbIndexCacheFrom); default off. */
  indexCache?: boolean;
  /** Limit for one gdb command (attach and the backtrace of a big process can take a while). */
  commandTimeoutMs?: number;
  /**
   * Called once gdb has been given its first commands, so loading rules and modules overlaps with
   * gdb attaching; returns the parser and analyser to use.
   */
  prepare: () => LiveAnalyzer | Promise<LiveAnalyzer>;
  /** Working directory for relative core and executable paths. */
  cwd: string;
  /**
   * A gdb already started (`startLive`, e.g. by the CLI before it loaded its modules). Used when
   * it was started on this target with the same gdb and step limit; otherwise it is closed and
   * a new one started.
   */
  started?: StartedAttach | null;
  /**
   * Renders the final analysis while gdb detaches and exits (it is told to quit as soon as its
   * last answer is in); the text comes back as `LiveResult.rendered`.
   */
  render?: (analysis: Analysis) => string | Promise<string>;
  /**
   * attach --samples N: N backtrace snapshots through this one gdb, detached between them (the
   * process runs), `intervalMs` apart (from one sample's backtraces to the next). Default 1.
   */
  samples?: number;
  intervalMs?: number;
  /** Ask the owner questions on every sample (`--owners each`), not only on the last. */
  ownersEach?: boolean;
}

/** One sample of attach --samples: what gdb printed, the owner questions asked on it, and when it was taken. */
export interface LiveSample {
  text: string;
  asked: AskedQuery[];
  /** Seconds after the first sample's backtraces. */
  at: number;
}

export interface LiveResult {
  /** The backtrace text gdb printed, as `thread apply all bt` shows it. */
  text: string;
  analysis: Analysis;
  asked: AskedQuery[];
  /** What `LiveOptions.render` returned, or null without it. */
  rendered: string | null;
  /** With samples > 1: every sample in order (the last one's text and questions are also `text` and `asked`). */
  samples?: LiveSample[];
}

/**
 * Holds lines until a consumer connects, then passes them on. Lets gdb's output be parsed as it
 * arrives even when gdb was started before the parser was loaded. A consumer that throws is
 * disconnected (`failed`), and the caller parses the whole text instead.
 */
export class LineTap {
  private buffered: string[] = [];
  private sink: ((line: string) => void) | null = null;
  failed: unknown = null;

  readonly line = (line: string): void => {
    if (this.failed !== null) return;
    if (this.sink === null) {
      this.buffered.push(line);
      return;
    }
    try {
      this.sink(line);
    } catch (error) {
      this.failed = error;
    }
  };

  connect(sink: (line: string) => void): void {
    this.sink = sink;
    const lines = this.buffered;
    this.buffered = [];
    for (const line of lines) this.line(line);
  }
}

/**
 * A gdb started on a target with its first commands queued: for a pid `-target-attach PID` and
 * `thread apply all bt`; for a core, loading the core (and its program) and then the backtraces.
 */
export interface StartedAttach {
  /** Which target, resolved (`pid:4242`, `core:/abs/core:/abs/exe`): a command only takes a gdb started on its own target. */
  key: string;
  gdbPath: string;
  commandTimeoutMs: number;
  indexCache: boolean;
  session: GdbSession;
  /** The attach (pid); resolved ok for a core, whose failures reject `bt`. */
  attached: Promise<CommandResult>;
  bt: Promise<CommandResult>;
  /** The backtrace text, line by line as gdb prints it. */
  tap: LineTap;
}

export interface StartOptions {
  gdbPath: string;
  commandTimeoutMs: number;
  /** gdb's index cache (gdb-session.ts gdbIndexCacheFrom); default off. */
  indexCache?: boolean;
  /** Working directory for relative core and executable paths. */
  cwd: string;
}

/** The checked target: what gdb is given, and the key a started gdb is matched by. */
type CheckedTarget = { kind: 'pid'; pid: number; key: string } | { kind: 'core'; core: string; exe: string | null; shown: string; key: string };

/** Checks a target before any gdb runs: the same one-line errors whether gdb starts early or not. */
function checkTarget(target: LiveTarget, cwd: string): CheckedTarget {
  if (target.kind === 'pid') {
    if (!Number.isSafeInteger(target.pid) || target.pid < 1) throw new InputError(`not a process id: ${target.pid}`);
    if (existsSync('/proc/self') && !existsSync(`/proc/${target.pid}`)) throw new GdbError(`no process with pid ${target.pid}`);
    return { kind: 'pid', pid: target.pid, key: `pid:${target.pid}` };
  }
  const core = checkPath('core file', target.core, cwd);
  if (elfType(core) !== 4) throw new InputError(`not a core file: ${target.core} (expected an ELF core dump, e.g. from gcore)`);
  let exe: string | null = null;
  if (target.exe !== null) {
    exe = checkPath('executable', target.exe, cwd);
    if (elfType(exe) === null) throw new InputError(`not an executable: ${target.exe}`);
  }
  return { kind: 'core', core, exe, shown: target.core, key: `core:${core}:${exe ?? ''}` };
}

/**
 * Checks the target (throws the usual InputError / GdbError), spawns gdb (argument list, no
 * shell) and queues its first commands; nothing is awaited. A missing gdb rejects the queued
 * promises with a GdbError (they are observed here, so an early failure is never "unhandled").
 */
export function startLive(target: LiveTarget, options: StartOptions): StartedAttach {
  const checked = checkTarget(target, options.cwd);
  const indexCache = options.indexCache === true;
  const session = GdbSession.start({ gdbPath: options.gdbPath, commandTimeoutMs: options.commandTimeoutMs, indexCache });
  const tap = new LineTap();
  let attached: Promise<CommandResult>;
  let bt: Promise<CommandResult>;
  if (checked.kind === 'pid') {
    attached = session.command(`-target-attach ${checked.pid}`);
    bt = session.console('thread apply all bt', { onLine: tap.line });
  } else {
    attached = Promise.resolve({ ok: true, error: null, rest: '', console: '', log: '' });
    bt = openCore(session, checked.core, checked.exe, checked.shown, options.cwd).then(() => session.console('thread apply all bt', { onLine: tap.line }));
  }
  for (const p of [attached, bt]) p.catch(() => undefined);
  return { key: checked.key, gdbPath: options.gdbPath, commandTimeoutMs: options.commandTimeoutMs, indexCache, session, attached, bt, tap };
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
  let fd: number;
  try {
    fd = openSync(path, 'r');
  } catch (error) {
    throw new InputError(`cannot read ${path}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`);
  }
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
  const commandTimeoutMs = options.commandTimeoutMs ?? 120_000;
  const indexCache = options.indexCache === true;
  const start: StartOptions = { gdbPath: options.gdbPath, commandTimeoutMs, cwd: options.cwd, indexCache };
  const given = options.started ?? null;
  let started: StartedAttach;
  try {
    const key = checkTarget(target, options.cwd).key;
    if (given && given.key === key && given.gdbPath === options.gdbPath && given.commandTimeoutMs === commandTimeoutMs && given.indexCache === indexCache) started = given;
    else {
      // Not this target's gdb: it is not ours to keep.
      if (given) void given.session.close();
      started = startLive(target, start);
    }
  } catch (error) {
    if (given) await given.session.close();
    throw error;
  }
  const session = started.session;
  try {
    // gdb attaches and prints the backtraces while this process loads its rules (and parses the
    // backtraces as they arrive, when the analyser can).
    const analyzer = await options.prepare();
    const stream = analyzer.stream ? analyzer.stream() : null;
    if (stream) started.tap.connect((line) => stream.push(`${line}\n`));
    if (target.kind === 'pid') {
      const a = await started.attached;
      if (!a.ok) throw new GdbError(`cannot attach to pid ${target.pid}: ${attachHint(a.error ?? '')}`);
    }
    const samples = target.kind === 'pid' ? Math.max(1, options.samples ?? 1) : 1;
    if (samples > 1 && analyzer.series === undefined) throw new Error('internal: attach --samples needs an analyser that reads series');
    const taken: Array<LiveSample & { dump: Dump; analysis: Analysis }> = [];
    let firstAt = 0;
    for (let k = 1; k <= samples; k++) {
      let printed: CommandResult;
      let sampleStream: LiveStream | null = stream;
      // A parser that throws on a later sample is dropped, and that sample's text parsed whole (as for the first).
      const sampleTap = k === 1 ? started.tap : new LineTap();
      if (k === 1) printed = await started.bt;
      else {
        // The process ran since the last detach; sample k is due `interval` after sample k-1.
        const due = firstAt + (k - 1) * (options.intervalMs ?? 1000);
        const wait = due - Date.now();
        if (wait > 0) await new Promise((r) => setTimeout(r, wait));
        const pid = (target as { pid: number }).pid;
        const again = await session.command(`-target-attach ${pid}`);
        if (!again.ok) throw new GdbError(`cannot attach to pid ${pid} again for sample ${k} of ${samples}: ${attachHint(again.error ?? '')}`);
        sampleStream = analyzer.stream ? analyzer.stream() : null;
        const into = sampleStream;
        if (into) sampleTap.connect((line) => into.push(`${line}\n`));
        printed = await session.console('thread apply all bt', into ? { onLine: sampleTap.line } : {});
      }
      const at = Date.now();
      if (k === 1) firstAt = at;
      const text = printed.console;
      if (!/^Thread \d|^#0 /m.test(text)) throw new GdbError(`gdb printed no backtrace${session.errors().trim() ? `: ${session.errors().trim().split('\n').pop()}` : ''}`);
      let dump: Dump;
      let first: Analysis;
      if (sampleStream && sampleTap.failed === null) ({ dump, analysis: first } = sampleStream.end());
      else {
        dump = analyzer.parse(text);
        first = analyzer.analyze(dump, []);
      }
      const last = k === samples;
      const asked = last || options.ownersEach === true ? await askOwners(session, planOwnerQueries(first)) : [];
      // Every answer is in: gdb detaches and exits while the answers are analysed and reported.
      if (last) session.quit();
      // Between samples the process runs: gdb lets it go until the next one.
      else await session.command('-target-detach');
      const facts = asked.map(factFromAnswer).filter((f): f is OwnerFact => f !== null);
      const analysis = facts.length > 0 ? analyzer.analyze(dump, facts) : first;
      for (const a of asked) {
        if (!a.ok) analysis.notes.push(`asked gdb \`${a.command}\` for ${a.query.label}: ${a.answer}`);
        else if (factFromAnswer(a) === null) analysis.notes.push(`asked gdb \`${a.command}\` for ${a.query.label}: ${a.answer} (no holder)`);
      }
      taken.push({ text, asked, at: (at - firstAt) / 1000, dump, analysis });
    }
    const lastSample = taken[taken.length - 1] as (typeof taken)[number];
    const { text, asked } = lastSample;
    const analysis =
      samples > 1 && analyzer.series
        ? analyzer.series(
            taken,
            taken.slice(1).map((t, i) => Math.round((t.at - (taken[i] as (typeof taken)[number]).at) * 1000) / 1000),
          )
        : lastSample.analysis;
    const rendered = options.render ? await options.render(analysis) : null;
    if (samples > 1) return { text, analysis, asked, rendered, samples: taken.map((t) => ({ text: t.text, asked: t.asked, at: t.at })) };
    return { text, analysis, asked, rendered };
  } finally {
    await session.close();
  }
}

/** Expressions are built from fixed text and validated addresses; this is the last check. */
const EXPRESSION = /^[\w .*()>:?-]+$/;

function evaluate(session: GdbSession, expression: string): Promise<CommandResult> {
  if (!EXPRESSION.test(expression)) return Promise.resolve({ ok: false, error: 'refused: unexpected characters in the expression', rest: '', console: '', log: '' });
  return session.command(`-data-evaluate-expression ${quoteCString(expression)}`);
}

/** Sends every expression of every query at once; per query the first variant that evaluates counts. */
async function askOwners(session: GdbSession, queries: OwnerQuery[]): Promise<AskedQuery[]> {
  const sent = queries.map((query) => ({ query, results: query.expressions.map((e) => evaluate(session, e)) }));
  const out: AskedQuery[] = [];
  for (const { query, results } of sent) {
    let last: AskedQuery | null = null;
    for (let i = 0; i < results.length; i++) {
      const result = await (results[i] as Promise<CommandResult>);
      const command = `print ${query.expressions[i]}`;
      const candidate: AskedQuery = { query, command, answer: result.ok ? valueOf(result.rest) : (result.error ?? 'error'), ok: result.ok };
      if (last === null || !last.ok) last = candidate;
    }
    if (last) out.push(last);
  }
  return out;
}

function valueOf(rest: string): string {
  const m = /^value="((?:[^"\\]|\\.)*)"/.exec(rest);
  return m ? (m[1] as string).replace(/\\(.)/g, '$1') : rest;
}

function attachHint(message: string): string {
  const msg = message.trim();
  // gdb: "warning: process 8669 is a zombie - the process has already terminated\nptrace: Operation not permitted."
  if (/is a zombie/i.test(msg)) return `${msg} (the process has exited; its parent has not collected it yet)`;
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

/**
 * The program a core names (`Core was generated by `./server --port 80'`), as a path that exists:
 * absolute as written, or a relative name found from the working directory, then from the core's
 * own folder (a core copied next to its build, or opened from another folder). Null when none is
 * an executable; `tried` lists where it looked, for the message.
 */
export function findCoreProgram(named: string, cwd: string, coreDir: string): { program: string | null; tried: string[] } {
  const places = isAbsolute(named) ? [named] : [...new Set([resolve(cwd, named), resolve(coreDir, named)])];
  const program = places.find((place) => existsSync(place) && elfType(place) !== null) ?? null;
  return { program, tried: places };
}

async function openCore(session: GdbSession, core: string, exe: string | null, shown: string, cwd: string): Promise<void> {
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
      const found = candidate ? findCoreProgram(candidate, cwd, dirname(core)) : null;
      if (!found?.program) {
        const looked = found && found.tried.length > 1 ? `, looked for ${found.tried.join(' and ')}` : '';
        throw new GdbError(`core ${shown}: its executable${candidate ? ` (${candidate}${looked})` : ''} is not available; pass --exe BINARY`);
      }
      program = found.program;
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
