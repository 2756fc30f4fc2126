/**
 * Loads rule files: the built-in packs (src/rules/builtin/<pack>/<id>.yaml, shipped as data, not
 * compiled) plus user files given with `--rules`. Every problem is a RuleError with one line that
 * names the file, the line and the field: `my.rule.yaml:7: match.frames[0].function: …`.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, extname, join, relative, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { RuleError } from '../errors.js';
import { compilePattern, PatternError, type NamePatternInput } from './pattern.js';
import {
  CycleRuleSchema,
  FrameConditionSchema,
  ThreadRuleSchema,
  type FrameConditionRaw,
  type ShapeRaw,
  type ThreadRuleRaw,
} from './schema.js';
import { PLACEHOLDER_PART, templatePlaceholders } from './template.js';
import type { CycleRule, FrameCondition, LoadedRules, Position, Rule, Shape, ThreadRule } from './types.js';
import { z } from 'zod';

const RULE_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
const PRIMITIVES_FILE = 'wait-primitives.yaml';

/** The folder of built-in packs. tsc does not copy YAML, so it is found from the package root. */
export function builtinRulesDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const candidates = [resolve(here, '../../../src/rules/builtin'), resolve(here, 'builtin')];
  for (const dir of candidates) if (existsSync(join(dir, PRIMITIVES_FILE))) return dir;
  throw new RuleError(`built-in rules not found (looked in ${candidates.join(', ')})`);
}

export interface LoadRulesOptions {
  /** User rule files or folders of rule files (`--rules`), loaded after the built-ins. */
  extraFiles?: string[];
  /** Skip the built-in packs (tests of single rules). */
  noBuiltins?: boolean;
  /** Load only these built-in packs (folder names). */
  packs?: string[];
  /** Working directory for relative paths and for error messages. */
  cwd?: string;
}

/** One rule file, before compilation. */
interface SourceFile {
  path: string;
  /** How the file is named in errors (relative to cwd when inside it). */
  display: string;
  builtin: boolean;
  /** For built-ins, the pack folder the file sits in. */
  packFolder: string | null;
}

export function loadRules(options: LoadRulesOptions = {}): LoadedRules {
  const cwd = options.cwd ?? process.cwd();
  const display = (p: string): string => {
    const rel = relative(cwd, p);
    return rel.startsWith('..') || rel === '' ? p : rel;
  };
  const sources: SourceFile[] = [];
  let primitives: FrameCondition[] = [];
  const dir = builtinRulesDir();
  primitives = loadPrimitives(join(dir, PRIMITIVES_FILE), display(join(dir, PRIMITIVES_FILE)));
  if (!options.noBuiltins) {
    for (const pack of readdirSync(dir).sort()) {
      const packDir = join(dir, pack);
      if (!statSync(packDir).isDirectory()) continue;
      if (options.packs && !options.packs.includes(pack)) continue;
      for (const f of readdirSync(packDir).sort()) {
        if (RULE_EXTENSIONS.has(extname(f))) sources.push({ path: join(packDir, f), display: display(join(packDir, f)), builtin: true, packFolder: pack });
      }
    }
  }
  for (const given of options.extraFiles ?? []) {
    const path = resolve(cwd, given);
    if (!existsSync(path)) throw new RuleError(`${given}: rule file not found`);
    if (statSync(path).isDirectory()) {
      const files = listRuleFiles(path);
      if (files.length === 0) throw new RuleError(`${given}: no rule files (.yaml, .yml, .json) in this folder`);
      for (const f of files) sources.push({ path: f, display: display(f), builtin: false, packFolder: null });
    } else {
      sources.push({ path, display: display(path), builtin: false, packFolder: null });
    }
  }

  const rules: Rule[] = [];
  const byId = new Map<string, Rule>();
  const processConditions: FrameCondition[] = [];
  const processKeys = new Map<string, number>();
  const internProcess = (raw: FrameConditionRaw, compiled: FrameCondition): number => {
    const key = JSON.stringify(raw);
    let index = processKeys.get(key);
    if (index === undefined) {
      index = processConditions.push(compiled) - 1;
      processKeys.set(key, index);
    }
    return index;
  };
  for (const source of sources) {
    const rule = loadRuleFile(source, internProcess);
    const previous = byId.get(rule.id);
    if (previous) throw new RuleError(`${source.display}: rule id ${rule.id} is already defined in ${display(previous.file)}`);
    byId.set(rule.id, rule);
    rules.push(rule);
  }
  const threadRules = orderThreadRules(
    rules.filter((r): r is ThreadRule => r.kind === 'thread'),
    byId,
    display,
  );
  const cycleRules = rules.filter((r): r is CycleRule => r.kind === 'cycle');
  for (const rule of cycleRules) {
    for (const id of rule.requiredRules) {
      if (!byId.has(id)) throw new RuleError(`${display(rule.file)}: match.cycle.rules: unknown rule id ${id}`);
    }
  }
  return { threadRules, cycleRules, primitives, processConditions, byId, files: sources.map((s) => s.path) };
}

function listRuleFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const p = join(dir, entry);
    if (statSync(p).isDirectory()) out.push(...listRuleFiles(p));
    else if (RULE_EXTENSIONS.has(extname(entry))) out.push(p);
  }
  return out;
}

/** Orders rules so each comes after the rules its `unlessRules` name; a cycle among them is an error. */
function orderThreadRules(rules: ThreadRule[], byId: Map<string, Rule>, display: (p: string) => string): ThreadRule[] {
  const out: ThreadRule[] = [];
  const state = new Map<string, 'visiting' | 'done'>();
  const visit = (rule: ThreadRule, chain: string[]): void => {
    const s = state.get(rule.id);
    if (s === 'done') return;
    if (s === 'visiting') throw new RuleError(`${display(rule.file)}: match.unlessRules: rules exclude each other in a loop: ${[...chain, rule.id].join(' → ')}`);
    state.set(rule.id, 'visiting');
    for (const id of rule.unlessRules) {
      const other = byId.get(id);
      if (!other) throw new RuleError(`${display(rule.file)}: match.unlessRules: unknown rule id ${id}`);
      if (other.kind !== 'thread') throw new RuleError(`${display(rule.file)}: match.unlessRules: ${id} is a cycle rule`);
      visit(other, [...chain, rule.id]);
    }
    state.set(rule.id, 'done');
    out.push(rule);
  };
  for (const rule of rules) visit(rule, []);
  return out;
}

type ProcessInterner = (raw: FrameConditionRaw, compiled: FrameCondition) => number;

interface ParsedFile {
  doc: Document;
  lines: LineCounter;
  data: unknown;
}

function readYaml(path: string, shown: string): ParsedFile {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new RuleError(`${shown}: cannot read rule file: ${(error as Error).message}`);
  }
  const lines = new LineCounter();
  const doc = parseDocument(text, { lineCounter: lines, prettyErrors: true, uniqueKeys: true });
  const first = doc.errors[0];
  if (first) {
    const pos = first.linePos?.[0];
    const msg = (first.message.split('\n')[0] ?? first.message).replace(/ at line \d+, column \d+:?$/, '');
    throw new RuleError(`${shown}${pos ? `:${pos.line}` : ''}: invalid YAML: ${msg}`);
  }
  return { doc, lines, data: doc.toJS() };
}

/** `match.frames[0].function` */
function formatPath(path: ReadonlyArray<PropertyKey>): string {
  let out = '';
  for (const p of path) out += typeof p === 'number' ? `[${p}]` : `${out === '' ? '' : '.'}${String(p)}`;
  return out === '' ? '(top level)' : out;
}

/** The 1-based line of the node at `path` (or of the key `key` in the map there). */
function lineOf(file: ParsedFile, path: ReadonlyArray<PropertyKey>, key?: string): number | null {
  let node: unknown = file.doc.contents;
  for (const p of path) {
    if (isMap(node)) node = node.items.find((it) => isPair(it) && isScalar(it.key) && it.key.value === p)?.value;
    else if (isSeq(node) && typeof p === 'number') node = node.items[p];
    else break;
  }
  if (key !== undefined && isMap(node)) {
    const pair = node.items.find((it) => isPair(it) && isScalar(it.key) && it.key.value === key);
    if (pair && isScalar(pair.key)) node = pair.key;
  }
  const range = (node as { range?: [number, number, number] } | undefined)?.range;
  return range ? file.lines.linePos(range[0]).line : null;
}

