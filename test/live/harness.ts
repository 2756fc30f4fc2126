/**
 * Builds the test programs once per process, starts them, waits until they hang, captures
 * gdb's `thread apply all bt`, and kills every process it started whatever happens (a test's
 * `finally`, plus an exit hook for crashes and timeouts). Everything runs through execFile /
 * spawn with argument lists: no shell anywhere.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { ROOT } from '../helpers/paths.js';
import { PROGRAMS, HOSTILE_NAMES, SHARED_WAITS, SIGNAL_DAEMON, STOP_AND_GO, WAIT_ZOO, type ProgramSpec, programByName } from './programs.js';
import { runWaitgraphAsync } from './cli.js';

const run = promisify(execFile);

export const PROGRAMS_DIR = join(ROOT, 'fixtures', 'programs');
export const LIVE_FIXTURES = join(ROOT, 'fixtures', 'live');
/** Hard limit for one live test (node:test `timeout`). */
export const LIVE_TEST_TIMEOUT_MS = 90_000;

const started = new Set<ChildProcess>();
/** Children the programs forked (spec.attachTo `child`), by pid: not ours to wait for, but ours to kill. */
const forked = new Set<number>();
let buildDir: string | null = null;

// Whatever ends this process (a failed assertion, a test timeout, an uncaught error), the
// programs it started must not outlive it: they are hung by design.
process.on('exit', () => {
  for (const pid of forked) killPid(pid);
  for (const child of started) killQuietly(child);
  if (buildDir) rmSync(buildDir, { recursive: true, force: true });
});
// Ctrl-C / kill end a process without 'exit' handlers: kill the programs, then die of the same
// signal. (SIGKILL cannot be caught; the programs' PR_SET_PDEATHSIG covers it.)
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
  process.once(signal, () => {
    for (const pid of forked) killPid(pid);
    for (const child of started) killQuietly(child);
    process.kill(process.pid, signal);
  });
}

function killPid(pid: number): void {
  try {
    process.kill(pid, 'SIGKILL');
  } catch {
    // already gone
  }
}

/** True while `pid` exists and is not a zombie. */
function pidAlive(pid: number): boolean {
  const state = traceState(pid)?.state;
  return state !== undefined && state !== 'Z' && state !== 'X';
}

function killQuietly(child: ChildProcess): void {
  if (child.exitCode === null && child.signalCode === null) {
    try {
      child.kill('SIGKILL');
    } catch {
      // already gone
    }
  }
}

/** `TracerPid` and state letter from /proc/PID/status: a program gdb left stopped or traced shows it. */
export function traceState(pid: number): { tracerPid: number; state: string } | null {
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    return { tracerPid: Number(/^TracerPid:\s*(\d+)/m.exec(status)?.[1] ?? -1), state: /^State:\s*(\S)/m.exec(status)?.[1] ?? '?' };
  } catch {
    return null;
  }
}

/** pids of started programs that are still alive (the suites assert this is empty at the end). */
export function livePids(): number[] {
  const programs = [...started].filter((c) => c.exitCode === null && c.signalCode === null).map((c) => c.pid ?? -1);
  return [...programs, ...[...forked].filter(pidAlive)];
}

