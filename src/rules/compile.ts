/**
 * Rule compilation: validated rule data (what the zod schemas accept) → the compiled rules the
 * matcher runs. Pure: no YAML and no zod here, so the built-in rules can be compiled at startup
 * from the JSON the build writes (builtin.ts) without loading either library (~250 ms of a
 * start, issue 7 figure 4). load.ts reads and validates rule files, then compiles them here.
 */
import { basename, extname } from 'node:path';
import { RuleError } from '../errors.js';
import { compilePattern, PatternError, type NamePatternInput } from './pattern.js';
import type { CycleRuleRaw, FrameConditionRaw, LocalsRuleRaw, ShapeRaw, ThreadRuleRaw } from './schema.js';
import { compileLocalsRule } from './locals.js';
import { PLACEHOLDER_PART, templatePlaceholders, UNKNOWN_IDENTITY } from './template.js';
import type { CycleRule, FrameCondition, LoadedRules, LocalsRule, Position, Rule, Shape, ThreadRule } from './types.js';

/** One rule file, before compilation. */
export interface SourceFile {
  path: string;
  /** How the file is named in errors (relative to cwd when inside it). */
  display: string;
  builtin: boolean;
  /**
   * The folder the file sits in: the pack name when the rule gives none (a built-in rule never
   * does; a user rule may). Null when there is no folder to take it from.
   */
  packFolder: string | null;
}

/** One rule file's validated data, ready to compile. */
export type RuleEntry =
  | { source: SourceFile; kind: 'cycle'; raw: CycleRuleRaw; fail: Fail }
  | {
      source: SourceFile;
      kind: 'thread';
      raw: ThreadRuleRaw;
      fail: Fail;
      /**
       * Its templates' placeholders were checked when the build compiled the same data (the
       * built-in rules JSON, rules/builtin.ts), so a start does not check them again.
       */
      templatesChecked?: true;
    }
  | { source: SourceFile; kind: 'locals'; raw: LocalsRuleRaw; fail: Fail };

/** Compiles one validated rule file (also checks what the schema cannot: id, pack, site, placeholders). */
export function compileEntry(entry: RuleEntry, intern: ProcessInterner): Rule {
  const { source, fail } = entry;
  const fileId = basename(source.path, extname(source.path));
  if (entry.kind === 'cycle') {
    const raw = entry.raw;
    const pack = packOf(raw.id, raw.pack, fileId, source, fail);
    return {
      kind: 'cycle',
      ...meta(raw, pack, source),
      requiredRules: raw.match.cycle.rules,
      title: raw.effect.title,
    };
  }
  if (entry.kind === 'locals') {
    const raw = entry.raw;
    const pack = packOf(raw.id, raw.pack, fileId, source, fail);
    return compileLocalsRule(raw, meta(raw, pack, source), fail);
  }
  const raw = entry.raw;
  const pack = packOf(raw.id, raw.pack, fileId, source, fail);
  const base = compileShape(raw.match, ['match'], fail, intern);
  const anyOf = (raw.match.anyOf ?? []).map((s, i) => compileShape(s, ['match', 'anyOf', i], fail, intern));
  if (entry.templatesChecked !== true) checkTemplates(raw, fail);
  return {
    kind: 'thread',
    ...meta(raw, pack, source),
    base,
    anyOf,
    unlessRules: raw.match.unlessRules ?? [],
    effect: raw.effect,
  };
}

/**
 * Compiles rule files in order (each is taken from `entries` only when the one before it has
 * compiled, so the first bad file is the one reported) into the loaded rule set.
 */
