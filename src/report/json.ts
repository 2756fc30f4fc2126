/**
 * The JSON report (`--format json`): one document, deterministic (threads in thread order, keys in
 * a fixed order), for CI and tools. Threads are referred to by their gdb number (a JSON number);
 * an unmerged headerless backtrace by its key string (`"bt@119"`), a `Thread 2.4` by `"2.4"`.
 * The parsed dump itself is not repeated: `waitgraph parse` prints it.
 */
import type { Analysis, Deadlock, Edge, FrameRef, ThreadAnalysis, ThreadKey, UnresolvedWait } from '../model/analysis.js';
import { escapeJsonInvisibles } from './sanitize.js';

export type JsonThreadRef = number | string;

export interface JsonReport {
  schemaVersion: 1;
  verdict: Analysis['verdict'];
  deadlocks: JsonDeadlock[];
  hung: JsonThreadRef[];
  /** For verdict `hang`: threads that wait, directly or through others, on a hung thread. */
  blockedBehindHang: JsonThreadRef[];
  /** For verdict `hang`: why each hung thread cannot go on. */
  hangReasons: Array<{ thread: JsonThreadRef; text: string }>;
  threads: JsonThread[];
  edges: JsonEdge[];
  unresolved: JsonUnresolved[];
  facts: Analysis['facts'];
  notes: string[];
  stats: Analysis['stats'];
}

export interface JsonDeadlock {
  threads: JsonThreadRef[];
  resources: string[];
  evidence: Deadlock['evidence'];
  title: string;
  signature: string;
  explanation: string;
  fix: string;
  rules: string[];
  blockedBehind: JsonThreadRef[];
  cycle: Array<{ from: JsonThreadRef; to: JsonThreadRef; resource: string | null; evidence: Deadlock['evidence']; text: string }>;
}

export interface JsonThread {
  id: JsonThreadRef;
  lwp: number | null;
  ptid: string | null;
  name: string | null;
  state: string;
  stateText: string;
  waitsFor: string[];
  holds: string[];
  rules: string[];
  acquireSite: JsonSite | null;
  /** Input lines of headerless backtraces read as part of this thread. */
  mergedBacktraceLines: number[];
}

export interface JsonSite {
  function: string;
  file: string | null;
  line: number | null;
  sourceLine: number;
}

export interface JsonEdge {
  kind: Edge['kind'];
  from: string;
  to: string;
  evidence: Edge['evidence'];
  rule: string;
  description: string;
  viaState?: string;
  allOf?: string;
  timed?: boolean;
  site: JsonSite | null;
}

export interface JsonUnresolved {
  thread: JsonThreadRef;
  resource: string;
  description: string;
  rule: string;
  gdbCommand: string | null;
  site: JsonSite | null;
}

/** `"9"` → 9; other keys stay strings. */
export function threadRef(key: ThreadKey): JsonThreadRef {
  return /^\d+$/.test(key) ? Number(key) : key;
}

const site = (s: FrameRef | null): JsonSite | null => (s ? { function: s.function, file: s.file, line: s.line, sourceLine: s.sourceLine } : null);

export function toJsonReport(analysis: Analysis): JsonReport {
  const bt = analysis.dump.backtraces;
  return {
    schemaVersion: 1,
    verdict: analysis.verdict,
    deadlocks: analysis.deadlocks.map((d) => ({
      threads: d.threads.map(threadRef),
      resources: d.resources,
      evidence: d.evidence,
      title: d.title,
      signature: d.signature,
      explanation: d.explanation,
      fix: d.fix,
      rules: d.rules,
      blockedBehind: d.blockedBehind.map(threadRef),
      cycle: d.cycle.map((s) => ({
        from: threadRef(s.from),
        to: threadRef(s.to),
        resource: s.resource,
        evidence: s.wait.evidence === 'proven' && (s.hold === null || s.hold.evidence === 'proven') ? 'proven' : 'inferred',
        text: s.text,
      })),
    })),
    hung: analysis.hung.map(threadRef),
    blockedBehindHang: (analysis.hangBlockedBehind ?? []).map(threadRef),
    hangReasons: (analysis.hangReasons ?? []).map((r) => ({ thread: threadRef(r.thread), text: r.text })),
    threads: analysis.threads.map((t: ThreadAnalysis) => ({
      id: threadRef(t.key),
      lwp: t.lwp,
      ptid: t.ptid,
      name: t.name,
      state: t.state,
      stateText: t.stateText,
      waitsFor: t.waitsFor,
      holds: t.holds,
      rules: t.rules,
      acquireSite: site(t.acquireSite),
      mergedBacktraceLines: t.merged.map((i) => bt[i]?.startLine ?? 0),
    })),
    edges: analysis.edges.map((e) => ({
      kind: e.kind,
      from: e.from,
      to: e.to,
      evidence: e.evidence,
      rule: e.ruleId,
      description: e.description,
      ...(e.viaState !== undefined ? { viaState: e.viaState } : {}),
      ...(e.allOf !== undefined ? { allOf: e.allOf } : {}),
      ...(e.timed ? { timed: true } : {}),
      site: site(e.site),
    })),
    unresolved: analysis.unresolved.map((u: UnresolvedWait) => ({
      thread: threadRef(u.thread),
      resource: u.resource,
      description: u.description,
      rule: u.ruleId,
      gdbCommand: u.gdbCommand,
      site: site(u.site),
    })),
    facts: analysis.facts,
    notes: analysis.notes,
    stats: analysis.stats,
  };
}

export function renderJson(analysis: Analysis): string {
  return `${escapeJsonInvisibles(JSON.stringify(toJsonReport(analysis), null, 2))}\n`;
}
