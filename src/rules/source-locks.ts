/**
 * The lock vocabulary `--source` reads C and C++ code with: each pack's source-locks.yaml (the
 * built-in packs', then those in the folders `--rules` names, so a user declares their own
 * `spin_lock`-style calls in their pack). Read only when `--source` is given: it loads the YAML
 * reader and zod, which a plain run never needs.
 */
import { existsSync, readdirSync, statSync } from 'node:fs';
import { basename, join, relative, resolve } from 'node:path';
import { z } from 'zod';
import { RuleError } from '../errors.js';
import type { SourceLockVocabulary } from '../model/source.js';
import { builtinRulesDir, packFolders, SOURCE_LOCKS_FILE } from './builtin-dir.js';
import { readYaml, zodError } from './load.js';

const Names = z.array(z.string().min(1)).min(1);
/** The resource kind, as the rules name waits on it: `mutex`, `rwlock`. */
const Kind = z.string().regex(/^[a-z][a-z0-9-]*$/, 'a resource kind is lower-case letters, digits and dashes (mutex, rwlock)');

const SourceLocksSchema = z.strictObject({
  calls: z
    .array(
      z.strictObject({
        acquire: Names,
        release: z.array(z.string().min(1)).default([]),
        kind: Kind,
        lockArg: z.union([z.number().int().min(0), z.literal('all')]).default(0),
        symbol: z.string().includes('{arg}', { message: 'symbol must contain {arg} (the argument the macro pastes)' }).optional(),
        fixed: Names.optional(),
      }),
    )
    .default([]),
  releasing: z
    .array(z.strictObject({ calls: z.array(z.string().min(1)).default([]), methods: z.array(z.string().min(1)).default([]), lockArg: z.number().int().min(0) }))
    .default([]),
  methods: z.array(z.strictObject({ acquire: Names, release: z.array(z.string().min(1)).default([]), kind: Kind })).default([]),
  guards: z
    .array(
      z.strictObject({
        types: Names,
        kind: Kind,
        allArgs: z.boolean().default(false),
        deferred: z.array(z.string().min(1)).default([]),
        release: z.array(z.string().min(1)).default([]),
        retake: z.array(z.string().min(1)).default([]),
      }),
    )
    .default([]),
  scoped: z.array(z.strictObject({ calls: Names, kind: Kind, block: z.enum(['enclosing', 'following']).default('enclosing') })).default([]),
  callees: z.record(z.string().min(1), Names).default({}),
});

export interface SourceLocksOptions {
  /** The `--rules` files and folders: each folder's source-locks.yaml files (any depth) join the built-in ones. */
  extraFiles?: readonly string[];
  cwd: string;
}

/** Every pack's vocabulary, merged: built-in packs in pack order, then the user's. */
export function loadSourceLocks(options: SourceLocksOptions): SourceLockVocabulary {
  const merged: SourceLockVocabulary = { calls: [], releasing: [], methods: [], guards: [], scoped: [], callees: {} };
  const dir = builtinRulesDir();
  const files = packFolders(dir)
    .map((pack) => join(dir, pack, SOURCE_LOCKS_FILE))
    .filter((path) => existsSync(path));
  for (const given of options.extraFiles ?? []) {
    const path = resolve(options.cwd, given);
    if (!existsSync(path)) continue; // the rule loader says so
    if (statSync(path).isDirectory()) files.push(...findVocabularies(path));
    else if (basename(path) === SOURCE_LOCKS_FILE) files.push(path);
  }
  for (const path of files) {
    const rel = relative(options.cwd, path);
    const shown = rel.startsWith('..') || rel === '' ? path : rel;
    const file = readYaml(path, shown);
    const parsed = SourceLocksSchema.safeParse(file.data ?? {});
    if (!parsed.success) throw zodError(shown, file, parsed.error);
    const v = parsed.data;
    for (const c of v.calls) merged.calls.push({ acquire: c.acquire, release: c.release, kind: c.kind, lockArg: c.lockArg, ...(c.symbol ? { symbol: c.symbol } : {}), ...(c.fixed ? { fixed: c.fixed } : {}) });
    merged.releasing.push(...v.releasing);
    merged.methods.push(...v.methods);
    merged.guards.push(...v.guards);
    merged.scoped.push(...v.scoped);
    for (const [name, list] of Object.entries(v.callees)) merged.callees[name] = [...(merged.callees[name] ?? []), ...list];
  }
  if (merged.calls.length + merged.methods.length + merged.guards.length + merged.scoped.length === 0) {
    throw new RuleError(`no lock vocabulary found (${SOURCE_LOCKS_FILE} in the packs)`);
  }
  return merged;
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
