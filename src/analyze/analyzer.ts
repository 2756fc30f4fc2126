/**
 * The analysis pipeline. Streaming by design: `addBacktrace` runs the rules on one backtrace and
 * keeps only a small summary; `finish` does the cross-thread work (merging headerless
 * backtraces, process-wide conditions, all-of waits, owner facts, the graph, verdicts).
 */
import type { Analysis, Deadlock, Edge, OwnerFact, ThreadAnalysis, UnlinkedOwner, UnresolvedWait } from '../model/analysis.js';
import type { Backtrace, Dump } from '../model/dump.js';
import { compareThreadKeys, resourceNode, threadNode } from '../model/ids.js';
import { DumpParser, parseDumpStream } from '../parse/index.js';
import { loadBuiltinRules } from '../rules/builtin.js';
import { createMatcher, type Matcher } from '../rules/match.js';
import { TemplateExpander } from '../rules/template.js';
import type { ParsedArgValue } from '../rules/arg-values.js';
import type { LoadedRules, ThreadRule } from '../rules/types.js';
import type { OwnerShape } from '../model/owner-shapes.js';
import { ownerCommandFor } from '../live/owner-queries.js';
import { buildDeadlocks, unresolvedWaits, type WaitInfo } from './deadlocks.js';
import { Summarizer, type BacktraceSummary, type StackMemo } from './summary.js';
import { groupThreads, ruleOrderOf, settleRules, stateRuleOf, waitSiteName, type FiredRule, type RuleOrder, type ThreadWork } from './threads.js';
import { resolveThreadExits } from './thread-identity.js';
import { applyFacts, linkOwnerHints } from './owner-links.js';
import { decideVerdict, type AbsentOwner, type ProcessShape } from './verdict.js';
import { CrashCollector, findCrash, markCrashedThread } from './crash.js';
import { findPartial } from './partial.js';
import { collectGuards, guardHolds, type FoundGuard } from './locals-holds.js';
import { findReentry, reentryHolds, type Reentry } from './reentry.js';
import type { SourceReader } from '../source/index.js';
import { sourceHolds } from './source-holds.js';

export interface AnalyzeOptions {
  /** Compiled rules (`loadRules()`); the built-ins when absent (`loadBuiltinRules()`). */
  rules?: LoadedRules;
  /** Owner facts from gdb (live mode) or elsewhere; `Dump.ownerHints` are added automatically. */
  facts?: OwnerFact[];
  /**
   * What the caller knows of the process beyond the text (live mode): its pid, that the dump lists
   * every thread, and what /proc says of owners that are not threads of the dump.
   */
  process?: { pid: number; whole: boolean; ownerStatus?: ReadonlyMap<number, AbsentOwner['status']> };
  /**
   * `--source DIR` (openSourceReader in analyze/index.ts): the code the frames point at, read for
   * the locks each function still holds at its line. The dump's frames must be kept (keepFrames).
   */
  source?: SourceReader;
  /**
   * Called where a stage's work has just become garbage: after the threads' records are made
   * (their rules' alternatives are dead), between the cross-thread stage and the verdict (the
   * summaries are), and after the verdict (its per-thread needs and progress are). The CLI
   * collects there on big inputs (cli/heap-growth.ts), so the next stage's work, or the report,
   * does not pile on top of it.
   */
  atStageEnd?: () => void;
}

export interface StreamOptions extends AnalyzeOptions {
  /** Keep every frame in `Analysis.dump` (default true; reports that print stacks need them). */
  keepFrames?: boolean;
}

/** Text pushed in as it arrives, the dump and its analysis at the end. */
export interface AnalysisSink {
  push(chunk: string): void;
  end(): { dump: Dump; analysis: Analysis };
}

/** One dump's analysis under way: backtraces in, the Analysis at the end. */
export interface DumpAnalysis {
  /** Runs the rules on one backtrace (index = its position in `Dump.backtraces`). */
  addBacktrace(bt: Backtrace, index: number): void;
  /** Cross-thread work after the last backtrace; `dump` is the parser's result (frames may have been dropped). */
  finish(dump: Dump): Analysis;
}

/**
 * An analysis session: the rule set compiled for matching, and every pool and memo the analysis
 * fills (interned names, stack fingerprints, summary shapes, kept strings, cut templates). Dumps
 * analysed in one session share them, so `check` over many dumps pays for each distinct stack
 * once; what a dump's report says never depends on what the session saw before (the pools give
 * back only what they would compute). Nothing is kept in any module: two sessions share nothing.
 */
