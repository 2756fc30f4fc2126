/**
 * Reads and validates source-locks.yaml files (YAML, zod): at build time for the built-in packs
 * (build/precompile-rules.ts stores the result as JSON), and at run time only for a user's pack
 * or a built-in file changed since the build (rules/source-locks.ts decides).
 */
import { z } from 'zod';
import type { SourceLockVocabulary } from '../model/source.js';
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
  guardMethods: z.array(z.strictObject({ methods: Names, kind: Kind })).default([]),
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

/** The vocabulary of each file, merged in order; one line naming file, line and field on a bad one. */
export function readVocabularies(files: ReadonlyArray<{ path: string; shown: string }>, into: SourceLockVocabulary): SourceLockVocabulary {
  const merged = into;
  for (const { path, shown } of files) {
    const file = readYaml(path, shown);
    const parsed = SourceLocksSchema.safeParse(file.data ?? {});
    if (!parsed.success) throw zodError(shown, file, parsed.error);
    const v = parsed.data;
    for (const c of v.calls) merged.calls.push({ acquire: c.acquire, release: c.release, kind: c.kind, lockArg: c.lockArg, ...(c.symbol ? { symbol: c.symbol } : {}), ...(c.fixed ? { fixed: c.fixed } : {}) });
    merged.releasing.push(...v.releasing);
    merged.methods.push(...v.methods);
    merged.guardMethods.push(...v.guardMethods);
    merged.guards.push(...v.guards);
    merged.scoped.push(...v.scoped);
    for (const [name, list] of Object.entries(v.callees)) merged.callees[name] = [...(merged.callees[name] ?? []), ...list];
  }
  return merged;
}
