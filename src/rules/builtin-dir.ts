/**
 * The pack layout, shared by load.ts, builtin.ts and precompile.ts. A pack is one folder,
 * `src/rules/packs/<pack>/` for the built-ins (any folder for a user pack), holding:
 *   <id>.yaml        one rule (the file name is its id; the pack name is the folder's)
 *   <id>.txt         its fixture: gdb text with `hit-…` threads it must match and `ok-…` near misses
 *   <id>.edges       its golden: exactly what it yields on the fixture
 *   primitives.yaml  the pack's own wait primitives (optional)
 * and, for other parts of waitgraph, data files named in PACK_DATA_FILES, which are not rules.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { extname, join, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RuleError } from '../errors.js';

export const RULE_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
/** A pack's wait primitives. */
export const PRIMITIVES_FILE = 'primitives.yaml';
/** Files in a pack folder that are pack data, not rules (a rule file is named after a dotted id). */
/** A pack's lock vocabulary for `--source` (what acquires and releases a lock in C and C++ code; rules/source-locks.ts). */
export const SOURCE_LOCKS_FILE = 'source-locks.yaml';
export const PACK_DATA_FILES: ReadonlySet<string> = new Set([PRIMITIVES_FILE, SOURCE_LOCKS_FILE]);

/** Whether a file in a pack folder is a rule file (not a fixture, golden or pack data file). */
export function isRuleFileName(name: string): boolean {
  return RULE_EXTENSIONS.has(extname(name)) && !PACK_DATA_FILES.has(name);
}

/** The folder of built-in packs. tsc does not copy YAML, so it is found from the package root. */
export function builtinRulesDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const candidates = [resolve(here, '../../../src/rules/packs'), resolve(here, 'packs')];
  for (const dir of candidates) if (existsSync(join(dir, 'glibc', PRIMITIVES_FILE))) return dir;
  throw new RuleError(`built-in rules not found (looked in ${candidates.join(', ')})`);
}

/**
 * `join(dir, rel)` for the paths this module makes: `dir` absolute and normalized (what
 * builtinRulesDir returns), `rel` a pack-relative path with `/` separators and no `.` or `..`
 * parts (`glibc/glibc.mutex.wait.yaml`, or '' for `dir` itself). Concatenated, with the same
 * result: path.join normalizes every character, and its cold calls over the ~330 paths of a start
 * (each file's state, each rule's source) were ~3 ms of it (issue 18, figure 4).
 */
export function underDir(dir: string, rel: string): string {
  if (rel === '') return dir;
  return `${dir}${dir.endsWith(sep) ? '' : sep}${sep === '/' ? rel : rel.replaceAll('/', sep)}`;
}

/** The pack folders under `dir`, sorted. */
export function packFolders(dir: string): string[] {
  return readdirSync(dir)
    .sort()
    .filter((pack) => statSync(join(dir, pack)).isDirectory());
}

/** The built-in rule files in load order (pack folders, then files, both sorted), relative to `dir`. */
export function builtinRuleFiles(dir: string): Array<{ path: string; packFolder: string }> {
  const out: Array<{ path: string; packFolder: string }> = [];
  for (const pack of packFolders(dir)) {
    for (const f of readdirSync(join(dir, pack)).sort()) if (isRuleFileName(f)) out.push({ path: `${pack}/${f}`, packFolder: pack });
  }
  return out;
}

/** The built-in packs' primitives files, in pack order, relative to `dir`. */
export function builtinPrimitiveFiles(dir: string): string[] {
  return packFolders(dir)
    .map((pack) => `${pack}/${PRIMITIVES_FILE}`)
    .filter((path) => existsSync(join(dir, path)));
}