export interface Analyzer extends DumpAnalysis {
  readonly rules: LoadedRules;
  /** A dump's analysis, backtrace by backtrace; several may be under way at once. */
  begin(): DumpAnalysis;
  /** analyze(dump): every backtrace of a parsed dump. */
  analyze(dump: Dump): Analysis;
  /** Parses and analyses gdb text in one pass. Never throws on odd input. */
  analyzeText(text: string): Analysis;
  /** Like analyzeText for a stream of chunks (stdin, a file read in pieces). */
  analyzeStream(chunks: AsyncIterable<string | Buffer>): Promise<Analysis>;
  /** Parses and analyses text pushed in pieces (e.g. while gdb prints it). */
  sink(): AnalysisSink;
}

/** Every file a frame names, once. */
function framePaths(dump: Dump): string[] {
  const paths = new Set<string>();
  for (const bt of dump.backtraces) for (const frame of bt.frames) if (frame.file !== null) paths.add(frame.file);
  return [...paths];
}

/** What a dump's analysis reads from its session. */
interface Session {
  rules: LoadedRules;
  matcher: Matcher<StackMemo>;
  summarizer: Summarizer;
  templates: TemplateExpander;
  order: RuleOrder;
}

/**
 * A new analysis session. `addBacktrace` and `finish` analyse one dump at a time (after `finish`
 * the next `addBacktrace` starts another); `begin` gives independent ones.
 */
export function createAnalyzer(options: StreamOptions = {}): Analyzer {
  const rules = options.rules ?? loadBuiltinRules();
  const matcher = createMatcher<StackMemo>(rules);
  const session: Session = { rules, matcher, summarizer: new Summarizer(matcher), templates: new TemplateExpander(), order: ruleOrderOf(rules) };
  const keepFrames = options.keepFrames ?? true;
  let current: DumpAnalysis | null = null;
  const begin = (): DumpAnalysis => beginDump(session, options);
  const sink = (): AnalysisSink => {
    const run = begin();
    const parser = new DumpParser({ onBacktrace: (bt, i) => run.addBacktrace(bt, i), keepFrames });
    return {
      push: (chunk) => parser.push(chunk),
      end: () => {
        const dump = parser.end();
        return { dump, analysis: run.finish(dump) };
      },
    };
  };
  return {
    rules,
    begin,
    addBacktrace(bt, index) {
      (current ??= begin()).addBacktrace(bt, index);
    },
    finish(dump) {
      const run = current ?? begin();
      current = null;
      return run.finish(dump);
    },
    analyze(dump) {
      const run = begin();
      dump.backtraces.forEach((bt, i) => run.addBacktrace(bt, i));
      return run.finish(dump);
    },
    analyzeText(text) {
      const s = sink();
      s.push(text);
      return s.end().analysis;
    },
    async analyzeStream(chunks) {
      const run = begin();
      const dump = await parseDumpStream(chunks, { onBacktrace: (bt, i) => run.addBacktrace(bt, i), keepFrames });
      // --source: the grammars the frames' files need (loading since openSource) must be ready.
      if (options.source !== undefined) await options.source.prepare(framePaths(dump));
      return run.finish(dump);
    },
    sink,
  };
}

function beginDump(session: Session, options: AnalyzeOptions): DumpAnalysis {
  const { rules, matcher, summarizer } = session;
  const summaries: BacktraceSummary[] = [];
  const processFlags: boolean[] = rules.processConditions.map(() => false);
  const crashes = new CrashCollector();
  // Guards found in `bt full` locals (locals-holds.ts): few or none, kept until the hold edges are made.
  const guards: FoundGuard[] = [];
  // Blocked stacks that wait at an acquire site standing further out too (reentry.ts).
  const reentries: Reentry[] = [];
  return {
    addBacktrace(bt, index) {
      // Stacks with the fingerprint of an earlier one reuse its rule search (rules/match.ts).
      const stack = matcher.prepare(bt);
      matcher.markProcessConditions(stack, processFlags);
      summaries.push(summarizer.summarize(bt, index, stack));
      crashes.add(bt, index, stack.blocked);
      for (const g of collectGuards(rules, bt, index, stack)) guards.push(g);
      const reentry = findReentry(rules, bt, index, stack);
      if (reentry !== null) reentries.push(reentry);
    },
    finish(dump) {
      // The summaries are handed over, not kept here too: the analyzer's run object outlives this.
      return finishAnalysis(session, () => summaries.splice(0, summaries.length), processFlags, dump, options.facts ?? [], crashes, options.process, { guards, reentries }, options.source, options.atStageEnd);
    },
  };
}

