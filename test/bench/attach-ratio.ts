/**
 * Bench figure for live mode: on a process with 100 threads, the wall time of
 * `waitgraph attach PID` (node start, one gdb over MI, backtraces, owner queries, analysis, report)
 * over the wall time of gdb's own `gdb -p PID -batch -ex 'thread apply all bt'`. Target ≤ 1.3.
 * Runs alternate between the two (so drift hits both alike) and the medians are compared.
 * `npm run bench` wires this in; it also runs alone: `node dist/test/bench/attach-ratio.js`.
 */
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { promisify } from 'node:util';
import { BIN, ROOT } from '../helpers/paths.js';
import { analyze, createAnalysisSink } from '../../src/analyze/index.js';
import { investigate, type LiveAnalyzer } from '../../src/live/investigate.js';
import type { OwnerFact } from '../../src/model/analysis.js';
import type { Dump } from '../../src/model/dump.js';
import { parseDump } from '../../src/parse/index.js';
import { loadRules } from '../../src/rules/load.js';
import { gdbCaptureArgs, liveSkipReason, withProgram } from '../live/harness.js';

const run = promisify(execFile);

export interface AttachRatio {
  /** median(attach) / median(gdb batch), wall time; NaN when skipped. */
  ratio: number;
  /**
   * The same over CPU time (user + system of the finished children, from /proc/self/stat), which
   * a loaded machine distorts less than wall time.
   */
  cpuRatio: number;
  /**
   * median(investigate() called in this process, rules already loaded) / median(gdb batch): the
   * gdb driving alone, without node's start-up, module loading and rule loading.
   */
  inProcessRatio: number;
  attachMs: number;
  gdbMs: number;
  /**
   * median(`node -e 0`), measured in the same loop: the part of attachMs that is node starting
   * before any waitgraph code runs (and so before gdb can be spawned).
   */
  nodeStartMs: number;
  /**
   * Context when the environment sets NODE_EXTRA_CA_CERTS (node reads that file at every start,
   * before any script): median(attach without it) / median(gdb batch); NaN when it is not set.
   */
  ratioWithoutCaCerts: number;
  /**
   * Context: median(attach with WAITGRAPH_GDB_INDEX_CACHE=off) / median(gdb batch). waitgraph runs
   * gdb with gdb's index cache on (src/live/gdb-session.ts gdbIndexCacheFrom); a user's plain gdb
   * has it off, which is what the baseline runs.
   */
  ratioWithoutIndexCache: number;
  threads: number;
  runs: number;
  target: number;
  /** Why it could not be measured (gdb missing, no ptrace), else null. */
  skipped: string | null;
}

function median(values: number[]): number {
  const s = [...values].sort((a, b) => a - b);
  const mid = Math.floor(s.length / 2);
  return s.length % 2 ? (s[mid] as number) : ((s[mid - 1] as number) + (s[mid] as number)) / 2;
}

async function timed(fn: () => Promise<unknown>): Promise<number> {
  const start = process.hrtime.bigint();
  await fn();
  return Number(process.hrtime.bigint() - start) / 1e6;
}