function zodError(shown: string, file: ParsedFile, error: z.ZodError): RuleError {
  const issue = error.issues[0];
  if (!issue) return new RuleError(`${shown}: invalid rule`);
  let path = issue.path;
  let message = issue.message;
  let key: string | undefined;
  if (issue.code === 'unrecognized_keys') {
    key = String(issue.keys[0]);
    path = [...issue.path, key];
    message = `unknown field "${key}"`;
    const line = lineOf(file, issue.path, key);
    return new RuleError(`${shown}${line ? `:${line}` : ''}: ${formatPath(path)}: ${message}`);
  }
  if (issue.code === 'invalid_union') {
    // Report the branch that got furthest: the one whose first issue has the longest path.
    const branches = (issue as unknown as { errors: z.core.$ZodIssue[][] }).errors ?? [];
    let best: z.core.$ZodIssue | undefined;
    for (const b of branches) for (const i of b) if (!best || i.path.length > best.path.length) best = i;
    if (best && best.path.length > 0) {
      path = [...issue.path, ...best.path];
      message = best.code === 'unrecognized_keys' ? `unknown field "${String((best as { keys: string[] }).keys[0])}"` : best.message;
    } else message = 'not one of the accepted forms (see src/rules/README.md)';
  }
  const line = lineOf(file, path);
  return new RuleError(`${shown}${line ? `:${line}` : ''}: ${formatPath(path)}: ${message}`);
}

function loadRuleFile(source: SourceFile, intern: ProcessInterner): Rule {
  const file = readYaml(source.path, source.display);
  const data = file.data;
  const fail = (path: ReadonlyArray<PropertyKey>, message: string): RuleError => {
    const line = lineOf(file, path);
    return new RuleError(`${source.display}${line ? `:${line}` : ''}: ${formatPath(path)}: ${message}`);
  };
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new RuleError(`${source.display}: a rule file holds one rule (a mapping with id, pack, summary, match, effect, …)`);
  const isCycle = typeof (data as { match?: unknown }).match === 'object' && (data as { match: object | null }).match !== null && 'cycle' in (data as { match: object }).match;
  const fileId = basename(source.path, extname(source.path));
  if (isCycle) {
    const parsed = CycleRuleSchema.safeParse(data);
    if (!parsed.success) throw zodError(source.display, file, parsed.error);
    const raw = parsed.data;
    checkIdentity(raw.id, raw.pack, fileId, source, fail);
    return {
      kind: 'cycle',
      ...meta(raw, source),
      requiredRules: raw.match.cycle.rules,
      title: raw.effect.title,
    };
  }
  const parsed = ThreadRuleSchema.safeParse(data);
  if (!parsed.success) throw zodError(source.display, file, parsed.error);
  const raw = parsed.data;
  checkIdentity(raw.id, raw.pack, fileId, source, fail);
  const base = compileShape(raw.match, ['match'], fail, intern);
  const anyOf = (raw.match.anyOf ?? []).map((s, i) => compileShape(s, ['match', 'anyOf', i], fail, intern));
  checkTemplates(raw, fail);
  return {
    kind: 'thread',
    ...meta(raw, source),
    base,
    anyOf,
    unlessRules: raw.match.unlessRules ?? [],
    effect: raw.effect,
  };
}

function meta(raw: { id: string; pack: string; summary: string; explanation: string; fix: string; sources: string[] }, source: SourceFile) {
  return {
    id: raw.id,
    pack: raw.pack,
    summary: raw.summary,
    explanation: raw.explanation.trim(),
    fix: raw.fix.trim(),
    sources: raw.sources,
    file: source.path,
    builtin: source.builtin,
  };
}

type Fail = (path: ReadonlyArray<PropertyKey>, message: string) => RuleError;

function checkIdentity(id: string, pack: string, fileId: string, source: SourceFile, fail: Fail): void {
  if (id !== fileId) throw fail(['id'], `the id ${id} must equal the file name (${fileId})`);
  if (source.packFolder !== null && pack !== source.packFolder) throw fail(['pack'], `pack ${pack} must equal the folder the rule sits in (${source.packFolder})`);
}

function compileShape(raw: ShapeRaw, path: PropertyKey[], fail: Fail, intern: ProcessInterner): Shape {
  const frames = (raw.frames ?? []).map((f, i) => compileFrame(f, [...path, 'frames', i], fail));
  if (frames.filter((f) => f.site).length > 1) throw fail([...path, 'frames'], 'at most one frame condition may be the site');
  if (frames[0]?.next) throw fail([...path, 'frames', 0, 'next'], 'the first frame condition has no previous frame');
  return {
    frames,
    none: (raw.none ?? []).map((f, i) => compileFrame(f, [...path, 'none', i], fail)),
    ...(raw.blocked !== undefined ? { blocked: raw.blocked } : {}),
    ...(raw.truncated !== undefined ? { truncated: raw.truncated } : {}),
    processHas: (raw.processHas ?? []).map((f, i) => intern(f, compileFrame(f, [...path, 'processHas', i], fail))),
  };
}