/** Analyses a parsed dump in a session of its own. */
export function analyze(dump: Dump, options: AnalyzeOptions = {}): Analysis {
  return createAnalyzer(options).analyze(dump);
}

/**
 * The cross-thread stage, then the verdict. The per-thread work (summaries, settled rules, their
 * alternatives) lives only through threadStage: the verdict stage holds the threads' records,
 * edges and waits, so a dump of 100,000 threads does not keep both at its peak (issue 15).
 * `takeSummaries` hands the summaries over once (the caller forgets them).
 */
function finishAnalysis(
  session: Session,
  takeSummaries: () => BacktraceSummary[],
  processFlags: boolean[],
  dump: Dump,
  givenFacts: OwnerFact[],
  crashes: CrashCollector,
  known: AnalyzeOptions['process'],
  stackHolds: { guards: readonly FoundGuard[]; reentries: readonly Reentry[] } = { guards: [], reentries: [] },
  source: SourceReader | undefined = undefined,
  atStageEnd: (() => void) | undefined = undefined,
): Analysis {
  // threadStage takes the summaries itself: a list passed in from here would stay on this frame,
  // alive through the verdict stage (a heap snapshot showed all 176,000 of a big dump there).
  const stage = threadStage(session, takeSummaries, processFlags, dump, givenFacts, crashes, known, stackHolds, source, atStageEnd);
  atStageEnd?.();
  const analysis = verdictStage(session, stage, dump);
  atStageEnd?.();
  return analysis;
}

/** What threadStage leaves for the verdict: nothing of the per-thread work. */
interface ThreadStage {
  notes: string[];
  threads: ThreadAnalysis[];
  edges: Edge[];
  waits: WaitInfo[];
  deadlocks: Deadlock[];
  absent: AbsentOwner[];
  process: ProcessShape;
  crash: ReturnType<typeof findCrash>;
  rowsOnly: Set<string>;
  unnamed: Set<string>;
  partial: ReturnType<typeof findPartial>;
  facts: OwnerFact[];
  unlinked: UnlinkedOwner[];
  /** The acquire-site names of the threads, by key (cycle signatures read them). */
  acquireNames: Map<string, string>;
  allOfLabels: Map<string, string>;
}

