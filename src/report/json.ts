/**
 * The JSON report (`--format json`): one document, deterministic (threads in thread order, keys in
 * a fixed order), for CI and tools. Threads are referred to by their gdb number (a JSON number);
 * an unmerged headerless backtrace by its key string (`"bt@119"`), a `Thread 2.4` by `"2.4"`.
 * The parsed dump itself is not repeated: `waitgraph parse` prints it.
 */
import type { Analysis, CandidateCycle, Deadlock, Edge, FrameRef, ThreadAnalysis, ThreadKey, UnresolvedWait, VerdictReason } from '../model/analysis.js';
import { escapeJsonInvisibles } from '../model/text-hygiene.js';
import { jsonChunks, streamedArray, streamedObject, type StreamedObject } from './json-stream.js';

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
  /** Why the verdict is what it is; the first reason decides it. */
  verdictReasons: Array<{ kind: VerdictReason['kind']; text: string; threads: JsonThreadRef[] }>;
  /** For a hang with no proven cycle: the cycles that may hold, smallest first, with the gdb commands that would settle them. */
  candidateCycles: JsonCandidateCycle[];
  /** Set when the process crashed (verdict `crash`, or a deadlock or hang found besides). */
  crash?: JsonCrash;
  /** Set when the paste is partial: what it lacks and the gdb command that captures it. */
  partial?: NonNullable<Analysis['partial']>;
  threads: JsonThread[];
  edges: JsonEdge[];
  unresolved: JsonUnresolved[];
  facts: Analysis['facts'];
  /** Owner answers in the text that link to no wait (only when there are some). */
  unlinkedOwners?: NonNullable<Analysis['unlinkedOwners']>;
  notes: string[];
  stats: Analysis['stats'];
  /** Set for snapshots of one process: how many, how far apart, and each thread's motion by its key. */
  snapshots?: NonNullable<Analysis['snapshots']>;
}

export interface JsonCandidateCycle {
  threads: JsonThreadRef[];
  steps: Array<{ from: JsonThreadRef; to: JsonThreadRef; resource: string | null; known: boolean }>;
  gdbCommands: string[];
  unprovable: string[];
  text: string;
  /** Set when every thread of the cycle stayed stuck in all of several snapshots: how many. */
  stuckAcross?: number;
}

export interface JsonCrash {
  thread: JsonThreadRef;
  signal: string | null;
  evidence: NonNullable<Analysis['crash']>['evidence'];
  site: JsonSite | null;
  crashFrame: JsonSite | null;
  sourceLine: number | null;
  text: string;
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
  /** `candidates`: the only cycle the possible holders of its unproven waits leave. */
  basis?: 'candidates';
  /** For basis `candidates`: what ruled the other possible cycles out. */
  ruledOut?: string;
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
  /** The code at file:line, read with `--source` (absent without it). */
  code?: string;
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
  basis?: NonNullable<Edge['basis']>;
  site: JsonSite | null;
}

export interface JsonUnresolved {
  thread: JsonThreadRef;
  resource: string;
  description: string;
  rule: string;
  gdbCommand: string | null;
  /** Where to look for the holder when no gdb command can name it. */
  holderHint?: string;
  site: JsonSite | null;
}

/** `"9"` → 9; other keys stay strings. */
export function threadRef(key: ThreadKey): JsonThreadRef {
  return /^\d+$/.test(key) ? Number(key) : key;
}

const site = (s: FrameRef | null): JsonSite | null => (s ? { function: s.function, file: s.file, line: s.line, sourceLine: s.sourceLine, ...(s.code !== undefined ? { code: s.code } : {}) } : null);

function jsonDeadlock(d: Deadlock): JsonDeadlock {
  return {
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
    ...(d.basis !== undefined ? { basis: d.basis } : {}),
    ...(d.ruledOut !== undefined ? { ruledOut: d.ruledOut } : {}),
  };
}

function jsonCandidateCycle(c: CandidateCycle): JsonCandidateCycle {
  return {
    threads: c.threads.map(threadRef),
    steps: c.steps.map((s) => ({ from: threadRef(s.from), to: threadRef(s.to), resource: s.resource, known: s.known })),
    gdbCommands: c.gdbCommands,
    unprovable: c.unprovable,
    text: c.text,
    ...(c.stuckAcross !== undefined ? { stuckAcross: c.stuckAcross } : {}),
  };
}

function jsonCrash(c: NonNullable<Analysis['crash']>): JsonCrash {
  return { thread: threadRef(c.thread), signal: c.signal, evidence: c.evidence, site: site(c.site), crashFrame: site(c.crashFrame), sourceLine: c.sourceLine, text: c.text };
}