/** CPU ticks (cutime + cstime) of this process's waited-for children, grandchildren included. */
function childTicks(): number {
  try {
    const stat = readFileSync('/proc/self/stat', 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return Number(fields[13]) + Number(fields[14]);
  } catch {
    return Number.NaN;
  }
}

async function cpuTicks(fn: () => Promise<unknown>): Promise<number> {
  const before = childTicks();
  await fn();
  return childTicks() - before;
}

export async function measureAttachRatio(options: { threads?: number; runs?: number } = {}): Promise<AttachRatio> {
  const threads = options.threads ?? 100;
  const runs = options.runs ?? 5;
  const target = 1.3;
  const skipped = await liveSkipReason();
  if (skipped) return { ratio: Number.NaN, cpuRatio: Number.NaN, inProcessRatio: Number.NaN, attachMs: Number.NaN, gdbMs: Number.NaN, nodeStartMs: Number.NaN, ratioWithoutCaCerts: Number.NaN, ratioWithoutIndexCache: Number.NaN, threads, runs: 0, target, skipped };
  return withProgram(
    'healthy-sleepers',
    async (p) => {
      const gdb: number[] = [];
      const attach: number[] = [];
      const inProcess: number[] = [];
      const nodeStart: number[] = [];
      const attachWithoutCa: number[] = [];
      const attachWithoutIndexCache: number[] = [];
      const rules = loadRules();
      // As the attach command does: the backtraces parsed and analysed while gdb prints them.
      const prepare = (): LiveAnalyzer => ({
        parse: parseDump,
        analyze: (dump: Dump, facts: OwnerFact[]) => analyze(dump, { rules, facts }),
        stream: () => createAnalysisSink({ rules }),
      });
      let gdbTicks = 0;
      let attachTicks = 0;
      const env = { ...process.env, NO_COLOR: '1' };
      const caCerts = process.env.NODE_EXTRA_CA_CERTS;
      const envWithoutCa: NodeJS.ProcessEnv = { ...env };
      delete envWithoutCa.NODE_EXTRA_CA_CERTS;
      // One warm-up of each: the first gdb run pays for reading debug info from disk.
      await run('gdb', gdbCaptureArgs(p.pid), { timeout: 120_000, maxBuffer: 64 << 20 });
      await run(process.execPath, [BIN, 'attach', String(p.pid), '--format', 'json'], { env, timeout: 120_000, maxBuffer: 64 << 20 }).catch(() => undefined);
      for (let i = 0; i < runs; i++) {
        const runGdb = () => run('gdb', gdbCaptureArgs(p.pid), { timeout: 120_000, maxBuffer: 64 << 20 });
        // Exit code 0 (a healthy program); anything else is a failure of the measurement.
        const runAttach = () => run(process.execPath, [BIN, 'attach', String(p.pid), '--format', 'json'], { env, timeout: 120_000, maxBuffer: 64 << 20 });
        gdbTicks += await cpuTicks(async () => gdb.push(await timed(runGdb)));
        attachTicks += await cpuTicks(async () => attach.push(await timed(runAttach)));
        inProcess.push(await timed(() => investigate({ kind: 'pid', pid: p.pid }, { gdbPath: 'gdb', cwd: ROOT, prepare })));
        nodeStart.push(await timed(() => run(process.execPath, ['-e', '0'], { env })));
        attachWithoutIndexCache.push(
          await timed(() => run(process.execPath, [BIN, 'attach', String(p.pid), '--format', 'json'], { env: { ...env, WAITGRAPH_GDB_INDEX_CACHE: 'off' }, timeout: 120_000, maxBuffer: 64 << 20 })),
        );
        if (caCerts !== undefined && caCerts !== '') {
          attachWithoutCa.push(await timed(() => run(process.execPath, [BIN, 'attach', String(p.pid), '--format', 'json'], { env: envWithoutCa, timeout: 120_000, maxBuffer: 64 << 20 })));
        }
      }
      const gdbMs = median(gdb);
      const attachMs = median(attach);
      return { ratio: attachMs / gdbMs, cpuRatio: attachTicks / gdbTicks, inProcessRatio: median(inProcess) / gdbMs, attachMs, gdbMs, nodeStartMs: median(nodeStart), ratioWithoutCaCerts: attachWithoutCa.length > 0 ? median(attachWithoutCa) / gdbMs : Number.NaN, ratioWithoutIndexCache: median(attachWithoutIndexCache) / gdbMs, threads, runs, target, skipped: null };
    },
    { args: [String(threads)] },
  );
}

// Run directly (not when the test runner loads every file under dist/test, which sets NODE_TEST_CONTEXT).
if (process.argv[1] !== undefined && import.meta.url === `file://${process.argv[1]}` && process.env.NODE_TEST_CONTEXT === undefined) {
  const r = await measureAttachRatio();
  if (r.skipped) console.log(`attach ratio: skipped (${r.skipped})`);
  else console.log(`attach / gdb thread apply all bt (${r.threads} threads, median of ${r.runs}): ${r.attachMs.toFixed(0)} ms / ${r.gdbMs.toFixed(0)} ms = ${r.ratio.toFixed(2)} (target ≤ ${r.target}); CPU time ratio ${r.cpuRatio.toFixed(2)}; in-process (no node start-up, rules loaded) ${r.inProcessRatio.toFixed(2)}; node -e 0 alone ${r.nodeStartMs.toFixed(0)} ms`);
}