function threadStage(
  session: Session,
  takeSummaries: () => BacktraceSummary[],
  processFlags: boolean[],
  dump: Dump,
  givenFacts: OwnerFact[],
  crashes: CrashCollector,
  known: AnalyzeOptions['process'],
  stackHolds: { guards: readonly FoundGuard[]; reentries: readonly Reentry[] },
  source: SourceReader | undefined,
  atStageEnd: (() => void) | undefined,
): ThreadStage {
  const { rules, templates } = session;
  const { threads: groups, notes } = groupThreads(takeSummaries());

  // Rule effects → edges. Resources, their node names and descriptions are one string each, not
  // one per waiter: 86,000 waiters of one mutex kept ~86,000 copies of each (300 MB dumps).
  const shared = stringPool();
  const resNode = (resource: string): string => shared(resourceNode(resource));
  const ruleLists = listPool();
  const edges: Edge[] = [];
  const waits: WaitInfo[] = [];
  const allOf: Array<{ work: ThreadWork; state: string; resource: string; description: string; evidence: Edge['evidence']; ruleId: string; site: Edge['site'] }> = [];
  // Each thread's fired rules become its edges as soon as they are settled and are not kept: on a
  // dump of 100,000 threads their alternatives die young instead of living through this stage.
  const works: ThreadWork[] = new Array<ThreadWork>(groups.length);
  for (let i = 0; i < groups.length; i++) {
    const { work, fired } = threadWork(session, groups[i] as ThreadGroup, processFlags, ruleLists);
    works[i] = work;
    for (const { rule, alt } of fired) {
      const effect = rule.effect;
      const site = alt.site;
      for (const w of effect.waits ?? []) {
        const resource = shared(expandResource(templates, w.resource, alt.captures, work.key));
        const description = shared(templates.expand(w.description, alt.captures).text);
        if ('allThreadsInState' in w) {
          allOf.push({ work, state: w.allThreadsInState, resource, description, evidence: effect.evidence, ruleId: rule.id, site });
          continue;
        }
        const edge: Edge = {
          kind: 'waits',
          from: threadNode(work.key),
          to: resNode(resource),
          evidence: effect.evidence,
          ruleId: rule.id,
          site,
          description,
        };
        if (effect.timed) edge.timed = true;
        if (w.owner) edge.ownerShape = w.owner;
        edges.push(edge);
        waits.push(waitInfo(templates, edge, w, resource, alt.captures));
      }
      for (const h of effect.holds ?? []) {
        const resource = shared(expandResource(templates, h.resource, alt.captures, work.key));
        edges.push({
          kind: 'holds',
          from: resNode(resource),
          to: threadNode(work.key),
          evidence: effect.evidence,
          ruleId: rule.id,
          site,
          description: h.description ? shared(templates.expand(h.description, alt.captures).text) : '',
        });
      }
    }
  }
  // The groups are in the works now (a list of 100,000 would stay to the end of the stage).
  groups.length = 0;
  atStageEnd?.();
  const byKey = mapBy(works, (w) => w.key);
  // All-of waits: one edge to every other thread in the named state.
  // Only the states some all-of wait names are gathered and sorted (most dumps name none).
  const wantedStates = new Set(allOf.map((a) => a.state));
  const byState = new Map<string, ThreadWork[]>();
  if (wantedStates.size > 0) {
    for (const w of works) {
      if (!wantedStates.has(w.analysis.state)) continue;
      const list = byState.get(w.analysis.state);
      if (list) list.push(w);
      else byState.set(w.analysis.state, [w]);
    }
    for (const list of byState.values()) list.sort((a, b) => compareThreadKeys(a.key, b.key));
  }
  const allOfLabels = new Map<string, string>();
  for (const a of allOf) {
    const rule = rules.byId.get(a.ruleId);
    const label = rule?.kind === 'thread' ? rule.effect.waits?.find((w) => 'allThreadsInState' in w)?.label : undefined;
    if (label) allOfLabels.set(a.resource, label);
    for (const target of byState.get(a.state) ?? []) {
      if (target === a.work) continue;
      const stateEvidence = target.stateRule?.effect.evidence ?? 'inferred';
      edges.push({
        kind: 'waits-thread',
        from: threadNode(a.work.key),
        to: threadNode(target.key),
        evidence: a.evidence === 'proven' && stateEvidence === 'proven' ? 'proven' : 'inferred',
        ruleId: a.ruleId,
        site: a.site,
        description: a.description,
        viaState: a.state,
        allOf: a.resource,
        ...(target.stateRule ? { stateRuleId: target.stateRule.id } : {}),
      });
    }
  }

  // pthread_join's threadid names the joined thread's header (live helper's addition).
  resolveThreadExits(works.map((w) => w.analysis), edges);

  // Owner facts (gdb answers, `print` answers in the text linked to their waits) → proven hold edges.
  const links = linkOwnerHints(dump.ownerHints, waits, works);
  for (const note of links.notes) notes.push(note);
  // Guards in `bt full` locals → hold edges (basis locals), named like the waits on the same address.
  // A thread waiting at an acquire site that stands further out in its own stack → an inferred
  // hold of that lock (basis stack), unless another thread is known to hold it.
  const { guards, reentries } = stackHolds;
  if (guards.length > 0 || reentries.length > 0) {
    const threadOfBacktrace = new Map<number, string>();
    for (const w of works) {
      threadOfBacktrace.set(w.primary.index, w.key);
      for (const m of w.merged) threadOfBacktrace.set(m.index, w.key);
    }
    const threadOf = (i: number): string | undefined => threadOfBacktrace.get(i);
    for (const e of guardHolds(guards, threadOf, edges)) edges.push(e);
    for (const e of reentryHolds(reentries, threadOf, waits, edges, works.map((w) => w.analysis))) edges.push(e);
  }
  const facts = [...givenFacts, ...links.facts];
  const absent: AbsentOwner[] = applyFacts(facts, works, edges);

  // --source: the locks each frame's function still holds at its line (after the proven facts, which win).
  if (source !== undefined) {
    const read = sourceHolds({ reader: source, dump, works, edges });
    for (const e of read.holds) edges.push(e);
    for (const note of read.notes) notes.push(note);
    for (const w of works) {
      const site = w.analysis.acquireSite;
      const code = site === null ? undefined : read.code.get(`${site.backtrace}:${site.level}`);
      if (site !== null && code !== undefined) w.analysis.acquireSite = { ...site, code };
    }
  }

  // Per-thread lists.
  for (const e of edges) {
    if (e.kind === 'holds') {
      const w = byKey.get(e.to.slice('thread:'.length));
      const res = e.from.slice('res:'.length);
      if (w) addItem(w.analysis, 'holds', res);
    } else {
      const w = byKey.get(e.from.slice('thread:'.length));
      const target = e.kind === 'waits' ? e.to.slice('res:'.length) : e.to;
      if (w) addItem(w.analysis, 'waitsFor', target);
    }
  }
  // Room for their items only (a list pushed from empty keeps room for 17): they live as long as
  // the analysis, one pair a thread.
  for (const w of works) {
    const a = w.analysis;
    if (a.holds.length > 0) a.holds = a.holds.slice();
    if (a.waitsFor.length > 0) a.waitsFor = a.waitsFor.slice();
  }

  const threads = works.map((w) => w.analysis).sort((a, b) => compareThreadKeys(a.key, b.key));
  // Cycle signatures read the acquire-site names of the threads on a cycle: the names alone are
  // kept past this stage, not the summaries they come from.
  const acquireNames = new Map<string, string>();
  for (const w of works) {
    const name = w.primary.acquireName;
    if (name !== null) acquireNames.set(w.key, name);
  }
  const deadlocks = buildDeadlocks({ rules, edges, waits, threads, acquireNames, allOfLabels });
  // A crashed process is dead (crash.ts): its crashed thread counts as one that can go on, so the
  // waits the crash froze are no hang, and the verdict is crash unless a deadlock or hang stands.
  const crash = findCrash({ dump, collected: crashes, threads });
  if (crash !== null) markCrashedThread(threads, crash);
  // Threads known only from an `info threads` row: their one frame names no holder (partial.ts).
  const rowsOnly = new Set<string>();
  for (const w of works) if (w.primary.infoThreadsRow && w.merged.length === 0) rowsOnly.add(w.key);
  const unnamed = new Set<string>();
  for (const w of works) {
    if (!waitsOnlyInUnnamedFrames(w)) continue;
    unnamed.add(w.key);
    w.analysis.stateText = `is in libc code gdb could not name (no debug info), called from ${w.primary.acquireSite?.function ?? 'the program'}: a wait, or an unlock`;
  }
  const partial = findPartial(dump, threads);
  const process = processShape(threads, known);
  if (known?.ownerStatus) for (const a of absent) if (a.holder.lwp !== undefined && known.ownerStatus.has(a.holder.lwp)) a.status = known.ownerStatus.get(a.holder.lwp);
  return { notes, threads, edges, waits, deadlocks, absent, process, crash, rowsOnly, unnamed, partial, facts, unlinked: links.unlinked, acquireNames, allOfLabels };
}