function compileFrame(raw: FrameConditionRaw, path: PropertyKey[], fail: Fail): FrameCondition {
  const pattern = (p: NamePatternInput | undefined, field: string) => {
    if (p === undefined) return undefined;
    try {
      return compilePattern(p);
    } catch (error) {
      if (error instanceof PatternError) throw fail([...path, field], error.message);
      throw error;
    }
  };
  if (raw.function === undefined && raw.library === undefined && raw.file === undefined && raw.jitCode === undefined) {
    throw fail(path, 'a frame condition needs at least one of function, library, file, jitCode');
  }
  let at: Position = { kind: 'anywhere' };
  if (raw.at === 'top') at = { kind: 'top', n: 1 };
  else if (typeof raw.at === 'object' && 'top' in raw.at) at = { kind: 'top', n: raw.at.top };
  else if (typeof raw.at === 'object' && 'within' in raw.at) at = { kind: 'within', n: raw.at.within };
  const fn = pattern(raw.function, 'function');
  const library = pattern(raw.library, 'library');
  const file = pattern(raw.file, 'file');
  const args = Object.entries(raw.args ?? {}).map(([name, cond]) => {
    const symbol = (() => {
      try {
        return cond.symbol === undefined ? undefined : compilePattern(cond.symbol);
      } catch (error) {
        throw fail([...path, 'args', name, 'symbol'], (error as Error).message);
      }
    })();
    const value = (() => {
      try {
        return cond.value === undefined ? undefined : compilePattern(cond.value);
      } catch (error) {
        throw fail([...path, 'args', name, 'value'], (error as Error).message);
      }
    })();
    return { name, ...(symbol ? { symbol } : {}), ...(value ? { value } : {}), ...(cond.address !== undefined ? { address: cond.address } : {}) };
  });
  return {
    ...(fn ? { fn } : {}),
    ...(library ? { library } : {}),
    ...(file ? { file } : {}),
    ...(raw.jitCode !== undefined ? { jitCode: raw.jitCode } : {}),
    at,
    next: raw.next ?? false,
    ...(raw.maxGap !== undefined ? { maxGap: raw.maxGap } : {}),
    args,
    site: raw.site ?? false,
  };
}

/** Every `{args.NAME.part}` placeholder must name an argument some frame condition of the rule declares. */
function checkTemplates(raw: ThreadRuleRaw, fail: Fail): void {
  const declared = new Set<string>();
  const shapes: ShapeRaw[] = [raw.match, ...(raw.match.anyOf ?? [])];
  for (const s of shapes) for (const f of s.frames ?? []) for (const a of Object.keys(f.args ?? {})) declared.add(a);
  const check = (text: string | undefined, path: PropertyKey[]): void => {
    if (text === undefined) return;
    for (const ph of templatePlaceholders(text)) {
      const m = PLACEHOLDER_PART.exec(ph);
      if (!m) throw fail(path, `unknown placeholder {${ph}}: use {args.NAME.address}, {args.NAME.symbol} or {args.NAME.value}`);
      if (!declared.has(m[1] as string)) throw fail(path, `placeholder {${ph}} names argument ${m[1]}, which no frame condition of this rule declares under args`);
    }
  };
  (raw.effect.waits ?? []).forEach((w, i) => {
    check(w.resource, ['effect', 'waits', i, 'resource']);
    check(w.description, ['effect', 'waits', i, 'description']);
    if ('ownerQuery' in w) check(w.ownerQuery, ['effect', 'waits', i, 'ownerQuery']);
  });
  (raw.effect.holds ?? []).forEach((h, i) => {
    check(h.resource, ['effect', 'holds', i, 'resource']);
    check(h.description, ['effect', 'holds', i, 'description']);
  });
  check(raw.effect.stateText, ['effect', 'stateText']);
}

const PrimitivesSchema = z.strictObject({ primitives: z.array(FrameConditionSchema).min(1) });

function loadPrimitives(path: string, shown: string): FrameCondition[] {
  const file = readYaml(path, shown);
  const parsed = PrimitivesSchema.safeParse(file.data);
  if (!parsed.success) throw zodError(shown, file, parsed.error);
  const fail: Fail = (p, message) => {
    const line = lineOf(file, p);
    return new RuleError(`${shown}${line ? `:${line}` : ''}: ${formatPath(p)}: ${message}`);
  };
  return parsed.data.primitives.map((f, i) => compileFrame(f, ['primitives', i], fail));
}