async function hasTool(tool: string): Promise<boolean> {
  try {
    await run(tool, ['--version'], { timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

let built: Promise<string> | null = null;

/** Compiles every C/C++ program and libgilmix.so into a temp dir, once; returns that dir. */
export function buildPrograms(): Promise<string> {
  built ??= (async () => {
    const dir = mkdtempSync(join(tmpdir(), 'waitgraph-programs-'));
    buildDir = dir;
    const jobs: Array<[string, string[]]> = [
      ['gcc', ['-g', '-O0', '-pthread', '-shared', '-fPIC', '-o', join(dir, 'libgilmix.so'), 'gilmix.c']],
      ['gcc', ['-g', '-O0', '-pthread', '-o', join(dir, HOSTILE_NAMES), `${HOSTILE_NAMES}.c`]],
      ['gcc', ['-g', '-O0', '-pthread', '-o', join(dir, STOP_AND_GO), `${STOP_AND_GO}.c`]],
      ['gcc', ['-g', '-O0', '-pthread', '-o', join(dir, SHARED_WAITS), `${SHARED_WAITS}.c`]],
      ['gcc', ['-g', '-O0', '-pthread', '-o', join(dir, SIGNAL_DAEMON), `${SIGNAL_DAEMON}.c`]],
      ['g++', ['-g', '-O0', '-pthread', '-o', join(dir, WAIT_ZOO), `${WAIT_ZOO}.cpp`]],
    ];
    for (const spec of PROGRAMS) {
      if (spec.language === 'c') jobs.push(['gcc', ['-g', '-O0', '-pthread', '-o', join(dir, spec.name), spec.source]]);
      if (spec.language === 'c++') jobs.push(['g++', ['-g', '-O0', '-pthread', '-o', join(dir, spec.name), spec.source]]);
    }
    // Two at a time: the machine has two cores shared with everyone else.
    for (let i = 0; i < jobs.length; i += 2) {
      await Promise.all(jobs.slice(i, i + 2).map(([cc, args]) => run(cc, args, { cwd: PROGRAMS_DIR, timeout: 120_000 })));
    }
    return dir;
  })();
  return built;
}

export interface Started {
  spec: ProgramSpec | null;
  pid: number;
  child: ChildProcess;
  stdout: () => string;
  kill: () => Promise<void>;
}

/** The command line that runs a program (binary in the build dir, or python3 with its script). */
export function commandFor(name: string, dir: string, extraArgs: string[] = []): [string, string[]] {
  const spec = programByName(name);
  const args = (spec?.args ?? []).map((a) => a.replace('{build}', dir)).concat(extraArgs);
  if (spec?.language === 'python') return ['python3', [join(PROGRAMS_DIR, spec.source), ...args]];
  return [join(dir, name), args];
}

/**
 * Starts a program and resolves once it printed READY and had `settleMs` to reach its blocking
 * calls. Rejects (after killing it) if READY does not come within `readyTimeoutMs`.
 */
export async function startProgram(name: string, options: { args?: string[]; settleMs?: number; readyTimeoutMs?: number } = {}): Promise<Started> {
  const dir = await buildPrograms();
  const [command, args] = commandFor(name, dir, options.args);
  const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  started.add(child);
  let out = '';
  let err = '';
  child.stdout?.on('data', (d: Buffer) => (out += d.toString()));
  child.stderr?.on('data', (d: Buffer) => (err += d.toString()));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // A forked child to capture (spec.attachTo): killed with its parent (it also has PR_SET_PDEATHSIG).
  let childPid: number | null = null;
  // Once it is gone its pid may be reused: it leaves `forked`, so nothing kills the new owner.
  const killChild = async (): Promise<void> => {
    if (childPid === null) return;
    killPid(childPid);
    for (let i = 0; i < 100 && pidAlive(childPid); i++) await new Promise((r) => setTimeout(r, 20));
    if (!pidAlive(childPid)) forked.delete(childPid);
  };
  const kill = async (): Promise<void> => {
    await killChild();
    killQuietly(child);
    await exited;
  };
  try {
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error(`${name}: no READY within ${options.readyTimeoutMs ?? 15_000} ms (stderr: ${err.trim()})`)), options.readyTimeoutMs ?? 15_000);
      const check = (): void => {
        if (/^READY$/m.test(out)) {
          clearTimeout(timer);
          resolve();
        }
      };
      child.stdout?.on('data', check);
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`${name} exited early (${code ?? signal}); stderr: ${err.trim()}`));
      });
      child.once('error', (e) => {
        clearTimeout(timer);
        reject(e);
      });
    });
    await new Promise((r) => setTimeout(r, options.settleMs ?? 200));
  } catch (error) {
    await kill();
    throw error;
  }
  if (child.pid === undefined) throw new Error(`${name}: no pid`);
  const spec = programByName(name);
  if (spec?.attachTo === 'child') {
    childPid = Number(/^CHILD (\d+)$/m.exec(out)?.[1] ?? NaN);
    if (!Number.isInteger(childPid)) {
      childPid = null;
      await kill();
      throw new Error(`${name}: READY without a CHILD line`);
    }
    forked.add(childPid);
  }
  return { spec, pid: childPid ?? child.pid, child, stdout: () => out, kill };
}