function verdictStage(session: Session, stage: ThreadStage, dump: Dump): Analysis {
  const { rules } = session;
  const { notes, threads, edges, waits, deadlocks, absent, process, crash, rowsOnly, unnamed, partial, facts, acquireNames, allOfLabels } = stage;
  const decision = decideVerdict({
    threads,
    edges,
    waits,
    deadlocks,
    absent,
    shape: process,
    crashed: crash?.thread ?? null,
    rowsOnly,
    unnamed,
    deadlocksWith: (extra) => buildDeadlocks({ rules, edges: [...edges, ...extra], waits, threads, acquireNames, allOfLabels }),
  });
  const unresolved: UnresolvedWait[] = unresolvedWaits(edges, waits, threads, new Set(absent.map((a) => `res:${a.resource}`)));
  if (decision.extraEdges.length > 0) {
    const byKey = mapBy(threads, (t) => t.key);
    for (const e of decision.extraEdges) {
      edges.push(e);
      const t = byKey.get(e.to.slice('thread:'.length));
      const res = e.from.slice('res:'.length);
      if (t) addItem(t, 'holds', res);
    }
  }
  const verdict = decision.verdict;
  for (const note of dump.capped ?? []) notes.push(note);
  for (const note of decision.notes) notes.push(note);
  return {
    schemaVersion: 1,
    verdict,
    deadlocks: decision.deadlocks,
    hung: decision.hung,
    threads,
    edges,
    unresolved,
    facts,
    ...(stage.unlinked.length > 0 ? { unlinkedOwners: stage.unlinked } : {}),
    notes: collapseRepeatedNotes(notes),
    ...(verdict === 'hang' ? { hangBlockedBehind: decision.hangBlockedBehind, hangReasons: decision.hangReasons } : {}),
    ...(crash !== null ? { crash } : {}),
    verdictReasons: decision.reasons,
    candidateCycles: decision.candidateCycles,
    ...(partial !== null ? { partial } : {}),
    stats: {
      lines: dump.stats.lines,
      backtraces: dump.stats.backtraces,
      threads: threads.length,
      frames: dump.stats.frames,
      ignoredLines: dump.stats.ignoredLines,
    },
    dump,
  };
}

