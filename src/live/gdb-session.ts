/**
 * One gdb process for a whole investigation, started with an argument list (never through a
 * shell). gdb runs its CLI interpreter with an empty prompt and reads commands from a pipe:
 * `thread apply all bt` prints exactly as in a user's terminal (and as fast as `gdb -batch`;
 * gdb's MI interpreter as the top level was measured 1.5× slower on a 100-thread process), while
 * every other step goes through `interpreter-exec mi "…"`, so it answers `^done,value="…"` or
 * `^error,msg="…"` on stdout, in order, tied to the question that caused it.
 *
 * Each request ends with `echo @@wg-NONCE:N@@`; the response is what gdb printed before that
 * line. The nonce is random per session, so text in the dump (thread names, strings) cannot fake
 * the end of a response. Requests can be queued: gdb runs them in order.
 *
 * Sample response lines:
 *   ~"[New LWP 25666]\n"
 *   ^done,value="5790"
 *   ^error,msg="ptrace: No such process."
 *   Thread 3 (Thread 0x7f85ad7346c0 (LWP 25667) "abba-ba"):
 */
import type { ChildProcessWithoutNullStreams } from 'node:child_process';
import { createRequire } from 'node:module';
import { GdbError } from '../errors.js';
import { parseMiLine, resultField } from './mi.js';

export interface CommandResult {
  ok: boolean;
  /** `msg` of an MI error result, or null. */
  error: string | null;
  /** The MI result record after `^done,` (e.g. `value="5790"`); empty for CLI commands. */
  rest: string;
  /** What gdb printed: CLI output as is, MI console streams decoded. */
  console: string;
  /** MI log stream text (gdb's warnings and error echoes). */
  log: string;
}

export interface SessionOptions {
  /** The gdb binary: WAITGRAPH_GDB, or `gdb` from PATH. */
  gdbPath: string;
  /** Hard limit for one request, ms. */
  commandTimeoutMs: number;
  /** Environment for gdb (default: inherited). */
  env?: Record<string, string | undefined>;
  /** gdb's index cache on (see gdbIndexCacheFrom); default off, as in gdb. */
  indexCache?: boolean;
}

export function gdbPathFrom(env: Readonly<Record<string, string | undefined>>): string {
  return env.WAITGRAPH_GDB && env.WAITGRAPH_GDB.length > 0 ? env.WAITGRAPH_GDB : 'gdb';
}

/**
 * Whether gdb keeps its symbol index cache (`set index-cache enabled on`): gdb then saves the
 * DWARF index it builds for each binary and library (keyed by build-id, in gdb's own cache
 * directory, $XDG_CACHE_HOME/gdb or ~/.cache/gdb) and loads it next time instead of indexing
 * libc's debug info again — on a 100-thread program gdb's whole run drops from ~250 to ~150 ms.
 * On by default; WAITGRAPH_GDB_INDEX_CACHE=off (or 0, no, false) turns it off.
 */
export function gdbIndexCacheFrom(env: Readonly<Record<string, string | undefined>>): boolean {
  const v = (env.WAITGRAPH_GDB_INDEX_CACHE ?? '').trim().toLowerCase();
  return !(v === 'off' || v === '0' || v === 'no' || v === 'false');
}

/** Settings applied before gdb reads anything (-iex): no prompt, no pager, no colour, no wrapping. */
const STARTUP_SETTINGS = ['set prompt', 'set pagination off', 'set style enabled off', 'set confirm off', 'set width 0', 'set height 0', 'set print thread-events off'];

interface Pending {
  marker: string;
  kind: 'mi' | 'cli';
  /** Receives a CLI command's output line by line as gdb prints it (see console()). */
  onLine: ((line: string) => void) | null;
  /** The newest line, passed on once the next one arrives (the last one may be the echoed break). */
  held: string | null;
  resolve: (r: CommandResult) => void;
  reject: (e: Error) => void;
  timer: NodeJS.Timeout;
}