export function assembleRules(entries: Iterable<RuleEntry>, primitives: FrameCondition[], files: string[], display: (p: string) => string, lockWrappers: FrameCondition[] = []): LoadedRules {
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
  // Ids a rule replaced with `overrides:` → the id that replaced them.
  const replaced = new Map<string, string>();
  for (const entry of entries) {
    const source = entry.source;
    const rule = compileEntry(entry, internProcess);
    if (rule.overrides !== undefined) {
      const old = byId.get(rule.overrides);
      if (!old) throw entry.fail(['overrides'], `no rule ${rule.overrides} to override${replaced.has(rule.overrides) ? ` (${replaced.get(rule.overrides)} already replaced it)` : ''}`);
      if (old.kind !== rule.kind) throw entry.fail(['overrides'], `${rule.overrides} is a ${old.kind} rule; a ${rule.kind} rule cannot replace it`);
      const clash = rule.id !== old.id ? byId.get(rule.id) : undefined;
      if (clash) throw new RuleError(`${source.display}: rule id ${rule.id} is already defined in ${display(clash.file)}`);
      byId.delete(old.id);
      byId.set(rule.id, rule);
      rules[rules.indexOf(old)] = rule;
      if (old.id !== rule.id) replaced.set(old.id, rule.id);
      continue;
    }
    const previous = byId.get(rule.id);
    if (previous) throw new RuleError(`${source.display}: rule id ${rule.id} is already defined in ${display(previous.file)} (a rule replaces another with overrides: ${rule.id})`);
    byId.set(rule.id, rule);
    rules.push(rule);
  }
  if (replaced.size > 0) {
    redirect(rules, replaced);
    for (const r of rules) byId.set(r.id, r);
  }
  const threadRules = orderThreadRules(
    rules.filter((r): r is ThreadRule => r.kind === 'thread'),
    byId,
    display,
  );
  const cycleRules = rules.filter((r): r is CycleRule => r.kind === 'cycle');
  const localsRules = rules.filter((r): r is LocalsRule => r.kind === 'locals');
  for (const rule of cycleRules) {
    for (const id of rule.requiredRules) {
      if (!byId.has(id)) throw new RuleError(`${display(rule.file)}: match.cycle.rules: unknown rule id ${id}`);
    }
  }
  return { threadRules, cycleRules, localsRules, primitives, lockWrappers, processConditions, byId, files };
}

/** References (`unlessRules`, cycle rules' `rules`) to a replaced id name the rule that replaced it. */
function redirect(rules: Rule[], replaced: Map<string, string>): void {
  const target = (id: string): string => {
    let out = id;
    for (let n = 0; replaced.has(out) && n <= replaced.size; n++) out = replaced.get(out) as string;
    return out;
  };
  for (let i = 0; i < rules.length; i++) {
    const r = rules[i] as Rule;
    if (r.kind === 'thread' && r.unlessRules.some((id) => replaced.has(id))) rules[i] = { ...r, unlessRules: r.unlessRules.map(target) };
    if (r.kind === 'cycle' && r.requiredRules.some((id) => replaced.has(id))) rules[i] = { ...r, requiredRules: r.requiredRules.map(target) };
  }
}

/**
 * The rule set without the rules `--disable` names: rule ids or pack names (each must name one).
 * A rule excluded `unlessRules` no longer excludes; a cycle rule that needs a disabled rule is
 * disabled too (it could never match). The wait primitives stay: they say where a stack's own
 * frames start for every pack.
 */
export function disableRules(loaded: LoadedRules, names: readonly string[]): LoadedRules {
  if (names.length === 0) return loaded;
  const all = [...loaded.threadRules, ...loaded.cycleRules, ...(loaded.localsRules ?? [])];
  const packs = new Set(all.map((r) => r.pack));
  for (const name of names) {
    if (!loaded.byId.has(name) && !packs.has(name)) throw new RuleError(`--disable ${name}: no rule or pack of that name (packs: ${[...packs].sort().join(', ')})`);
  }
  const off = new Set(names);
  const gone = new Set(all.filter((r) => off.has(r.id) || off.has(r.pack)).map((r) => r.id));
  const threadRules = loaded.threadRules
    .filter((r) => !gone.has(r.id))
    .map((r) => (r.unlessRules.some((id) => gone.has(id)) ? { ...r, unlessRules: r.unlessRules.filter((id) => !gone.has(id)) } : r));
  const cycleRules = loaded.cycleRules.filter((r) => !gone.has(r.id) && !r.requiredRules.some((id) => gone.has(id)));
  const localsRules = (loaded.localsRules ?? []).filter((r) => !gone.has(r.id));
  const byId = new Map<string, Rule>([...threadRules, ...cycleRules, ...localsRules].map((r) => [r.id, r]));
  return { ...loaded, threadRules, cycleRules, localsRules, byId };
}

