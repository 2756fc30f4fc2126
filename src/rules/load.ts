/**
 * Loads rule files: the built-in packs (src/rules/packs/<pack>/<id>.yaml, shipped as data, not
 * compiled; layout in builtin-dir.ts) plus user files and pack folders given with `--rules`. Every problem is a RuleError with one line that
 * names the file, the line and the field: `my.rule.yaml:7: match.frames[0].function: …`.
 * Reading and validating (YAML, zod) is done here, compiling in compile.ts; the CLI takes the
 * built-ins from builtin.ts, which compiles the JSON the build writes and loads neither library.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { isMap, isPair, isScalar, isSeq, LineCounter, parseDocument, type Document } from 'yaml';
import { RuleError } from '../errors.js';
import {
  CycleRuleSchema,
  FrameConditionSchema,
  LocalsRuleSchema,
  NamePatternSchema,
  ThreadRuleSchema,
  type FrameConditionRaw,
} from './schema.js';
import type { FrameCondition, LoadedRules } from './types.js';
import { assembleRules, compileFrame, type Fail, type RuleEntry, type SourceFile } from './compile.js';
import { builtinPrimitiveFiles, builtinRulesDir, isRuleFileName, packFolders, PRIMITIVES_FILE } from './builtin-dir.js';
import { z } from 'zod';

export { builtinRulesDir };

export interface LoadRulesOptions {
  /** User rule files or folders of rule files (`--rules`), loaded after the built-ins. */
  extraFiles?: string[];
  /** Skip the built-in packs (tests of single rules). */
  noBuiltins?: boolean;
  /** Load only these built-in packs (folder names). */
  packs?: string[];
  /**
   * Working directory for relative paths and for error messages. Without it, `path.resolve`'s own
   * default (the process's directory) applies; only cli/main.ts reads `process` itself.
   */
  cwd?: string;
}

export function loadRules(options: LoadRulesOptions = {}): LoadedRules {
  const cwd = resolve(options.cwd ?? '.');
  const display = (p: string): string => {
    const rel = relative(cwd, p);
    return rel.startsWith('..') || rel === '' ? p : rel;
  };
  const sources: SourceFile[] = [];
  const dir = builtinRulesDir();
  const primitives: FrameCondition[] = [];
  const lockWrappers: FrameCondition[] = [];
  const addPrimitives = (loaded: { primitives: FrameCondition[]; lockWrappers: FrameCondition[] }): void => {
    primitives.push(...loaded.primitives);
    lockWrappers.push(...loaded.lockWrappers);
  };
  for (const f of builtinPrimitiveFiles(dir)) addPrimitives(loadPrimitives(join(dir, f), display(join(dir, f))));
  if (!options.noBuiltins) {
    for (const pack of packFolders(dir)) {
      if (options.packs && !options.packs.includes(pack)) continue;
      const packDir = join(dir, pack);
      for (const f of readdirSync(packDir).sort()) {
        if (isRuleFileName(f)) sources.push({ path: join(packDir, f), display: display(join(packDir, f)), builtin: true, packFolder: pack });
      }
    }
  }
  for (const given of options.extraFiles ?? []) {
    const path = resolve(cwd, given);
    if (!existsSync(path)) throw new RuleError(`${given}: rule file not found`);
    const files = statSync(path).isDirectory() ? listRuleFiles(path, given) : [path];
    if (files.length === 0) throw new RuleError(`${given}: no rule files (.yaml, .yml, .json) in this folder`);
    for (const f of files) {
      // A user pack's own wait primitives join the built-in ones.
      if (basename(f) === PRIMITIVES_FILE) addPrimitives(loadPrimitives(f, display(f)));
      else sources.push({ path: f, display: display(f), builtin: false, packFolder: basename(dirname(f)) });
    }
  }

  const entries = (function* () {
    for (const source of sources) yield readRuleFile(source);
  })();
  return assembleRules(entries, primitives, sources.map((s) => s.path), display, lockWrappers);
}

/** The rule files and primitives files in a user's folder and its subfolders (each folder a pack). */
function listRuleFiles(dir: string, shown: string): string[] {
  const out: string[] = [];
  for (const entry of readFolder(dir, shown).sort()) {
    const p = join(dir, entry);
    const entryShown = join(shown, entry);
    let isFolder: boolean;
    try {
      isFolder = statSync(p).isDirectory();
    } catch (error) {
      // A dangling link or an entry gone meanwhile: a rule the user meant to load is missing.
      throw new RuleError(`${entryShown}: cannot read rule file: ${reason(error)}`);
    }
    if (isFolder) out.push(...listRuleFiles(p, entryShown));
    else if (isRuleFileName(entry) || entry === PRIMITIVES_FILE) out.push(p);
  }
  return out;
}

function readFolder(dir: string, shown: string): string[] {
  try {
    return readdirSync(dir);
  } catch (error) {
    throw new RuleError(`${shown}: cannot read rule folder: ${reason(error)}`);
  }
}

