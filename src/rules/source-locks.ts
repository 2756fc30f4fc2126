/**
 * The lock vocabulary `--source` reads code with: each pack's source-locks.yaml (the built-in
 * packs', then those in the folders `--rules` names, so a user declares their own
 * `spin_lock`-style calls in their pack). The built-in files are read from the JSON the build
 * wrote (build/precompile-rules.ts) while their text is what it was then; the YAML reader and zod
 * (source-locks-yaml.ts, ~80 ms of a start) load only for a user's file or a changed built-in one.
 */
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { createRequire } from 'node:module';
import { basename, join, relative, resolve } from 'node:path';
import { RuleError } from '../errors.js';
import type { SourceLockVocabulary } from '../model/source.js';
import { builtinRulesDir, packFolders, SOURCE_LOCKS_FILE } from './builtin-dir.js';

export const SOURCE_LOCKS_JSON = 'builtin-source-locks.json';

export function sourceLocksJsonUrl(): URL {
  return new URL(SOURCE_LOCKS_JSON, import.meta.url);
}

export interface SourceLocksJson {
  /** 2 since the vocabulary has guardMethods (Rust); a build's older file is read from YAML again. */
  version: 2;
  /** The built-in files (relative to the packs folder) and their text at build time. */
  files: Array<{ path: string; text: string }>;
  vocabulary: SourceLockVocabulary;
}

export interface SourceLocksOptions {
  /** The `--rules` files and folders: each folder's source-locks.yaml files (any depth) join the built-in ones. */
  extraFiles?: readonly string[];
  cwd: string;
}

const empty = (): SourceLockVocabulary => ({ calls: [], releasing: [], methods: [], guardMethods: [], guards: [], scoped: [], callees: {} });

/** The built-in packs' vocabulary files, relative to the packs folder, in pack order. */
export function builtinVocabularyFiles(dir: string): string[] {
  return packFolders(dir)
    .map((pack) => `${pack}/${SOURCE_LOCKS_FILE}`)
    .filter((path) => existsSync(join(dir, path)));
}

/** Every pack's vocabulary, merged: built-in packs in pack order, then the user's. */
export function loadSourceLocks(options: SourceLocksOptions): SourceLockVocabulary {
  const dir = builtinRulesDir();
  const builtin = builtinVocabularyFiles(dir);
  const user: string[] = [];
  for (const given of options.extraFiles ?? []) {
    const path = resolve(options.cwd, given);
    if (!existsSync(path)) continue; // the rule loader says so
    if (statSync(path).isDirectory()) user.push(...findVocabularies(path));
    else if (basename(path) === SOURCE_LOCKS_FILE) user.push(path);
  }
  const shown = (path: string): string => {
    const rel = relative(options.cwd, path);
    return rel.startsWith('..') || rel === '' ? path : rel;
  };
  let merged = fromBuild(dir, builtin);
  if (merged === null || user.length > 0) {
    const { readVocabularies } = createRequire(import.meta.url)('./source-locks-yaml.js') as typeof import('./source-locks-yaml.js');
    merged ??= readVocabularies(builtin.map((path) => ({ path: join(dir, path), shown: shown(join(dir, path)) })), empty());
    merged = readVocabularies(user.map((path) => ({ path, shown: shown(path) })), merged);
  }
  if (merged.calls.length + merged.methods.length + merged.guardMethods.length + merged.guards.length + merged.scoped.length === 0) {
    throw new RuleError(`no lock vocabulary found (${SOURCE_LOCKS_FILE} in the packs)`);
  }
  return merged;
}

/** The build's vocabulary, when every built-in file still reads as it did then; else null. */
function fromBuild(dir: string, files: readonly string[]): SourceLockVocabulary | null {
  let json: SourceLocksJson;
  try {
    json = JSON.parse(readFileSync(sourceLocksJsonUrl(), 'utf8')) as SourceLocksJson;
  } catch {
    return null;
  }
  if (json.version !== 2 || json.files.length !== files.length) return null;
  for (let i = 0; i < files.length; i++) {
    const then = json.files[i] as SourceLocksJson['files'][number];
    if (then.path !== files[i]) return null;
    try {
      if (readFileSync(join(dir, then.path), 'utf8') !== then.text) return null;
    } catch {
      return null;
    }
  }
  return json.vocabulary;
}

function findVocabularies(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(dir).sort()) {
    const path = join(dir, entry);
    if (statSync(path).isDirectory()) out.push(...findVocabularies(path));
    else if (entry === SOURCE_LOCKS_FILE) out.push(path);
  }
  return out;
}