type ThreadGroup = ReturnType<typeof groupThreads>['threads'][number];

/**
 * A thread no rule explains whose wait primitives are all `?? ()` frames (libc without debug info)
 * right above the program's code, e.g. `#0 ?? () from libc.so.6`, `#1 ?? () from libc.so.6`,
 * `#2 main () at abba.c:42`: a pthread_join, or a pthread_mutex_unlock waking a waiter, which the
 * text cannot tell apart.
 */
function waitsOnlyInUnnamedFrames(w: ThreadWork): boolean {
  if (w.stateRule !== null || w.analysis.blocked !== true || w.merged.length > 0) return false;
  const site = w.primary.acquireSite;
  const top = w.primary.top;
  if (site === null || site.backtrace !== w.primary.index || top.length === 0 || (top[top.length - 1] as { level: number }).level < site.level) return false;
  for (const frame of top) if (frame.level < site.level && frame.name !== '??') return false;
  return true;
}

/**
 * One thread's settled rules, state and analysis record (runs once per thread: plain loops, no
 * closures or spreads, and the one-backtrace case — nearly every thread — without a summary list).
 */
function threadWork(session: Session, g: ThreadGroup, processFlags: boolean[], ruleLists: (ids: string[]) => string[]): { work: ThreadWork; fired: FiredRule[] } {
  const primary = g.primary;
  const fired = settleRules(session.rules, session.order, g.merged.length === 0 ? [primary] : [primary, ...g.merged], processFlags);
  // A `running` rule (a lock's fast path) speaks for the thread only on its own stack, not on a
  // `frame N` copy gdb printed alone, whose first frame is #N: then the next rule sets the state.
  const stateRule = stateRuleOf(fired.filter((f) => f.rule.effect.running !== true || f.alt.site?.backtrace === primary.index));
  let truncated = primary.truncated;
  for (let k = 0; k < g.merged.length && truncated; k++) truncated = (g.merged[k] as BacktraceSummary).truncated;
  let blocked = primary.blocked;
  for (let k = 0; k < g.merged.length && !blocked; k++) blocked = (g.merged[k] as BacktraceSummary).blocked;
  let timed = false;
  let outside = false;
  let signalWake = false;
  let spins = false;
  for (let k = 0; k < fired.length; k++) {
    const effect = (fired[k] as FiredRule).rule.effect;
    if (effect.timed === true) timed = true;
    if (effect.outside === true) outside = true;
    // A signal ends the wait as the rule that explains it says: the rule that sets the state, or
    // one that sets none (a fact about the thread, cpython.lock.main-thread). A generic rule
    // outranked on the same wait does not speak for it: glibc.sem.wait's "a handler may post the
    // semaphore" is not so for the semaphore of a Python lock, which only release() posts.
    if (effect.signalWake === true && (effect.state === undefined || (fired[k] as FiredRule).rule === stateRule)) signalWake = true;
    // A rule that says the thread waits makes it blocked even outside the wait primitives: a spin
    // wait (the Julia GC initiator in jl_gc_wait_for_the_world, a spin lock) does not go on.
    if (effect.waits !== undefined && effect.timed !== true) spins = true;
  }
  if (spins) blocked = true;
  // The rule that sets the state says the thread runs (an unlock path, a lock's fast path, a
  // sched_yield loop no rule explains): not asleep, whatever lower rules say it waits for.
  if (stateRule?.effect.running === true) blocked = false;
  const info = primary.thread;
  const acquire = primary.acquireSite;
  const ruleState = stateRule?.effect.state;
  let state: string;
  let stateText: string;
  if (ruleState !== undefined) {
    state = ruleState;
    stateText = (stateRule as ThreadRule).effect.stateText ?? ruleState;
  } else if (primary.parkedTask) {
    // A Julia task switched out (jl_print_task_backtraces): no thread runs it.
    state = 'task-parked';
    stateText = 'a parked Julia task (not running on any thread)';
  } else if (primary.frameCount === 0) {
    // The default state only when no rule sets one (stateRuleOf gives only rules that do).
    state = 'unknown';
    stateText = 'no frames shown';
  } else if (blocked) {
    state = 'waiting';
    stateText = `waits in ${waitSiteName(acquire)} (no rule explains this wait)`;
  } else if ((primary.top[0]?.level ?? 0) > 0 && !primary.infoThreadsRow) {
    // A paste that starts in the middle of a stack (`#14 …` first): the innermost frames, where a
    // wait would show, are not in it, so "running" would be a guess.
    state = 'cut-top';
    stateText = `its innermost frames are not in the paste (it starts at frame #${primary.top[0]?.level}): what it does is not known`;
  } else {
    state = 'running';
    stateText = 'running (not blocked in a wait)';
  }
  const ids: string[] = new Array<string>(fired.length);
  for (let k = 0; k < fired.length; k++) ids[k] = (fired[k] as FiredRule).rule.id;
  // Threads that fired the same rules share one list (a pool of workers fires the same few).
  const ruleIds = ruleLists(ids);
  let merged = NO_MERGED;
  if (g.merged.length > 0) {
    merged = new Array<number>(g.merged.length);
    for (let k = 0; k < g.merged.length; k++) merged[k] = (g.merged[k] as BacktraceSummary).index;
  }
  const idle = stateRule?.effect.idle === true;
  // Two literals rather than a spread of an optional field: the same key order, without a
  // generic property copy for each of 100,000 threads.
  const analysis: ThreadAnalysis = stateRule
    ? { key: g.key, id: info?.id ?? null, lwp: info?.lwp ?? null, ptid: info?.ptid ?? null, name: info?.name ?? null, state, stateText, waitsFor: NO_ITEMS, holds: NO_ITEMS, rules: ruleIds, stateRule: stateRule.id, acquireSite: acquire, backtrace: primary.index, merged, idle, blocked, timed, outside, signalWake, truncated }
    : { key: g.key, id: info?.id ?? null, lwp: info?.lwp ?? null, ptid: info?.ptid ?? null, name: info?.name ?? null, state, stateText, waitsFor: NO_ITEMS, holds: NO_ITEMS, rules: ruleIds, acquireSite: acquire, backtrace: primary.index, merged, idle, blocked, timed, outside, signalWake, truncated };
  return { work: { key: g.key, primary, merged: g.merged.length === 0 ? NO_SUMMARIES : g.merged, stateRule, analysis, blocked, timed }, fired };
}

