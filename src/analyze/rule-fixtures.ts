/**
 * A pack's rules against their fixtures (Semgrep's `--test`, ESLint's rule tester): each rule file
 * `<id>.yaml` has `<id>.txt` beside it — gdb text whose threads named `hit-…` the rule must match
 * and `ok-…` it must not (its near misses) — and `<id>.edges`, the golden of exactly what the rule
 * yields there. The built-in packs' test (test/rules/rule-set.test.ts) and `waitgraph rules test
 * DIR` both run these checks, so a team's own pack is held to the same bar in its CI.
 */
import { existsSync, readdirSync, readFileSync, writeFileSync } from 'node:fs';
import { basename, dirname, extname, join } from 'node:path';
import type { Analysis } from '../model/analysis.js';
import { compareThreadKeys } from '../model/ids.js';
import { parseDump } from '../parse/index.js';
import type { LoadedRules, Rule } from '../rules/types.js';
import { analyze } from './analyzer.js';

export interface FixtureResult {
  ruleId: string;
  /** The rule file, its fixture and its golden. */
  file: string;
  fixture: string;
  golden: string;
  /** What the rule yields on its fixture (the golden's lines), empty without a fixture. */
  lines: string[];
  /** Why the rule fails its fixture, one sentence each (golden differences as `- …` / `+ …` lines); empty when it passes. */
  problems: string[];
  /** Threads named `hit-…` / `ok-…` in the fixture (for cycle rules, `ok-…` threads outside every cycle the rule names). */
  hits: number;
  nearMisses: number;
  /** True when the golden was (re)written (`update`). */
  updated: boolean;
}

export interface FixtureOptions {
  /** Write each golden from what the rule yields (review the diff like code). */
  update?: boolean;
}

/**
 * A rule's golden lines on an analysis, threads in number order:
 *
 *   thread 9 fired                         the rule fired on thread 9
 *   thread 9 state gc-initiator            … and its state is the one the thread got
 *   thread 9 waits julia:gc-stop #2        a wait edge (#level of the rule's site frame)
 *   thread 9 holds orc:lazy-compile #161   a hold edge
 *   thread 9 waits-thread 7 gc-unsafe #0   an all-of wait, expanded to thread 7
 *   deadlock 7,8,9                         (cycle rules) a deadlock the rule names
 */
export function ruleGoldenLines(analysis: Analysis, ruleId: string, kind: Rule['kind']): string[] {
  if (kind === 'cycle') return analysis.deadlocks.filter((d) => d.rules.includes(ruleId)).map((d) => `deadlock ${d.threads.join(',')}`);
  const key = (node: string): string => node.slice(node.indexOf(':') + 1);
  const rows: Array<{ thread: string; text: string }> = [];
  for (const t of analysis.threads) {
    if (!t.rules.includes(ruleId)) continue;
    rows.push({ thread: t.key, text: 'fired' });
    if (t.stateRule === ruleId) rows.push({ thread: t.key, text: `state ${t.state}` });
  }
  for (const e of analysis.edges) {
    if (e.ruleId !== ruleId) continue;
    const site = e.site ? ` #${e.site.level}` : '';
    if (e.kind === 'waits') rows.push({ thread: key(e.from), text: `waits ${key(e.to)}${site}` });
    else if (e.kind === 'holds') rows.push({ thread: key(e.to), text: `holds ${key(e.from)}${site}` });
    else rows.push({ thread: key(e.from), text: `waits-thread ${key(e.to)} ${e.viaState ?? '?'}${site}` });
  }
  const order = (t: string): number => (t === 'fired' ? 0 : t.startsWith('state') ? 1 : 2);
  rows.sort((a, b) => compareThreadKeys(a.thread, b.thread) || order(a.text) - order(b.text) || (a.text < b.text ? -1 : a.text > b.text ? 1 : 0));
  return [...new Set(rows.map((r) => `thread ${r.thread} ${r.text}`))];
}

/** The fixture and golden paths of a rule file: `<id>.txt` and `<id>.edges` beside it. */
export function fixturePaths(ruleFile: string): { fixture: string; golden: string } {
  const stem = join(dirname(ruleFile), basename(ruleFile, extname(ruleFile)));
  return { fixture: `${stem}.txt`, golden: `${stem}.edges` };
}

