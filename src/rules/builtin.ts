/**
 * The built-in rules, quickly: compiled from `builtin-rules.jsonl`, which the build writes beside
 * this module (build/precompile-rules.ts reads and validates every YAML pack once), so a start
 * loads neither the YAML parser nor zod and parses no YAML (~250 ms of every start before; issue
 * 7, figure 4).
 *
 * The file is JSON lines: what the matcher needs (BuiltinJson), then one line per rule with its
 * texts (summary, explanation, fix, sources: half the bytes). A rule's line is parsed when its
 * text is first read, which a run does only for the rules it reports (parsing them all was ~1.5 ms
 * of every start; issue 18, figure 4).
 *
 * The JSON records each rule file's size and modification time. When it is missing or a rule file
 * changed since the build (a rule edited and only `tsc` run), the YAML is read as before: the
 * result is always the rules on disk, only the speed differs. test/rules/builtin.test.ts checks
 * that both paths give the same rules.
 *
 * Importing this module reads nothing: the JSON and the rule files' states are read on the first
 * call of loadBuiltinRules.
 */
import { readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { RuleError } from '../errors.js';
import { builtinPrimitiveFiles, builtinRulesDir, builtinRuleFiles, packFolders, underDir } from './builtin-dir.js';
import { assembleRules, compileFrame, type Fail, type RuleEntry } from './compile.js';
import type { CycleRuleRaw, FrameConditionRaw, LocalsRuleRaw, ThreadRuleRaw } from './schema.js';
import type { LoadedRules } from './types.js';

/** The file the build writes next to this module. */
export const BUILTIN_JSON = 'builtin-rules.jsonl';

/** Where that file is (beside the built builtin.js). */
export function builtinJsonUrl(): URL {
  return new URL(BUILTIN_JSON, import.meta.url);
}

export interface BuiltinJson {
  version: 4;
  /**
   * The packs folder ('') and each pack folder, with its modification time at build time: a file
   * or folder added, removed or renamed in a folder changes that folder's time, so a start checks
   * these and the files below without listing any folder (~2 ms of every start, issue 18 figure 4).
   */
  dirs: Array<{ path: string; mtimeMs: number }>;
  /** Every primitives file and rule file, relative to the packs folder, with what they were at build time. */
  files: Array<{ path: string; size: number; mtimeMs: number }>;
  /** Each pack's primitives file (`glibc/primitives.yaml`) and its validated conditions, in pack order. */
  primitives: Array<{ path: string; conditions: FrameConditionRaw[]; lockWrappers: FrameConditionRaw[] }>;
  /** Each rule's validated data without its texts (RuleTexts, the file's second line, in the same order). */
  rules: Array<{ path: string; packFolder: string } & ({ kind: 'thread'; raw: Untexted<ThreadRuleRaw> } | { kind: 'cycle'; raw: Untexted<CycleRuleRaw> } | { kind: 'locals'; raw: Untexted<LocalsRuleRaw> })>;
}

/** The texts of a rule, which only a report of it reads: the file holds one line of them per rule, after the first. */
export type RuleTexts = Pick<ThreadRuleRaw, TextKey>;
type TextKey = 'summary' | 'explanation' | 'fix' | 'sources';
type Untexted<T> = Omit<T, TextKey>;

/** The file's lines: the matcher's data, then each rule's texts, in the order of `json.rules`. */
export function builtinJsonLines(json: BuiltinJson, texts: RuleTexts[]): string {
  return [json, ...texts].map((line) => `${JSON.stringify(line)}\n`).join('');
}

/** A rule's data with its texts split off (the build's half of builtinJsonLines). */
export function splitTexts<T extends RuleTexts>(raw: T): { raw: Untexted<T>; texts: RuleTexts } {
  const { summary, explanation, fix, sources, ...rest } = raw;
  return { raw: rest, texts: { summary, explanation, fix, sources } };
}

/** The parsed first line, and the texts' lines as text (a rule's line is parsed when its text is first read). */
interface FreshJson {
  json: BuiltinJson;
  texts: string;
}

/**
 * Each rule's texts from its line of `texts`, parsed on first use, with the explanation and the
 * fix trimmed as meta() (compile.ts) trims those of a rule read from YAML.
 */
function textReader(texts: string): (index: number) => RuleTexts {
  let lines: string[] | null = null;
  const parsed: Array<RuleTexts | undefined> = [];
  return (index) => {
    const cached = parsed[index];
    if (cached !== undefined) return cached;
    lines ??= texts.split('\n');
    const line = lines[index];
    if (line === undefined || line === '') throw new RuleError(`built-in rules JSON: no texts for rule ${index + 1} (run npm run build)`);
    let read: RuleTexts;
    try {
      read = JSON.parse(line) as RuleTexts;
    } catch (error) {
      throw new RuleError(`built-in rules JSON: the texts of rule ${index + 1} do not parse (${(error as Error).message}; run npm run build)`);
    }
    return (parsed[index] = { ...read, explanation: read.explanation.trim(), fix: read.fix.trim() });
  };
}

/** The files the JSON must describe: the primitives files, then every rule file in load order. */
export function builtinFileStates(dir: string): BuiltinJson['files'] {
  return [...builtinPrimitiveFiles(dir), ...builtinRuleFiles(dir).map((f) => f.path)].map((path) => {
    const stat = statSync(underDir(dir, path));
    return { path, size: stat.size, mtimeMs: stat.mtimeMs };
  });
}

/** The packs folder and its pack folders with their modification times (see BuiltinJson.dirs). */
export function builtinDirStates(dir: string): BuiltinJson['dirs'] {
  return ['', ...packFolders(dir)].map((path) => ({ path, mtimeMs: statSync(underDir(dir, path)).mtimeMs }));
}

/** The compiled JSON when it exists and matches the rule files on disk; else null. */
function readFreshJson(dir: string): FreshJson | null {
  let json: BuiltinJson;
  let texts: string;
  try {
    const text = readFileSync(builtinJsonUrl(), 'utf8');
    const end = text.indexOf('\n');
    json = JSON.parse(text.slice(0, end)) as BuiltinJson;
    texts = text.slice(end + 1);
  } catch {
    return null;
  }
  if (json.version !== 4 || !json.primitives.every((p) => Array.isArray(p.lockWrappers))) return null;
  return statesMatch(json, dir) ? { json, texts } : null;
}

/** Whether the folders and files under `dir` are as `json` recorded them (nothing added, removed or changed). */
export function statesMatch(json: Pick<BuiltinJson, 'dirs' | 'files'>, dir: string): boolean {
  try {
    // The same folders hold the same names (their times), and every file is as it was.
    for (const d of json.dirs) if (statSync(underDir(dir, d.path)).mtimeMs !== d.mtimeMs) return false;
    for (const f of json.files) {
      const stat = statSync(underDir(dir, f.path));
      if (stat.size !== f.size || stat.mtimeMs !== f.mtimeMs) return false;
    }
  } catch {
    return false;
  }
  return true;
}

function compileJson({ json, texts }: FreshJson, dir: string): LoadedRules {
  // Validated at build time; a failure here means the JSON and this code disagree.
  const failFor =
    (shown: string): Fail =>
    (path, message) =>
      new RuleError(`${shown}: ${path.join('.')}: ${message} (built-in rules JSON; run npm run build)`);
  const primitives = json.primitives.flatMap((file) => file.conditions.map((f, i) => compileFrame(f, ['primitives', i], failFor(file.path))));
  const lockWrappers = json.primitives.flatMap((file) => file.lockWrappers.map((f, i) => compileFrame(f, ['lockWrappers', i], failFor(file.path))));
  // Compiled with empty texts; each rule's texts are then read through from the second line.
  const entries: RuleEntry[] = json.rules.map((r) => {
    const source = { path: underDir(dir, r.path), display: r.path, builtin: true, packFolder: r.packFolder };
    if (r.kind === 'locals') return { source, kind: 'locals', raw: { ...r.raw, ...NO_TEXTS }, fail: failFor(r.path) };
    return r.kind === 'thread'
      ? { source, kind: 'thread', raw: { ...r.raw, ...NO_TEXTS }, fail: failFor(r.path), templatesChecked: true }
      : { source, kind: 'cycle', raw: { ...r.raw, ...NO_TEXTS }, fail: failFor(r.path) };
  });
  const loaded = assembleRules(
    entries,
    primitives,
    entries.map((e) => e.source.path),
    (p) => p,
    lockWrappers,
  );
  const textsOf = textReader(texts);
  const indexOf = new Map(json.rules.map((r, i) => [r.raw.id, i]));
  for (const rule of loaded.byId.values()) {
    const index = indexOf.get(rule.id) as number;
    Object.defineProperties(rule, {
      summary: { get: () => textsOf(index).summary, enumerable: true, configurable: true },
      explanation: { get: () => textsOf(index).explanation, enumerable: true, configurable: true },
      fix: { get: () => textsOf(index).fix, enumerable: true, configurable: true },
      sources: { get: () => textsOf(index).sources, enumerable: true, configurable: true },
    });
  }
  return loaded;
}

/** What a rule compiles with before its texts are read through (compileJson). */
const NO_TEXTS: RuleTexts = Object.freeze({ summary: '', explanation: '', fix: '', sources: Object.freeze([]) as unknown as string[] });

/** The compiled built-ins, made on first use (compiled rules are never modified). */
let loaded: { rules: LoadedRules; fromJson: boolean } | null = null;

/** The built-in rule packs, compiled (once per process). */
export function loadBuiltinRules(): LoadedRules {
  loaded ??= compileBuiltins();
  return loaded.rules;
}

/** True when the built-ins came from the build's JSON (for tests and the benchmark). */
export function builtinRulesFromJson(): boolean {
  loadBuiltinRules();
  return (loaded as { fromJson: boolean }).fromJson;
}

function compileBuiltins(): { rules: LoadedRules; fromJson: boolean } {
  const dir = builtinRulesDir();
  const fresh = readFreshJson(dir);
  if (fresh !== null) return { rules: compileJson(fresh, dir), fromJson: true };
  return { rules: yamlReader().loadRules(), fromJson: false };
}

/**
 * The YAML reader, only when the JSON cannot be used: it loads the YAML parser and zod (~80 ms).
 * Required, not imported, so that this stays synchronous (Node ≥ 20.19 requires ES modules); the
 * CLI bundle turns the call into its own lazily initialised copy (build/bundle.ts).
 */
function yamlReader(): typeof import('./load.js') {
  try {
    return createRequire(import.meta.url)('./load.js') as typeof import('./load.js');
  } catch (error) {
    throw new RuleError(`the built-in rules changed since the build and cannot be read from YAML here (${(error as Error).message.split('\n')[0]}); run npm run build`);
  }
}
