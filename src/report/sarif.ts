/**
 * SARIF 2.1.0 for code-scanning dashboards and CI annotations. One result per deadlock, under the
 * rule `waitgraph/deadlock`: message = the explanation, locations = each deadlocked thread's
 * acquire site (file:line when the dump has it, the function as a logical location otherwise),
 * and the signature as a partial fingerprint so a dashboard keeps one alert for the same bug
 * across runs. A hang is one `waitgraph/hang` result. The frame rules behind the results are
 * listed in `tool.driver.rules`.
 */
import type { Analysis, Deadlock, Edge, FrameRef, ThreadKey } from '../model/analysis.js';
import { compareText, deadlockRows, evidenceLabel, siteText, threadList, threadsByKey, threadTitle } from './cycle-view.js';
import { parseNodeId } from '../model/ids.js';
import { isAbsolute, relative, resolve, sep } from 'node:path';
import { sanitizeAnalysis } from './sanitize.js';

export interface SarifOptions {
  /** waitgraph's version for `tool.driver.version`; left out when absent (golden files). */
  version?: string;
  /** The dump's URI or path; when given, results point at the frame lines in the dump too. */
  inputUri?: string;
  /** See SarifLogOptions.root. */
  root?: string;
}

export const SARIF_SCHEMA_URI = 'https://json.schemastore.org/sarif-2.1.0.json';
export const DEADLOCK_RULE = 'waitgraph/deadlock';
export const HANG_RULE = 'waitgraph/hang';
export const CRASH_RULE = 'waitgraph/crash';
/** Bumped when the signature algorithm changes, as Sentry versions its grouping. */
export const FINGERPRINT_KEY = 'waitgraphSignature/v1';

interface ReportingDescriptor {
  id: string;
  name?: string;
  shortDescription: { text: string };
  fullDescription?: { text: string };
  defaultConfiguration?: { level: 'error' | 'warning' | 'note' };
}

export function renderSarif(analysis: Analysis, options: SarifOptions = {}): string {
  return renderSarifLog([{ analysis, ...(options.inputUri ? { inputUri: options.inputUri } : {}) }], {
    ...(options.version ? { version: options.version } : {}),
    ...(options.root ? { root: options.root } : {}),
  });
}

/** One analysed dump of a multi-dump log (`waitgraph check --sarif`). */
export interface SarifEntry {
  analysis: Analysis;
  /** The dump's path or URI; results point at its lines. */
  inputUri?: string;
}

export interface SarifLogOptions {
  version?: string;
  /**
   * Each result's primary locations are the dump's own lines (where each thread waits), the
   * source files of the acquire sites related ones: for code scanning, whose alerts must point at
   * files of the repository, which holds the dumps but rarely the sources they name.
   */
  locateInDump?: boolean;
  /**
   * The folder artifact URIs are relative to (`--sarif-root`, the CLI's default: the working
   * directory), an absolute path. Code scanning resolves a relative URI against the repository
   * root and refuses `file://` URIs of the machine that ran the tool: a frame path under the root
   * becomes relative, an absolute one outside it (`/cache/build/…`) only a logical location (the
   * function). A relative frame path (`c-abba-mutex.c`) is read as relative to the root already.
   * Dumps (the analysis targets) under the root become relative too; one outside it keeps its
   * `file://` URI, since a result must name its target.
   * Absent (library use): paths are kept, absolute ones as `file://` URIs.
   */
  root?: string;
}

/**
 * One SARIF log, one run, the results of every entry in order (GitHub code scanning takes one run
 * per tool and category). The frame rules of all entries are listed once, sorted.
 */
