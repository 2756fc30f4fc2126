/**
 * Build step (`npm run build` runs it after tsc): reads and validates every built-in rule file
 * with the same reader as `loadRules()` and writes the validated data as `builtin-rules.jsonl`
 * beside rules/builtin.js, which compiles it at startup without YAML or zod. A rule that does not
 * load fails the build with the loader's one-line error.
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { BUILTIN_JSON, builtinDirStates, builtinFileStates, builtinJsonLines, builtinJsonUrl, splitTexts, type BuiltinJson, type RuleTexts } from '../rules/builtin.js';
import { builtinPrimitiveFiles, builtinRuleFiles } from '../rules/builtin-dir.js';
import { builtinRulesDir, loadRules, readPrimitives, readRuleFile } from '../rules/load.js';
import { builtinVocabularyFiles, sourceLocksJsonUrl, type SourceLocksJson } from '../rules/source-locks.js';
import { readVocabularies } from '../rules/source-locks-yaml.js';
import { readFileSync } from 'node:fs';

function precompile(): string {
  const dir = builtinRulesDir();
  // The whole set must load (ids unique, unlessRules resolvable, …) before it is stored.
  loadRules();
  const texts: RuleTexts[] = [];
  const json: BuiltinJson = {
    version: 4,
    dirs: builtinDirStates(dir),
    files: builtinFileStates(dir),
    primitives: builtinPrimitiveFiles(dir).map((path) => {
      const read = readPrimitives(join(dir, path), path);
      return { path, conditions: read.primitives, lockWrappers: read.lockWrappers };
    }),
    rules: builtinRuleFiles(dir).map(({ path, packFolder }) => {
      const entry = readRuleFile({ path: join(dir, path), display: path, builtin: true, packFolder });
      // The texts go to the file's second line (rules/builtin.ts reads them when a report needs them).
      const keep = <T extends RuleTexts>(raw: T) => {
        const split = splitTexts(raw);
        texts.push(split.texts);
        return split.raw;
      };
      if (entry.kind === 'locals') return { path, packFolder, kind: 'locals', raw: keep(entry.raw) };
      return entry.kind === 'thread' ? { path, packFolder, kind: 'thread', raw: keep(entry.raw) } : { path, packFolder, kind: 'cycle', raw: keep(entry.raw) };
    }),
  };
  writeFileSync(builtinJsonUrl(), builtinJsonLines(json, texts));
  // The packs' lock vocabulary for --source (rules/source-locks.ts), with each file's text.
  const vocabularyFiles = builtinVocabularyFiles(dir);
  const locks: SourceLocksJson = {
    version: 2,
    files: vocabularyFiles.map((path) => ({ path, text: readFileSync(join(dir, path), 'utf8') })),
    vocabulary: readVocabularies(vocabularyFiles.map((path) => ({ path: join(dir, path), shown: path })), { calls: [], releasing: [], methods: [], guardMethods: [], guards: [], scoped: [], callees: {} }),
  };
  writeFileSync(sourceLocksJsonUrl(), `${JSON.stringify(locks)}\n`);
  return `${json.rules.length} rules, ${vocabularyFiles.length} lock vocabularies`;
}

if (process.env.NODE_TEST_CONTEXT === undefined) {
  try {
    const what = precompile();
    process.stdout.write(`built-in rules compiled to dist/src/rules/${BUILTIN_JSON} (${what})\n`);
  } catch (error) {
    process.stderr.write(`precompile: ${(error as Error).message}\n`);
    process.exitCode = 1;
  }
}
