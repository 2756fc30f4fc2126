/** Where the built-in rule packs live and which files in them are rules (shared by load.ts and builtin.ts). */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { extname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { RuleError } from '../errors.js';

export const RULE_EXTENSIONS = new Set(['.yaml', '.yml', '.json']);
export const PRIMITIVES_FILE = 'wait-primitives.yaml';

/** The folder of built-in packs. tsc does not copy YAML, so it is found from the package root. */
export function builtinRulesDir(): string {
  const here = fileURLToPath(new URL('.', import.meta.url));
  const candidates = [resolve(here, '../../../src/rules/builtin'), resolve(here, 'builtin')];
  for (const dir of candidates) if (existsSync(join(dir, PRIMITIVES_FILE))) return dir;
  throw new RuleError(`built-in rules not found (looked in ${candidates.join(', ')})`);
}

/** The built-in rule files in load order (pack folders, then files, both sorted), relative to `dir`. */
export function builtinRuleFiles(dir: string): Array<{ path: string; packFolder: string }> {
  const out: Array<{ path: string; packFolder: string }> = [];
  for (const pack of readdirSync(dir).sort()) {
    if (!statSync(join(dir, pack)).isDirectory()) continue;
    for (const f of readdirSync(join(dir, pack)).sort()) if (RULE_EXTENSIONS.has(extname(f))) out.push({ path: `${pack}/${f}`, packFolder: pack });
  }
  return out;
}