/** Runs `fn` with a started program and always kills it afterwards. */
export async function withProgram<T>(name: string, fn: (p: Started) => Promise<T>, options: { args?: string[] } = {}): Promise<T> {
  const program = await startProgram(name, options);
  try {
    return await fn(program);
  } finally {
    await program.kill();
  }
}

/** The exact gdb command line a user would run, as an argument list. */
export function gdbCaptureArgs(pid: number, options: { hideLibcDebug?: boolean } = {}): string[] {
  const hide = options.hideLibcDebug ? ['-iex', 'set debug-file-directory /nonexistent'] : [];
  return ['-p', String(pid), '-batch', '-nx', ...hide, '-ex', 'set pagination off', '-ex', 'set style enabled off', '-ex', 'thread apply all bt'];
}

/** gdb's `thread apply all bt` for a running process (stdout only, as `gdb … | waitgraph` sees it). */
export async function captureBacktraces(pid: number, options: { hideLibcDebug?: boolean } = {}): Promise<string> {
  const { stdout } = await run('gdb', gdbCaptureArgs(pid, options), { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
  return stdout;
}

/**
 * What a fixture or a test keeps of a program: its `thread apply all bt`, and for a program whose
 * hang only owners show (spec.ownerLoop) the owner loop as a user runs it: `waitgraph DUMP
 * --gdb-commands CMDS`, then `gdb -p PID -batch -x CMDS`, its answers appended to the dump.
 */
export async function captureProgram(spec: ProgramSpec, pid: number, options: { hideLibcDebug?: boolean } = {}): Promise<string> {
  const text = await captureBacktraces(pid, options);
  if (spec.ownerLoop !== true) return text;
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-owner-loop-'));
  try {
    const dump = join(dir, `${spec.name}.txt`);
    const commands = join(dir, `${spec.name}.gdb`);
    writeFileSync(dump, text);
    const asked = await runWaitgraphAsync([dump, '--gdb-commands', commands]);
    if (asked.code === 2) throw new Error(`${spec.name}: --gdb-commands failed: ${asked.stderr.trim()}`);
    const hide = options.hideLibcDebug ? ['-iex', 'set debug-file-directory /nonexistent'] : [];
    const { stdout } = await run('gdb', ['-p', String(pid), '-batch', '-nx', ...hide, '-x', commands], { timeout: 60_000, maxBuffer: 64 * 1024 * 1024 });
    return text + stdout;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** Replaces the temp build dir so captured fixtures are stable across machines. */
export function normaliseCapture(text: string, dir: string): string {
  return text.split(dir).join('/build');
}

let skipReason: Promise<string | null> | null = null;

/**
 * Why live tests cannot run here, or null when they can: `gdb not found`, `gcc not found`,
 * `cannot ptrace` (e.g. yama ptrace_scope or a container without CAP_SYS_PTRACE). Probed once by
 * attaching to a real sleeping program.
 */
export function liveSkipReason(): Promise<string | null> {
  skipReason ??= (async () => {
    if (!(await hasTool('gdb'))) return 'gdb not found';
    if (!(await hasTool('gcc')) || !(await hasTool('g++'))) return 'gcc/g++ not found';
    try {
      await buildPrograms();
    } catch (error) {
      return `the test programs do not build: ${String(error).split('\n')[0]}`;
    }
    return withProgram('healthy-sleepers', async (p) => {
      try {
        const { stdout, stderr } = await run('gdb', ['-p', String(p.pid), '-batch', '-nx', '-ex', 'info threads'], { timeout: 60_000 });
        if (/ptrace|not permitted/i.test(stderr) && !/Thread 0x/.test(stdout)) return `cannot ptrace: ${stderr.trim().split('\n')[0]}`;
        return null;
      } catch (error) {
        return `cannot ptrace: ${String(error).split('\n')[0]}`;
      }
    });
  })();
  return skipReason;
}

export async function hasPython(): Promise<boolean> {
  return hasTool('python3');
}