export function renderSarifLog(entries: readonly SarifEntry[], options: SarifLogOptions = {}): string {
  const clean = entries.map((entry) => ({ ...entry, analysis: sanitizeAnalysis(entry.analysis) })); // control characters from the dump made visible (sanitize.ts)
  const rules: ReportingDescriptor[] = [
    {
      id: DEADLOCK_RULE,
      name: 'Deadlock',
      shortDescription: { text: 'Threads wait for each other in a cycle; none can go on.' },
      fullDescription: { text: 'A cycle in the wait-for graph built from the thread dump: each thread waits for a resource held by the next.' },
      defaultConfiguration: { level: 'error' },
    },
    {
      id: HANG_RULE,
      name: 'Hang',
      shortDescription: { text: 'Threads wait with no time limit for something that is not released.' },
      defaultConfiguration: { level: 'warning' },
    },
    {
      id: CRASH_RULE,
      name: 'Crash',
      shortDescription: { text: 'The process crashed: a thread got a fatal signal, aborted or failed an assertion.' },
      defaultConfiguration: { level: 'note' },
    },
  ];
  const ruleIndex = new Map(rules.map((rule, index) => [rule.id, index]));
  // Each frame rule with the first analysis that used it (its summary is read from there).
  const frameRules = new Map<string, Analysis>();
  for (const { analysis } of clean) {
    for (const deadlock of analysis.deadlocks) for (const id of deadlock.rules) if (!frameRules.has(id)) frameRules.set(id, analysis);
    const threads = threadsByKey(analysis);
    for (const key of analysis.hung) for (const id of threads.get(key)?.rules ?? []) if (!frameRules.has(id)) frameRules.set(id, analysis);
  }
  for (const id of [...frameRules.keys()].sort(compareText)) {
    ruleIndex.set(id, rules.length);
    rules.push({ id, shortDescription: { text: ruleSummary(frameRules.get(id)!, id) } });
  }

  const results: object[] = [];
  const artifacts: object[] = [];
  for (const { analysis, inputUri } of clean) {
    const dumpUri = inputUri !== undefined && options.root !== undefined ? (underRoot(inputUri, options.root) ?? inputUri) : inputUri;
    const where: ResultOptions = { ...(dumpUri ? { inputUri: dumpUri } : {}), locateInDump: options.locateInDump === true, ...(options.root ? { root: options.root } : {}) };
    for (const deadlock of analysis.deadlocks) results.push(deadlockResult(analysis, deadlock, where, ruleIndex.get(DEADLOCK_RULE)!));
    if (analysis.hung.length > 0) results.push(hangResult(analysis, where, ruleIndex.get(HANG_RULE)!));
    if (analysis.crash !== undefined) results.push(crashResult(analysis.crash, where, ruleIndex.get(CRASH_RULE)!));
    if (dumpUri) artifacts.push({ location: { uri: toUri(dumpUri) }, roles: ['analysisTarget'] });
  }

  const log = {
    $schema: SARIF_SCHEMA_URI,
    version: '2.1.0',
    runs: [
      {
        tool: {
          driver: {
            name: 'waitgraph',
            ...(options.version ? { version: options.version, semanticVersion: options.version } : {}),
            informationUri: 'https://www.npmjs.com/package/waitgraph',
            rules,
          },
        },
        ...(artifacts.length > 0 ? { artifacts } : {}),
        results,
      },
    ],
  };
  return `${JSON.stringify(log, null, 2)}\n`;
}

interface ResultOptions {
  inputUri?: string;
  locateInDump: boolean;
  root?: string;
}

/**
 * `path` relative to `root` when it lies under it (`/repo/src/a.c` → `src/a.c`), else null.
 * A relative path is taken as relative to the root already, unless it climbs out (`../x`).
 */
export function underRoot(path: string, root: string): string | null {
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path) || /^[a-zA-Z]:[\\/]/.test(path)) return null;
  const inside = relative(root, resolve(root, path)).split(sep).join('/');
  if (inside === '' || inside === '..' || inside.startsWith('../') || isAbsolute(inside)) return null;
  return inside;
}

