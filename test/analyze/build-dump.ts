/**
 * Builds Dump objects by hand from compact data, so analysis and graph tests do not depend on the
 * parser: `dumpOf([thread(7, ['syscall', f('std::future<unsigned long>::get()'), …])])`.
 */
import type { Backtrace, Dump, Frame } from '../../src/model/dump.js';

export interface FrameSpec {
  fn: string;
  args?: Record<string, string>;
  file?: string;
  line?: number;
  library?: string;
}

export type FrameInput = string | FrameSpec;

export function f(fn: string, extra: Omit<FrameSpec, 'fn'> = {}): FrameSpec {
  return { fn, ...extra };
}

let nextLine = 1;

function toFrame(input: FrameInput, level: number): Frame {
  const spec = typeof input === 'string' ? { fn: input } : input;
  return {
    level,
    pc: `0x${(0x1000 + level).toString(16)}`,
    function: spec.fn,
    args: Object.entries(spec.args ?? {}).map(([name, value]) => ({ name, value })),
    file: spec.file ?? null,
    line: spec.line ?? null,
    library: spec.library ?? null,
    inlined: false,
    kind: 'normal',
    incomplete: false,
    sourceLine: nextLine++,
  };
}

export function thread(id: number | null, frames: FrameInput[], options: { lwp?: number; truncated?: boolean; levels?: number[] } = {}): Backtrace {
  const startLine = nextLine++;
  const built = frames.map((fr, i) => toFrame(fr, options.levels?.[i] ?? i));
  return {
    thread:
      id === null
        ? null
        : {
            id,
            gdbId: String(id),
            ptid: `0x7f00000${id.toString(16).padStart(3, '0')}`,
            lwp: options.lwp ?? 1000 + id,
            name: 'test',
            targetId: `Thread 0x7f00000 (LWP ${options.lwp ?? 1000 + id})`,
            extra: null,
          },
    startLine,
    endLine: nextLine - 1,
    truncated: options.truncated ?? false,
    stopReason: null,
    frames: built,
    gaps: [],
  };
}

export function dumpOf(backtraces: Backtrace[], ownerHints: Dump['ownerHints'] = []): Dump {
  return {
    schemaVersion: 1,
    backtraces,
    ownerHints,
    ignored: [],
    stats: { lines: nextLine, backtraces: backtraces.length, frames: backtraces.reduce((n, b) => n + b.frames.length, 0), ignoredLines: 0 },
  };
}

/** A thread blocked in pthread_mutex_lock on `addr`, called from `caller`. */
/** A thread (or, with a null id, a backtrace without a thread header) blocked in pthread_mutex_lock on `addr`. */
export function mutexWaiter(id: number | null, addr: string, caller = 'worker'): Backtrace {
  return thread(id, [
    f('__lll_lock_wait', { args: { futex: addr } }),
    f('___pthread_mutex_lock', { args: { mutex: addr } }),
    f(caller),
  ]);
}