/**
 * Identical notes once, where the first stood, with how often they were said (a line of glued
 * `[Switching to thread 5 (…)]#0 …` frames made 15 equal "Thread 5 appears again at line 1" notes).
 */
function collapseRepeatedNotes(notes: string[]): string[] {
  if (new Set(notes).size === notes.length) return notes;
  const counts = new Map<string, number>();
  for (const note of notes) counts.set(note, (counts.get(note) ?? 0) + 1);
  return [...counts].map(([note, n]) => (n === 1 ? note : `${note.endsWith('.') ? note.slice(0, -1) : note} (${n} times).`));
}

/** `items` by `key(item)` (a loop, not a Map built from pairs: no array per item on 100,000 threads). */
function mapBy<T>(items: readonly T[], key: (item: T) => string): Map<string, T> {
  const map = new Map<string, T>();
  for (const item of items) map.set(key(item), item);
  return map;
}

/** Expands a resource template; a placeholder without a value gives `kind:unknown@THREAD`. */
/** A wait's owner command: its owner shape's query (src/live/owner-queries.ts), else a user rule's own text. */
function waitInfo(
  templates: TemplateExpander,
  edge: Edge,
  w: { lockLike?: boolean; label?: string; owner?: OwnerShape; ownerQuery?: string; ownerAnswer?: 'lwp' | 'ptid'; waiterMayHold?: boolean; shared?: boolean; mayBeWakeUp?: boolean; namedHolder?: boolean; holderShows?: boolean; holderHint?: string },
  resource: string,
  captures: Record<string, ParsedArgValue>,
): WaitInfo {
  // One literal per branch, not a spread of a shared base: V8 gave each spread copy its own hidden
  // class and descriptor array (~300 bytes a wait on 100,000 waiters; issue 15). Same key order.
  const lockLike = w.lockLike ?? true;
  const label = w.label ?? null;
  const waiterMayHold = w.waiterMayHold ?? true;
  const shared = w.shared ?? false;
  const mayBeWakeUp = w.mayBeWakeUp ?? false;
  const namedHolder = w.namedHolder ?? false;
  const holderShows = w.holderShows ?? false;
  const holderHint = w.holderHint ?? null;
  if (w.owner) {
    const asked = ownerCommandFor(resource, w.owner);
    return { edge, lockLike, label, captures, waiterMayHold, shared, mayBeWakeUp, namedHolder, holderShows, ownerQuery: asked?.command ?? null, ownerAnswer: asked?.answer ?? null, ownerShape: w.owner, holderHint };
  }
  const query = w.ownerQuery ? templates.expand(w.ownerQuery, captures) : null;
  return { edge, lockLike, label, captures, waiterMayHold, shared, mayBeWakeUp, namedHolder, holderShows, ownerQuery: query && query.missing.length === 0 ? query.text : null, ownerAnswer: w.ownerAnswer ?? null, ownerShape: null, holderHint };
}