function deadlockResult(analysis: Analysis, deadlock: Deadlock, options: ResultOptions, ruleIndex: number): object {
  const threads = threadsByKey(analysis);
  const sites = deadlock.threads
    .map((key) => ({ key, site: threads.get(key)?.acquireSite ?? null }))
    .filter((entry): entry is { key: ThreadKey; site: FrameRef } => entry.site !== null);
  const rowLines = options.inputUri
    ? deadlockRows(analysis, deadlock).flatMap((row) => {
        const refs: Array<[FrameRef | null, string]> = [[row.wait.site, `${threadTitle(row.waiter)} ${row.wait.description}`]];
        if (row.hold) refs.push([row.hold.site, `${threadTitle(row.holder)} ${row.hold.description}`]);
        return refs.filter((r): r is [FrameRef, string] => r[0] !== null).map(([site, text]) => dumpLocation(options.inputUri!, site, text));
      })
    : [];
  const { locations, related: placed } = place(sites, rowLines, options);
  const related = [...placed, ...sourceHoldLocations(analysis, options.root)];
  return {
    ruleId: DEADLOCK_RULE,
    ruleIndex,
    level: 'error',
    kind: 'fail',
    message: { text: deadlock.explanation },
    ...(locations.length > 0 ? { locations } : {}),
    ...(related.length > 0 ? { relatedLocations: related.map((loc, id) => ({ id, ...loc })) } : {}),
    partialFingerprints: { [FINGERPRINT_KEY]: deadlock.signature },
    properties: {
      title: deadlock.title,
      fix: deadlock.fix,
      threads: deadlock.threads,
      resources: deadlock.resources,
      evidence: evidenceLabel(deadlock),
      rules: deadlock.rules,
      blockedBehind: deadlock.blockedBehind,
      cycle: deadlock.cycle.map((step) => step.text),
    },
  };
}

function hangResult(analysis: Analysis, options: ResultOptions, ruleIndex: number): object {
  const threads = threadsByKey(analysis);
  const sites = analysis.hung
    .map((key) => ({ key, site: threads.get(key)?.acquireSite ?? null }))
    .filter((entry): entry is { key: ThreadKey; site: FrameRef } => entry.site !== null);
  const waitLines = options.inputUri ? sites.map(({ key, site }) => dumpLocation(options.inputUri!, site, `${threadTitle(key)} waits here`)) : [];
  const { locations, related: placed } = place(sites, waitLines, options);
  const related = [...placed, ...sourceHoldLocations(analysis, options.root)];
  // Why each hung thread cannot go on, as the analysis words it; else the waits nobody holds.
  const waits =
    (analysis.hangReasons ?? []).length > 0
      ? analysis.hangReasons!.map((r) => `${threadTitle(r.thread)} ${r.text}`)
      : analysis.unresolved.map((w) => `${threadTitle(w.thread)} ${w.description} (${w.resource})`);
  return {
    ruleId: HANG_RULE,
    ruleIndex,
    level: 'warning',
    kind: 'fail',
    message: {
      text: `${(analysis.verdictReasons ?? []).map((r) => r.text).join(' ') || `${analysis.hung.length === 1 ? 'Thread' : 'Threads'} ${threadList(analysis.hung)} wait with no time limit for something that is not released.`}${waits.length > 0 ? ` ${waits.join('; ')}.` : ''}`,
    },
    ...(locations.length > 0 ? { locations } : {}),
    ...(related.length > 0 ? { relatedLocations: related.map((loc, id) => ({ id, ...loc })) } : {}),
    properties: {
      threads: analysis.hung,
      ...((analysis.candidateCycles ?? []).length > 0 ? { candidateCycles: analysis.candidateCycles.map((c) => ({ threads: c.threads, gdbCommands: c.gdbCommands, text: c.text })) } : {}),
    },
  };
}

/** Where each hold read from the code (`--source`) was taken: the acquisition's file:line, with its code. */
function sourceHoldLocations(analysis: Analysis, root: string | undefined): object[] {
  return analysis.edges
    .filter((e): e is Edge & { site: FrameRef } => e.kind === 'holds' && e.basis === 'source' && e.site !== null)
    .map((e) => siteLocation(e.site, `${threadTitle(parseNodeId(e.to).key)} ${e.description}`, root));
}

/**
 * A result's locations: the acquire sites in the source (file:line, or the function), the dump
 * lines related; with `locateInDump`, the dump lines where each thread waits first and the source
 * sites related.
 */
function place(sites: ReadonlyArray<{ key: ThreadKey; site: FrameRef }>, dumpLines: object[], options: ResultOptions): { locations: object[]; related: object[] } {
  const source = sites.map(({ key, site }) => siteLocation(site, `${threadTitle(key)} waits here: ${siteText(site)}`, options.root));
  if (!options.locateInDump || !options.inputUri) return { locations: source, related: dedupe(dumpLines) };
  const waits = sites.map(({ key, site }) => dumpLocation(options.inputUri!, site, `${threadTitle(key)} waits here: ${siteText(site)}`));
  if (waits.length === 0) return { locations: source, related: dedupe(dumpLines) };
  return { locations: waits, related: dedupe([...dumpLines, ...source]) };
}

