/**
 * One gdb process driven over MI. It is started with an argument list (never through a shell);
 * commands go to its stdin one at a time, each waits for its own result record. Every session
 * ends in `close()`, which asks gdb to exit and kills it if it does not — a traced process must
 * never be left stopped.
 */
import { spawn, type ChildProcessWithoutNullStreams } from 'node:child_process';
import { GdbError } from '../errors.js';
import { parseMiLine, resultField } from './mi.js';

export interface CommandResult {
  ok: boolean;
  /** `msg` of an error result, or null. */
  error: string | null;
  /** The result record after `^done,` (e.g. `value="5790"`). */
  rest: string;
  /** Console stream text printed while the command ran (what the CLI would have shown). */
  console: string;
  /** Log stream text (gdb's warnings and error echoes). */
  log: string;
}

export interface SessionOptions {
  /** The gdb binary: WAITGRAPH_GDB, or `gdb` from PATH. */
  gdbPath: string;
  /** Hard limit for one command, ms. */
  commandTimeoutMs: number;
  /** Environment for gdb (default: inherited). */
  env?: Record<string, string | undefined>;
}

export function gdbPathFrom(env: Readonly<Record<string, string | undefined>>): string {
  return env.WAITGRAPH_GDB && env.WAITGRAPH_GDB.length > 0 ? env.WAITGRAPH_GDB : 'gdb';
}

export class GdbSession {
  private readonly child: ChildProcessWithoutNullStreams;
  private buffer = '';
  private nextToken = 1;
  /** Commands sent and not yet answered, by token; gdb answers them in order. */
  private readonly pending = new Map<number, { console: string[]; log: string[]; resolve: (r: CommandResult) => void; reject: (e: Error) => void; timer: NodeJS.Timeout; name: string }>();
  private exited = false;
  private readonly exitPromise: Promise<void>;
  private startError: Error | null = null;

  private constructor(private readonly options: SessionOptions) {
    // -nx: no user gdbinit (its settings or hooks would change the output); -q: no banner.
    this.child = spawn(options.gdbPath, ['--interpreter=mi3', '-nx', '-q'], { stdio: ['pipe', 'pipe', 'pipe'], ...(options.env ? { env: options.env } : {}) });
    this.child.stdout.setEncoding('utf8');
    this.child.stdout.on('data', (chunk: string) => this.onData(chunk));
    this.child.stderr.on('data', () => undefined);
    this.child.stdin.on('error', () => undefined);
    this.exitPromise = new Promise((resolve) => {
      this.child.once('error', (error: NodeJS.ErrnoException) => {
        this.startError = error.code === 'ENOENT' ? new GdbError(`gdb not found (${options.gdbPath}); install gdb or set WAITGRAPH_GDB to its path`) : new GdbError(`cannot run gdb (${options.gdbPath}): ${error.message}`);
        this.finish(this.startError);
        resolve();
      });
      this.child.once('exit', () => {
        this.finish(new GdbError('gdb exited unexpectedly'));
        resolve();
      });
    });
  }

  /**
   * Spawns gdb. Nothing is awaited: commands can be queued at once (gdb runs them in order), so
   * the caller can do its own work while gdb attaches. A missing gdb rejects every queued command
   * with a GdbError.
   */
  static start(options: SessionOptions): GdbSession {
    return new GdbSession(options);
  }

  private finish(error: Error): void {
    this.exited = true;
    for (const p of this.pending.values()) {
      clearTimeout(p.timer);
      p.reject(this.startError ?? error);
    }
    this.pending.clear();
  }

  private onData(chunk: string): void {
    this.buffer += chunk;
    let newline: number;
    while ((newline = this.buffer.indexOf('\n')) >= 0) {
      const line = this.buffer.slice(0, newline).replace(/\r$/, '');
      this.buffer = this.buffer.slice(newline + 1);
      this.onLine(line);
    }
  }

  private onLine(line: string): void {
    const record = parseMiLine(line);
    // Stream records belong to the oldest unanswered command: gdb runs commands one at a time.
    const [token, pending] = this.pending.entries().next().value ?? [];
    if (pending === undefined || token === undefined) return;
    if (record.type === 'stream') {
      if (record.channel === 'console') pending.console.push(record.text);
      else if (record.channel === 'log') pending.log.push(record.text);
      return;
    }
    if (record.type === 'result' && record.token === token) {
      clearTimeout(pending.timer);
      this.pending.delete(token);
      const ok = record.cls !== 'error';
      pending.resolve({ ok, error: ok ? null : (resultField(record.rest, 'msg') ?? record.rest), rest: record.rest, console: pending.console.join(''), log: pending.log.join('') });
    }
  }

  /**
   * Sends one MI command and waits for its result. Callers build commands only from fixed text,
   * validated hex addresses and integers, or MI-quoted paths: nothing from the dump's free text.
   */
  command(text: string, timeoutMs = this.options.commandTimeoutMs): Promise<CommandResult> {
    if (/[\r\n]/.test(text)) return Promise.reject(new Error('internal: a gdb command must be one line'));
    if (this.exited) return Promise.reject(this.startError ?? new GdbError('gdb is not running'));
    const token = this.nextToken++;
    return new Promise<CommandResult>((resolve, reject) => {
      // The clock of a queued command starts now; commands before it share its time budget.
      const timer = setTimeout(() => {
        this.pending.delete(token);
        reject(new GdbError(`gdb did not answer within ${Math.round(timeoutMs / 1000)} s (${text.split(' ')[0]})`));
      }, timeoutMs);
      this.pending.set(token, { console: [], log: [], resolve, reject, timer, name: text });
      this.child.stdin.write(`${token}${text}\n`);
    });
  }

  /** Runs a CLI command (e.g. `thread apply all bt`) and returns what it printed. */
  async console(cliCommand: string, timeoutMs?: number): Promise<CommandResult> {
    return this.command(`-interpreter-exec console "${cliCommand.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`, timeoutMs);
  }

  /** Detaches from any target, asks gdb to exit, and kills it after a grace period. */
  async close(): Promise<void> {
    if (!this.exited) {
      this.child.stdin.end('-gdb-exit\n');
      const grace = setTimeout(() => {
        if (!this.exited) this.child.kill('SIGKILL');
      }, 5_000);
      await this.exitPromise;
      clearTimeout(grace);
    }
  }
}