/** Orders rules so each comes after the rules its `unlessRules` name; a cycle among them is an error. */
export function orderThreadRules(rules: ThreadRule[], byId: Map<string, Rule>, display: (p: string) => string): ThreadRule[] {
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

export type ProcessInterner = (raw: FrameConditionRaw, compiled: FrameCondition) => number;

export function meta(raw: { id: string; summary: string; explanation: string; fix: string; sources: string[]; overrides?: string }, pack: string, source: SourceFile) {
  return {
    ...(raw.overrides !== undefined ? { overrides: raw.overrides } : {}),
    id: raw.id,
    pack,
    summary: raw.summary,
    explanation: raw.explanation.trim(),
    fix: raw.fix.trim(),
    sources: raw.sources,
    file: source.path,
    builtin: source.builtin,
  };
}

export type Fail = (path: ReadonlyArray<PropertyKey>, message: string) => RuleError;

/**
 * Checks the id against the file name and returns the rule's pack: the folder's name (a built-in
 * rule names no pack; one that does must name its folder), or a user rule's own `pack:`. A user
 * folder whose name is no pack name (`My Rules`) gives its lower-cased, dashed form (`my-rules`).
 */
export function packOf(id: string, pack: string | undefined, fileId: string, source: SourceFile, fail: Fail): string {
  if (id !== fileId) throw fail(['id'], `the id ${id} must equal the file name (${fileId})`);
  if (source.builtin && pack !== undefined && pack !== source.packFolder) throw fail(['pack'], `pack ${pack} must equal the folder the rule sits in (${source.packFolder})`);
  if (pack !== undefined) return pack;
  const folder = (source.packFolder ?? '')
    .toLowerCase()
    .replace(/[^a-z0-9_-]+/g, '-')
    .replace(/^[-_]+|-+$/g, '');
  return folder === '' ? 'user' : folder;
}

export function compileShape(raw: ShapeRaw, path: PropertyKey[], fail: Fail, intern: ProcessInterner): Shape {
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

export function compileFrame(raw: FrameConditionRaw, path: PropertyKey[], fail: Fail): FrameCondition {
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
export function checkTemplates(raw: ThreadRuleRaw, fail: Fail): void {
  const declared = new Set<string>();
  const shapes: ShapeRaw[] = [raw.match, ...(raw.match.anyOf ?? [])];
  for (const s of shapes) for (const f of s.frames ?? []) for (const a of Object.keys(f.args ?? {})) declared.add(a);
  const check = (text: string | undefined, path: PropertyKey[], resource = false): void => {
    if (text === undefined) return;
    for (const ph of templatePlaceholders(text)) {
      if (ph === UNKNOWN_IDENTITY) {
        if (resource) continue;
        throw fail(path, `{${UNKNOWN_IDENTITY}} stands for a lock the frames do not identify and may only end a resource id (\`gmutex:{${UNKNOWN_IDENTITY}}\`)`);
      }
      const m = PLACEHOLDER_PART.exec(ph);
      if (!m) throw fail(path, `unknown placeholder {${ph}}: use {args.NAME.address}, {args.NAME.symbol} or {args.NAME.value}`);
      if (!declared.has(m[1] as string)) throw fail(path, `placeholder {${ph}} names argument ${m[1]}, which no frame condition of this rule declares under args`);
    }
  };
  (raw.effect.waits ?? []).forEach((w, i) => {
    if ('owner' in w && w.owner !== undefined && (w.ownerQuery !== undefined || w.ownerAnswer !== undefined)) {
      throw fail(['effect', 'waits', i, 'ownerQuery'], 'an owner shape says how gdb finds the holder; give owner or ownerQuery/ownerAnswer, not both');
    }
    check(w.resource, ['effect', 'waits', i, 'resource'], true);
    check(w.description, ['effect', 'waits', i, 'description']);
    if ('ownerQuery' in w) check(w.ownerQuery, ['effect', 'waits', i, 'ownerQuery']);
  });
  (raw.effect.holds ?? []).forEach((h, i) => {
    check(h.resource, ['effect', 'holds', i, 'resource']);
    check(h.description, ['effect', 'holds', i, 'description']);
  });
  check(raw.effect.stateText, ['effect', 'stateText']);
}