/** `permission denied (EACCES)`, `no such file or directory (ENOENT)`: the errno, in words. */
function reason(error: unknown): string {
  const code = (error as NodeJS.ErrnoException).code;
  const words: Record<string, string> = { EACCES: 'permission denied', EPERM: 'permission denied', ENOENT: 'no such file or directory (a dangling link?)', ELOOP: 'a symbolic link loop', ENOTDIR: 'not a folder' };
  return code ? `${words[code] ?? (error as Error).message} (${code})` : (error as Error).message;
}

interface ParsedFile {
  doc: Document;
  lines: LineCounter;
  data: unknown;
}

export function readYaml(path: string, shown: string): ParsedFile {
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

export function zodError(shown: string, file: ParsedFile, error: z.ZodError): RuleError {
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

/** Reads and validates one rule file (YAML or JSON); compile.ts compiles it. */
export function readRuleFile(source: SourceFile): RuleEntry {
  const file = readYaml(source.path, source.display);
  const data = file.data;
  const fail = (path: ReadonlyArray<PropertyKey>, message: string): RuleError => {
    const line = lineOf(file, path);
    return new RuleError(`${source.display}${line ? `:${line}` : ''}: ${formatPath(path)}: ${message}`);
  };
  if (typeof data !== 'object' || data === null || Array.isArray(data)) throw new RuleError(`${source.display}: a rule file holds one rule (a mapping with id, pack, summary, match, effect, …)`);
  const isCycle = typeof (data as { match?: unknown }).match === 'object' && (data as { match: object | null }).match !== null && 'cycle' in (data as { match: object }).match;
  if (isCycle) {
    const parsed = CycleRuleSchema.safeParse(data);
    if (!parsed.success) throw zodError(source.display, file, parsed.error);
    return { source, kind: 'cycle', raw: parsed.data, fail };
  }
  // A locals rule reads a `bt full` local (match.local) instead of frames.
  const isLocals = typeof (data as { match?: unknown }).match === 'object' && (data as { match: object | null }).match !== null && 'local' in (data as { match: object }).match;
  if (isLocals) {
    const parsed = LocalsRuleSchema.safeParse(data);
    if (!parsed.success) throw zodError(source.display, file, parsed.error);
    return { source, kind: 'locals', raw: parsed.data, fail };
  }
  const parsed = ThreadRuleSchema.safeParse(data);
  if (!parsed.success) throw zodError(source.display, file, parsed.error);
  return { source, kind: 'thread', raw: parsed.data, fail };
}

/**
 * A lock wrapper is skipped by its name (see LoadedRules.lockWrappers), and where the name says
 * nothing (`?? ()`, a library without symbols) by its library or file too; no argument tests.
 */
const LockWrapperSchema = z.strictObject({ function: NamePatternSchema, library: NamePatternSchema.optional(), file: NamePatternSchema.optional() });

const PrimitivesSchema = z
  .strictObject({
    primitives: z.array(FrameConditionSchema).min(1).optional(),
    /** Lock and runtime library frames skipped after the primitives to find where a thread waits. */
    lockWrappers: z.array(LockWrapperSchema).min(1).optional(),
  })
  .refine((p) => p.primitives !== undefined || p.lockWrappers !== undefined, 'a primitives file needs primitives or lockWrappers');

/** A primitives file's two lists, validated and not compiled (build/precompile-rules.ts stores them as JSON). */
export interface PrimitivesRaw {
  primitives: FrameConditionRaw[];
  lockWrappers: FrameConditionRaw[];
}

function loadPrimitives(path: string, shown: string): { primitives: FrameCondition[]; lockWrappers: FrameCondition[] } {
  const file = readYaml(path, shown);
  const parsed = PrimitivesSchema.safeParse(file.data);
  if (!parsed.success) throw zodError(shown, file, parsed.error);
  const fail: Fail = (p, message) => {
    const line = lineOf(file, p);
    return new RuleError(`${shown}${line ? `:${line}` : ''}: ${formatPath(p)}: ${message}`);
  };
  return {
    primitives: (parsed.data.primitives ?? []).map((f, i) => compileFrame(f, ['primitives', i], fail)),
    lockWrappers: (parsed.data.lockWrappers ?? []).map((f, i) => compileFrame(f, ['lockWrappers', i], fail)),
  };
}

/** The validated primitives of a pack's primitives.yaml, not compiled (build/precompile-rules.ts stores them as JSON). */
export function readPrimitives(path: string, shown: string): PrimitivesRaw {
  const file = readYaml(path, shown);
  const parsed = PrimitivesSchema.safeParse(file.data);
  if (!parsed.success) throw zodError(shown, file, parsed.error);
  return { primitives: parsed.data.primitives ?? [], lockWrappers: parsed.data.lockWrappers ?? [] };
}