/**
 * node:child_process (which loads net, dgram and the streams) and node:crypto, required when a
 * session starts, not imported: the early part of the bundle holds this module, and importing
 * them cost ~3 ms of every start, `attach` or not (issue 18, figure 4).
 */
function processModules(): { spawn: typeof import('node:child_process').spawn; randomBytes: typeof import('node:crypto').randomBytes } {
  const require = createRequire(import.meta.url);
  const { spawn } = require('node:child_process') as typeof import('node:child_process');
  const { randomBytes } = require('node:crypto') as typeof import('node:crypto');
  return { spawn, randomBytes };
}

export class GdbSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private readonly nonce: string;
  private buffer = '';
  private lines: string[] = [];
  private nextId = 1;
  private readonly pending: Pending[] = [];
  private exited = false;
  private quitSent = false;
  private readonly exitPromise: Promise<void>;
  private startError: Error | null = null;
  /** gdb's stderr, kept for error messages (CLI commands report failures there). */
  private stderr = '';

  private constructor(private readonly options: SessionOptions) {
    // -nx: no user gdbinit (its settings or hooks would change the output); -q: no banner.
    const settings = options.indexCache === true ? [...STARTUP_SETTINGS, 'set index-cache enabled on'] : STARTUP_SETTINGS;
    const args = ['-nx', '-q', ...settings.flatMap((s) => ['-iex', s])];
    const { spawn, randomBytes } = processModules();
    this.nonce = randomBytes(8).toString('hex');
    this.child = spawn(options.gdbPath, args, { stdio: ['pipe', 'pipe', 'pipe'], ...(options.env ? { env: options.env } : {}) });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr.setEncoding('utf8');
    this.child.stderr.on('data', (chunk: string) => {
      if (this.stderr.length < 65_536) this.stderr += chunk;
    });
    this.child.stdin.on('error', () => undefined);
    this.exitPromise = new Promise((resolve) => {
      this.child.once('error', (error: NodeJS.ErrnoException) => {
        this.startError = error.code === 'ENOENT' ? new GdbError(`gdb not found (${options.gdbPath}); install gdb or set WAITGRAPH_GDB to its path`) : new GdbError(`cannot run gdb (${options.gdbPath}): ${error.message}`);
        this.finish(this.startError);
        resolve();
      });
      this.child.once('exit', () => {
        this.finish(new GdbError(`gdb exited unexpectedly${this.stderr.trim() ? `: ${this.stderr.trim().split('\n').pop()}` : ''}`));
        resolve();
      });
    });
  }

  /**
   * Spawns gdb. Nothing is awaited: requests can be queued at once (gdb runs them in order), so
   * the caller can do its own work while gdb attaches. A missing gdb rejects every queued request
   * with a GdbError.
   */
  static start(options: SessionOptions): GdbSession {
    return new GdbSession(options);
  }

  private finish(error: Error): void {
    this.exited = true;
    for (const p of this.pending.splice(0)) {
      clearTimeout(p.timer);
      p.reject(this.startError ?? error);
    }
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let start = 0;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n', start)) >= 0) {
      this.onLine(this.buffer.slice(start, newline).replace(/\r$/, ''));
      start = newline + 1;
    }
    this.buffer = this.buffer.slice(start);
  }

  private onLine(line: string): void {
    const head = this.pending[0];
    if (head === undefined) return;
    if (line !== head.marker) {
      this.lines.push(line);
      if (head.onLine !== null) {
        if (head.held !== null) head.onLine(head.held);
        head.held = line;
      }
      return;
    }
    this.pending.shift();
    clearTimeout(head.timer);
    // The held line is the last one: passed on unless it is the break echoed before the marker.
    if (head.onLine !== null && head.held !== null && head.held !== '') head.onLine(head.held);
    const lines = this.lines;
    this.lines = [];
    // Drop the line break echoed before the marker (see request()).
    if (lines.length > 0 && lines[lines.length - 1] === '') lines.pop();
    head.resolve(head.kind === 'cli' ? { ok: true, error: null, rest: '', console: lines.length > 0 ? `${lines.join('\n')}\n` : '', log: '' } : readMiResponse(lines));
  }

  private request(kind: 'mi' | 'cli', command: string, timeoutMs: number, onLine: ((line: string) => void) | null = null): Promise<CommandResult> {
    if (/[\r\n]/.test(command)) return Promise.reject(new Error('internal: a gdb command must be one line'));
    if (this.exited || this.quitSent) return Promise.reject(this.startError ?? new GdbError('gdb is not running'));
    const marker = `@@wg-${this.nonce}:${this.nextId++}@@`;
    return new Promise<CommandResult>((resolve, reject) => {
      // A queued request's clock starts now; the requests before it share its budget.
      const timer = setTimeout(() => {
        reject(new GdbError(`gdb did not answer within ${Math.round(timeoutMs / 1000)} s (${command.split(' ')[0]})`));
      }, timeoutMs);
      this.pending.push({ marker, kind, onLine, held: null, resolve, reject, timer });
      // The marker starts on a fresh line even when the command's output did not end with one.
      this.child.stdin.write(`${command}\necho \\n${marker}\\n\n`);
    });
  }

  /**
   * Runs one MI command (`-target-attach 4242`, `-data-evaluate-expression "…"`) and returns its
   * result record. Callers build commands only from fixed text, validated hex addresses and
   * integers, and fixed paths: nothing from the dump's free text.
   */
  command(mi: string, timeoutMs = this.options.commandTimeoutMs): Promise<CommandResult> {
    return this.request('mi', `interpreter-exec mi "${mi.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`, timeoutMs);
  }

  /**
   * Runs a CLI command (e.g. `thread apply all bt`) and returns what it printed on stdout.
   * `onLine`, if given, also receives each line (without its break) while gdb prints, so the
   * caller can parse the backtraces as they arrive; together the lines are exactly the returned
   * `console` text. An exception from `onLine` propagates out of the stdout handler: callers
   * catch their own.
   */
  console(cli: string, options: { timeoutMs?: number; onLine?: (line: string) => void } = {}): Promise<CommandResult> {
    return this.request('cli', cli, options.timeoutMs ?? this.options.commandTimeoutMs, options.onLine ?? null);
  }

  /** gdb's stderr so far (CLI errors, warnings), for messages. */
  errors(): string {
    return this.stderr;
  }

  /**
   * Tells gdb to quit (which detaches from a live process) without waiting: the caller goes on
   * with its own work while gdb detaches. close() still has to be awaited.
   */
  quit(): void {
    if (this.exited || this.quitSent) return;
    this.quitSent = true;
    this.child.stdin.end('quit\n');
  }

  /** Asks gdb to quit (if not done yet) and waits for it to exit; kills it after a grace period. */
  async close(): Promise<void> {
    if (!this.exited) {
      this.quit();
      const grace = setTimeout(() => {
        if (!this.exited) this.child.kill('SIGKILL');
      }, 5_000);
      await this.exitPromise;
      clearTimeout(grace);
    }
  }
}

/** The MI records of one `interpreter-exec mi` response: its result, console and log streams. */
function readMiResponse(lines: string[]): CommandResult {
  const consoleText: string[] = [];
  const log: string[] = [];
  let result: { cls: string; rest: string } | null = null;
  for (const line of lines) {
    const record = parseMiLine(line);
    if (record.type === 'stream') (record.channel === 'log' ? log : consoleText).push(record.text);
    else if (record.type === 'result') result = { cls: record.cls, rest: record.rest };
    else if (record.type === 'other' && line !== '') consoleText.push(`${line}\n`);
  }
  if (result === null) return { ok: false, error: 'gdb gave no answer', rest: '', console: consoleText.join(''), log: log.join('') };
  const ok = result.cls !== 'error';
  return { ok, error: ok ? null : (resultField(result.rest, 'msg') ?? result.rest), rest: result.rest, console: consoleText.join(''), log: log.join('') };
}