/**
 * The backtraces merged into a thread of none (nearly every thread): one list for all. Frozen:
 * nothing may add to a list every such thread shares.
 */
const NO_MERGED: number[] = Object.freeze([]) as unknown as number[];
const NO_SUMMARIES: BacktraceSummary[] = Object.freeze([]) as unknown as BacktraceSummary[];

/**
 * The empty waitsFor / holds list every thread starts with (most hold nothing): one for all until
 * addItem gives a thread its own. Frozen, so nothing adds to it by mistake.
 */
const NO_ITEMS: string[] = Object.freeze([]) as unknown as string[];

/** Adds `item` to a thread's waitsFor or holds list once, giving it a list of its own first. */
function addItem(thread: ThreadAnalysis, list: 'waitsFor' | 'holds', item: string): void {
  const items = thread[list];
  if (items === NO_ITEMS) thread[list] = [item];
  else if (!items.includes(item)) items.push(item);
}

/**
 * One frozen list for equal lists of strings, for this analysis only. The threads' rule lists
 * are read, never changed, after the analysis: 100,000 threads of a few kinds need a few lists.
 */
function listPool(): (items: string[]) => string[] {
  const pool = new Map<string, string[]>();
  return (items) => {
    const key = items.join('\n');
    const known = pool.get(key);
    if (known !== undefined) return known;
    Object.freeze(items);
    pool.set(key, items);
    return items;
  };
}

/** One string for equal strings, for this analysis only (no state outlives it). */
function stringPool(): (text: string) => string {
  const pool = new Map<string, string>();
  return (text) => {
    const known = pool.get(text);
    if (known !== undefined) return known;
    pool.set(text, text);
    return text;
  };
}

function expandResource(templates: TemplateExpander, template: string, captures: Record<string, ParsedArgValue>, key: string): string {
  const { text, missing } = templates.expand(template, captures);
  if (missing.length === 0) return text;
  const kind = template.includes(':') ? template.slice(0, template.indexOf(':')) : 'resource';
  return `${kind}:unknown@${key}`;
}

export { normalizeResourceId } from './owner-links.js';

/**
 * Whether the dump shows the whole process, and its pid. Live mode knows both. In text, gdb numbers
 * the threads of an attach 1..N, thread 1 being the main thread (LWP = pid): all of 1..N present
 * (and at least two, since a lone thread is the usual partial paste) means every thread is shown.
 */
function processShape(threads: ThreadAnalysis[], known: AnalyzeOptions['process']): ProcessShape {
  if (known) return { whole: known.whole, pid: known.pid };
  let pid: number | null = null;
  let numbered = 0;
  let max = 0;
  for (const t of threads) {
    if (t.id === null || !/^\d+$/.test(t.key)) return { whole: false, pid: pid ?? mainLwp(threads) };
    numbered++;
    if (t.id > max) max = t.id;
    if (t.id === 1 && t.lwp !== null) pid = t.lwp;
  }
  return { whole: numbered >= 2 && max === numbered, pid };
}

function mainLwp(threads: ThreadAnalysis[]): number | null {
  for (const t of threads) if (t.id === 1 && t.key === '1') return t.lwp;
  return null;
}