/** The crash: a note (it is exit 0 on its own), located where the program went wrong. */
function crashResult(crash: NonNullable<Analysis['crash']>, options: ResultOptions, ruleIndex: number): object {
  const source = crash.site ? [siteLocation(crash.site, `${threadTitle(crash.thread)} went wrong here: ${siteText(crash.site)}`, options.root)] : [];
  const inDump = options.inputUri && crash.crashFrame ? [dumpLocation(options.inputUri, crash.crashFrame, `${threadTitle(crash.thread)}: the crash shows here`)] : [];
  const dumpFirst = options.locateInDump && inDump.length > 0;
  const locations = dumpFirst ? inDump : source;
  const related = dumpFirst ? source : inDump;
  return {
    ruleId: CRASH_RULE,
    ruleIndex,
    level: 'note',
    kind: 'fail',
    message: { text: `${crash.text}.` },
    ...(locations.length > 0 ? { locations } : {}),
    ...(related.length > 0 ? { relatedLocations: related.map((loc, id) => ({ id, ...loc })) } : {}),
    properties: { thread: crash.thread, signal: crash.signal, evidence: crash.evidence },
  };
}

/**
 * A source location when the frame names a file (under the root, when one is given), a logical
 * (function) location otherwise.
 */
function siteLocation(site: FrameRef, text: string, root: string | undefined): object {
  const file = site.file && root !== undefined ? underRoot(site.file, root) : site.file;
  if (file) {
    return {
      physicalLocation: {
        artifactLocation: { uri: toUri(file) },
        ...(site.line !== null && site.line > 0 ? { region: { startLine: site.line } } : {}),
      },
      logicalLocations: [{ fullyQualifiedName: site.function, kind: 'function' }],
      message: { text },
    };
  }
  return { logicalLocations: [{ fullyQualifiedName: site.function, kind: 'function' }], message: { text } };
}

/** The frame's own line in the dump, so a viewer can open the evidence. */
function dumpLocation(inputUri: string, site: FrameRef, text: string): object {
  return {
    physicalLocation: { artifactLocation: { uri: toUri(inputUri) }, region: { startLine: Math.max(1, site.sourceLine) } },
    message: { text },
  };
}

function dedupe<T>(items: T[]): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const key = JSON.stringify(item);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}

/**
 * A path as a SARIF URI reference: POSIX paths stay paths (absolute ones become `file://` URIs),
 * Windows paths become `file:///C:/…`, and characters a URI cannot hold are percent-encoded.
 */
export function toUri(path: string): string {
  // encodeURI/encodeURIComponent throw on a lone surrogate (a cut UTF-16 pair in a pasted path).
  path = path.replace(/[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g, '\ufffd');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(path)) return encodeURI(decodeSafe(path));
  const windows = /^([a-zA-Z]):[\\/]/.exec(path);
  if (windows) return `file:///${windows[1]}:/${encodePath(path.slice(3).replace(/\\/g, '/'))}`;
  if (path.startsWith('/')) return `file://${encodePath(path)}`;
  return encodePath(path);
}

function encodePath(path: string): string {
  return path.split('/').map((segment) => encodeURIComponent(segment).replace(/%2B/gi, '+').replace(/%40/g, '@')).join('/');
}

function decodeSafe(uri: string): string {
  try {
    return decodeURI(uri);
  } catch {
    return uri;
  }
}

/**
 * What a frame rule concluded, in words, from what the analysis shows of it: an edge it produced,
 * a thread state it set, or the deadlock it explains. (Rule files' own summaries are not part of
 * the Analysis model.)
 */
function ruleSummary(analysis: Analysis, ruleId: string): string {
  const edge = analysis.edges.find((e) => e.ruleId === ruleId);
  if (edge) return `When it matches, the thread ${edge.description.replace(/^(which|that) /, '')}.`;
  const thread = analysis.threads.find((t) => t.stateRule === ruleId);
  if (thread) return `When it matches, the thread is in state ${thread.state}: ${thread.stateText}.`;
  const deadlock = analysis.deadlocks.find((d) => d.rules.includes(ruleId));
  if (deadlock) return `Explains the ${deadlock.title}.`;
  return `Frame rule ${ruleId}.`;
}