function jsonThread(t: ThreadAnalysis, bt: Analysis['dump']['backtraces']): JsonThread {
  return {
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
  };
}

function jsonEdge(e: Edge): JsonEdge {
  return {
    kind: e.kind,
    from: e.from,
    to: e.to,
    evidence: e.evidence,
    rule: e.ruleId,
    description: e.description,
    ...(e.viaState !== undefined ? { viaState: e.viaState } : {}),
    ...(e.allOf !== undefined ? { allOf: e.allOf } : {}),
    ...(e.timed ? { timed: true } : {}),
    ...(e.basis !== undefined ? { basis: e.basis } : {}),
    site: site(e.site),
  };
}

function jsonUnresolved(u: UnresolvedWait): JsonUnresolved {
  return {
    thread: threadRef(u.thread),
    resource: u.resource,
    description: u.description,
    rule: u.ruleId,
    gdbCommand: u.gdbCommand,
    ...(u.holderHint !== undefined ? { holderHint: u.holderHint } : {}),
    site: site(u.site),
  };
}

/**
 * The report's fields in output order. `list` turns each array of the analysis into its JSON
 * form: mapped at once for the tree (toJsonReport), or marked to be mapped element by element as
 * it is written (renderJsonChunks).
 */
function reportFields<L>(analysis: Analysis, list: <T>(items: readonly T[], map: (item: T) => unknown) => L) {
  const bt = analysis.dump.backtraces;
  const same = <T>(x: T): T => x;
  return {
    schemaVersion: 1 as const,
    verdict: analysis.verdict,
    deadlocks: list(analysis.deadlocks, jsonDeadlock),
    hung: list(analysis.hung, threadRef),
    blockedBehindHang: list(analysis.hangBlockedBehind ?? [], threadRef),
    hangReasons: list(analysis.hangReasons ?? [], (r) => ({ thread: threadRef(r.thread), text: r.text })),
    verdictReasons: list(analysis.verdictReasons ?? [], (r) => ({ kind: r.kind, text: r.text, threads: r.threads.map(threadRef) })),
    candidateCycles: list(analysis.candidateCycles ?? [], jsonCandidateCycle),
    ...(analysis.crash !== undefined ? { crash: jsonCrash(analysis.crash) } : {}),
    ...(analysis.partial !== undefined ? { partial: { kind: analysis.partial.kind, text: analysis.partial.text, command: analysis.partial.command } } : {}),
    threads: list(analysis.threads, (t) => jsonThread(t, bt)),
    edges: list(analysis.edges, jsonEdge),
    unresolved: list(analysis.unresolved, jsonUnresolved),
    facts: list(analysis.facts, same),
    ...(analysis.unlinkedOwners !== undefined ? { unlinkedOwners: list(analysis.unlinkedOwners, same) } : {}),
    notes: list(analysis.notes, same),
    stats: analysis.stats,
    ...(analysis.snapshots !== undefined ? { snapshots: analysis.snapshots } : {}),
  };
}

/** The report as one tree of plain objects (library callers; the CLI streams the text instead). */
export function toJsonReport(analysis: Analysis): JsonReport {
  return reportFields(analysis, (items, map) => items.map(map)) as JsonReport;
}

/** The report as a streamed value for jsonChunks. */
function streamedReport(analysis: Analysis): StreamedObject {
  return streamedObject(reportFields(analysis, streamedArray));
}

/**
 * The report's text in chunks of ~64K characters: the thread and edge lists are turned into
 * JSON one element at a time, so neither the report's tree nor its whole text is ever held
 * (a 100,000-thread dump gives ~55 MB of JSON). Joined, the chunks are renderJson's text.
 */
export function* renderJsonChunks(analysis: Analysis): Generator<string> {
  yield* jsonChunks(streamedReport(analysis), escapeJsonInvisibles);
  yield '\n';
}

/** Several dumps' reports as one JSON document: `[{ "file": …, "report": … }, …]`, in chunks. */
export function* renderJsonListChunks(results: ReadonlyArray<{ file: string; analysis: Analysis }>): Generator<string> {
  yield* jsonChunks(
    streamedArray(results, (r) => streamedObject({ file: r.file, report: streamedReport(r.analysis) })),
    escapeJsonInvisibles,
  );
  yield '\n';
}

/**
 * The whole report as one string: `JSON.stringify(toJsonReport(analysis), null, 2)` with the
 * invisible characters escaped (escapeJsonInvisibles), and a final line feed.
 */
export function renderJson(analysis: Analysis): string {
  return [...renderJsonChunks(analysis)].join('');
}