/** Runs one rule on its fixture and compares with its golden. `rules` is the whole set the rule is loaded in. */
export function checkRuleFixture(rules: LoadedRules, rule: Rule, options: FixtureOptions = {}): FixtureResult {
  const { fixture, golden } = fixturePaths(rule.file);
  const result: FixtureResult = { ruleId: rule.id, file: rule.file, fixture, golden, lines: [], problems: [], hits: 0, nearMisses: 0, updated: false };
  if (!existsSync(fixture)) {
    result.problems.push(`no fixture: ${basename(fixture)} beside the rule (gdb text with "hit-…" threads it matches and "ok-…" near misses)`);
    return result;
  }
  const analysis = analyze(parseDump(readFileSync(fixture, 'utf8')), { rules });
  result.lines = ruleGoldenLines(analysis, rule.id, rule.kind);
  if (options.update) {
    writeFileSync(golden, `${result.lines.join('\n')}\n`);
    result.updated = true;
  }
  if (!existsSync(golden)) result.problems.push(`no golden: ${basename(golden)} beside the rule (write it with --update and review it)`);
  else result.problems.push(...goldenDifferences(readGolden(golden), result.lines));
  if (result.lines.length === 0) result.problems.push('the rule fires nowhere in its fixture');
  const named = (prefix: string) => analysis.threads.filter((t) => t.name?.startsWith(prefix) === true);
  if (rule.kind === 'thread' || rule.kind === 'locals') {
    // A locals rule fires on a thread when it gives the thread a hold.
    const fired = (key: string): boolean =>
      rule.kind === 'locals' ? analysis.edges.some((e) => e.ruleId === rule.id && e.to === `thread:${key}`) : (analysis.threads.find((t) => t.key === key)?.rules.includes(rule.id) ?? false);
    for (const t of named('hit')) {
      if (fired(t.key)) result.hits++;
      else result.problems.push(`thread ${t.key} "${t.name}" must match`);
    }
    for (const t of named('ok')) {
      if (!fired(t.key)) result.nearMisses++;
      else result.problems.push(`thread ${t.key} "${t.name}" must not match`);
    }
  } else {
    // A cycle rule names deadlocks: every one made of `hit-…` threads alone, none with an `ok-…` thread.
    const nameOf = new Map(analysis.threads.map((t) => [t.key, t.name ?? '']));
    for (const d of analysis.deadlocks) {
      const names = d.threads.map((k) => nameOf.get(k) ?? '');
      const mine = d.rules.includes(rule.id);
      if (mine && names.some((n) => n.startsWith('ok'))) result.problems.push(`the deadlock of threads ${d.threads.join(', ')} has an "ok-…" thread and must not be named`);
      if (!mine && names.every((n) => n.startsWith('hit'))) result.problems.push(`the deadlock of "hit-…" threads ${d.threads.join(', ')} must be named`);
    }
    const inNamed = new Set(analysis.deadlocks.filter((d) => d.rules.includes(rule.id)).flatMap((d) => d.threads));
    result.hits = named('hit').filter((t) => inNamed.has(t.key)).length;
    result.nearMisses = named('ok').filter((t) => !inNamed.has(t.key)).length;
  }
  if (result.nearMisses === 0) result.problems.push('no near miss: the fixture needs an "ok-…" thread (a close shape) the rule does not match');
  return result;
}

/** Fixtures and goldens in a pack folder whose rule file is not there. */
export function orphanFixtures(packDir: string, ruleIds: ReadonlySet<string>): string[] {
  return readdirSync(packDir)
    .filter((f) => /\.(txt|edges)$/.test(f) && !ruleIds.has(f.replace(/\.(txt|edges)$/, '')))
    .sort();
}

function readGolden(path: string): string[] {
  return readFileSync(path, 'utf8')
    .split('\n')
    .filter((l) => l.trim() !== '' && !l.startsWith('#'));
}

/** The golden's lines missing from what the rule yields (`- …`) and the ones it yields beyond them (`+ …`). */
function goldenDifferences(want: string[], got: string[]): string[] {
  const wanted = new Set(want);
  const have = new Set(got);
  const missing = want.filter((l) => !have.has(l)).map((l) => `- ${l}`);
  const extra = got.filter((l) => !wanted.has(l)).map((l) => `+ ${l}`);
  if (missing.length === 0 && extra.length === 0) return want.join('\n') === got.join('\n') ? [] : ['the golden lists the same lines in another order'];
  return [`yields other lines than its golden (- golden only, + yielded only):\n${[...missing, ...extra].map((l) => `  ${l}`).join('\n')}`];
}
