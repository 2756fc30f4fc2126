/**
 * Build step (`npm run build`, after tsc): bundles the CLI that tsc wrote to dist/src into one
 * CommonJS script and saves V8's code cache of it, so a start compiles almost nothing.
 *
 * Why: node's ESM loader resolves, reads, compiles and links every module separately (~60 of
 * them, about a third of a start before the first bundle), and Node 20 caches no compiled code for
 * ES modules. One CommonJS script can be run through `vm.Script` with V8's code cache
 * (cli/run-bundle.ts): the founding report ~150 → ~125 ms, `node -e 0` being ~55 ms here
 * (issue 7 figure 4, issue 4's attach figure).
 *
 * - Two scripts: dist/src/cli/waitgraph-early.cjs holds live/early.ts and the modules it reaches
 *   (errors, the gdb driver: ~30 kB), waitgraph.cjs the rest of the CLI from cli/main.ts, which
 *   `require`s those modules from the early part (`waitgraph-early:live/early.js`; run-bundle.ts
 *   resolves them) instead of keeping copies: one early gdb, one set of error classes. The early
 *   part runs first, so `attach`/`core` start gdb before the 2 MB rest is loaded (issue 4's
 *   figure: one script of everything measured ~0.05 worse than the earlier ESM chunks).
 * - A third script, dist/src/cli/waitgraph-rare.cjs, holds what only `check`, a user rule file and
 *   a user lock vocabulary need: zod, yaml, rules/load.ts, rules/source-locks-yaml.ts,
 *   cli/commands/check.ts and the modules only they reach (~1.2 MB). The rest requires those
 *   entries as `waitgraph-rare:KEY`, and run-bundle.ts reads and runs the script the first time;
 *   what the rare part needs from the rest (the analysis, the rule compiler, commander) it
 *   requires as `waitgraph-rest:PATH` from the rest's `restModules`, so every module has one
 *   instance. A start on a dump then reads 1.3 MB instead of 2.5 MB, deserialises a 0.9 MB cache
 *   instead of 1.1 MB and makes none of zod's namespaces (issue 18, figure 4: ~3 ms).
 * - Each script's first line carries the same fresh build id; dist/src/cli/main.js (what
 *   bin/waitgraph.js imports) is replaced by a loader that runs them through run-bundle.js. Every
 *   other dist/src module stays as tsc wrote it (tests and library users import those). A later
 *   plain `tsc` rewrites main.js with the unbundled module, so the CLI never runs a bundle older
 *   than dist/src.
 * - The code caches (`*.cjs.cache`) are saved by running the bundled CLI once on the founding
 *   report: V8 then holds the bytecode of every function that run compiled (parser, rules,
 *   analysis, text report), not only the top level; the rare part's by a second run, `check` with
 *   a user rule file. Each starts with the build id, so a cache never outlives its bundle.
 * - Lazy imports stay lazy: esbuild turns `import('./x.js')` of a bundled module into an
 *   initialiser called on first use, so a command's or a format's modules still run only when
 *   needed (check's zod, the gdb driver, Markdown …).
 * - No top-level await may reach the bundle (CommonJS has none): cli/main.ts runs in a function;
 *   parse/chevrotain.ts (which awaits a dynamic import to find Chevrotain's single-file build) is
 *   replaced by a static re-export of that file, so Chevrotain is bundled too. esbuild refuses
 *   any other top-level await, so the build fails loudly rather than produce a different program.
 * - A module required on first use (`createRequire(import.meta.url)('./load.js')` in
 *   rules/builtin.ts: the YAML reader, only when the build's JSON cannot be used) becomes
 *   `require('./load.js')`, which esbuild resolves to its own lazily initialised copy: one set of
 *   error classes, nothing read from dist/src at run time.
 * - `import.meta.url` in a bundled module is rewritten to that module's own URL in dist/src
 *   (relative to the bundle's file), so files found relative to it (built-in rules JSON, rule
 *   packs, package.json) are found as before.
 * - @viz-js/viz (SVG only, megabytes) stays outside; its CommonJS build is required on first use
 *   (`import('@viz-js/viz')` becomes a deferred `require`).
 * Without esbuild (a production install), the step says so and leaves the unbundled CLI.
 */
import { spawnSync, type SpawnSyncReturns } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import { BUILD_ID_PREFIX, buildIdOf, cachePathOf, RARE_PREFIX, REST_PREFIX, SHARED_PREFIX } from '../cli/run-bundle.js';

/** dist/src, where tsc wrote the modules; the bundles and their loader go to dist/src/cli. */
const SRC_DIR = dirname(dirname(fileURLToPath(import.meta.url)));
const CLI_DIR = join(SRC_DIR, 'cli');
const REPO_ROOT = dirname(dirname(SRC_DIR));
const ENTRY = join(CLI_DIR, 'main.js');
const BUNDLE = join(CLI_DIR, 'waitgraph.cjs');
const EARLY_BUNDLE = join(CLI_DIR, 'waitgraph-early.cjs');
const RARE_BUNDLE = join(CLI_DIR, 'waitgraph-rare.cjs');
/**
 * The modules the rest requires from the rare part, on first use: the YAML rule reader and the
 * source-lock vocabularies' (yaml, zod) and the check command (zod for its sidecars). With what
 * only they reach, that is ~1.1 MB of the 2.5 MB a start read, and ~1,000 getters of zod's
 * namespaces a start made (issue 18, figure 4).
 */
const RARE_ENTRIES = ['rules/load.js', 'rules/source-locks-yaml.js', 'cli/commands/check.js'].map((key) => join(SRC_DIR, key));
/**
 * run-bundle.js as CommonJS, for bin/waitgraph.js: a CommonJS entry starts without Node's ES
 * module loader (~7 ms of every start, issue 18 figure 4), so it must not import an ES module.
 */
const RUNNER = join(CLI_DIR, 'run-bundle.cjs');
/** What `attach` and `core` run before the rest is loaded (see cli/main.ts and live/early.ts). */
const EARLY_ENTRY = join(SRC_DIR, 'live', 'early.js');
/** Chunk files of the earlier ESM bundle layout, removed when found. */
const OLD_CHUNK_PREFIX = 'bundle-';
// web-tree-sitter (`--source` only) finds its own wasm next to its files: it stays a package, loaded on first use.
const EXTERNAL = ['@viz-js/viz', 'web-tree-sitter'];
/** main.js after this step; tsc's main.js never starts with it. */
export const LOADER_MARK = '// waitgraph bundle loader (src/build/bundle.ts)';
const LOADER =
  `${LOADER_MARK}\nimport { runBundle } from './run-bundle.js';\n` +
  "await runBundle(new URL('./waitgraph-early.cjs', import.meta.url), new URL('./waitgraph.cjs', import.meta.url), new URL('./waitgraph-rare.cjs', import.meta.url));\n";
/** The run whose compiled functions the code cache keeps. */
const CACHE_RUN_INPUT = join(REPO_ROOT, 'fixtures', 'enzyme-autodiff-deferred.txt');
/** The rare part's cache run: `check` on these sidecars, with a user rule file (the YAML reader). */
const RARE_CACHE_RUN_CHECK = join(REPO_ROOT, 'fixtures', 'check');
const RARE_CACHE_RUN_RULES = join(REPO_ROOT, 'test', 'rules', 'examples', 'myapp.spinlock.wait.yaml');
const CJS_BANNER = "const __waitgraphBundleUrl = require('node:url').pathToFileURL(__filename).href;";

/**
 * commander's command.js requires node:child_process at its top, for executable subcommands
 * (`program.command('x', 'desc')` running `prog-x`), which waitgraph does not use; with net, dgram
 * and the streams it loads, that is ~2 ms of every start (issue 18, figure 4). In the bundle the
 * module is required on commander's first spawn instead. The line must be found as written, so a
 * commander that changes it fails the build instead of loading child_process unnoticed.
 */
const COMMANDER_CHILD_PROCESS = "const childProcess = require('node:child_process');";
const COMMANDER_LAZY_CHILD_PROCESS = "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };";

/** commander's lib/command.js with child_process required on first use (see COMMANDER_CHILD_PROCESS). */
export function lazyCommanderSource(text: string): string {
  const at = text.indexOf(COMMANDER_CHILD_PROCESS);
  if (at < 0 || text.indexOf(COMMANDER_CHILD_PROCESS, at + 1) >= 0) throw new Error('bundle: commander/lib/command.js no longer requires child_process in the expected line');
  if (/childProcess\.(?!spawn\()/.test(text)) throw new Error('bundle: commander/lib/command.js uses child_process for more than spawn');
  return text.replace(COMMANDER_CHILD_PROCESS, COMMANDER_LAZY_CHILD_PROCESS);
}

/**
 * chalk's own colour detection (its `#supports-color` import: node:tty, which loads net and the
 * streams, and node:os) runs when chalk is imported, for chalk's default instances. waitgraph
 * never uses them: report/index.ts's createChalk decides the level from the CLI's own TTY flag,
 * NO_COLOR and FORCE_COLOR and passes it to `new Chalk({ level })`. In the bundle that import is
 * a module that detects nothing, ~1–2 ms of every start whose output is not a terminal (issue 18,
 * figure 4).
 */
const CHALK_SUPPORTS_COLOR_STUB = 'export default { stdout: false, stderr: false };\n';
/** The stub's name in the bundle (its `// waitgraph-stub:…` comment). */
export const CHALK_SUPPORTS_COLOR_STUB_PATH = 'chalk-supports-color-stub';

/** `import.meta.url` of a dist/src module, as seen from the bundle in CLI_DIR. */
function metaUrlFor(path: string): string {
  const rel = relative(CLI_DIR, path).split(sep).join('/');
  return `new URL(${JSON.stringify(rel)}, __waitgraphBundleUrl).href`;
}

/** Chevrotain's single-file ESM build, next to the package's resolved entry (see parse/chevrotain.ts). */
function chevrotainBundlePath(): string {
  const entry = createRequire(import.meta.url).resolve('chevrotain');
  return fileURLToPath(new URL('../chevrotain.mjs', `file://${entry}`));
}

/** A dist/src module's path relative to dist/src, with forward slashes (the early part's keys). */
function srcKey(path: string): string {
  return relative(SRC_DIR, path).split(sep).join('/');
}

/** A module's path relative to the repository, with forward slashes (the rest's keys for the rare part). */
function repoKey(path: string): string {
  return relative(REPO_ROOT, path).split(sep).join('/');
}

/** The files a build read (absolute paths): not its stdin entry or a stub, which are no files. */
function inputPaths(metafile: import('esbuild').Metafile): Set<string> {
  return new Set(Object.keys(metafile.inputs).filter((p) => !/^[\w-]+:/.test(p)).map((p) => resolve(REPO_ROOT, p)).filter((p) => existsSync(p)));
}

/**
 * The bundle with every non-ASCII UTF-16 unit written as a `\\uXXXX` escape, so the loader reads it
 * as Latin-1 (run-bundle.ts). esbuild already escapes strings; what it leaves are comments and
 * regex literals (`gef➤`, `…`), where the escape means the same character (an astral one as its
 * surrogate pair, which a `u` regex reads as one code point).
 */
export function asciiOnly(text: string): string {
  return text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`);
}

/**
 * What a dist/src module becomes in a bundle (see the list at the top); `elsewhere`: the modules
 * another script holds (the early part's, the rare part's entries), which a dynamic import requires.
 */
function bundledSource(path: string, text: string, elsewhere: ReadonlySet<string> = new Set()): string {
  if (path === join(SRC_DIR, 'parse', 'chevrotain.js')) {
    const names = /export const \{([^}]+)\} = chevrotain;/.exec(text)?.[1];
    if (names === undefined) throw new Error('bundle: parse/chevrotain.js no longer has the expected export line');
    return `export {${names}} from ${JSON.stringify(chevrotainBundlePath())};\n`;
  }
  let out = text.replace(/\bcreateRequire\(import\.meta\.url\)\(('\.[^']+')\)/g, 'require($1)');
  // An external's CommonJS build, required on first use: a dynamic import() inside vm.Script would
  // need Node's experimental vm loader hook (and is lost with a code cache in Node 20).
  for (const name of EXTERNAL) out = out.replaceAll(`import('${name}')`, `Promise.resolve().then(() => require('${name}'))`);
  // The same for a module of another script (the early part, the rare part): required from there.
  out = out.replace(/\bimport\(('\.[^']+')\)/g, (call, spec: string) =>
    elsewhere.has(resolve(dirname(path), spec.slice(1, -1))) ? `Promise.resolve().then(() => require(${spec}))` : call,
  );
  if (out.includes('import.meta.url')) out = out.replaceAll('import.meta.url', metaUrlFor(path));
  return out;
}

async function main(): Promise<number> {
  let esbuild: typeof import('esbuild');
  try {
    esbuild = await import('esbuild');
  } catch {
    console.log('bundle: esbuild is not installed (devDependency); the CLI runs unbundled from dist/src');
    return 0;
  }
  const entrySource = readFileSync(ENTRY, 'utf8');
  if (entrySource.startsWith(LOADER_MARK) && existsSync(BUNDLE) && existsSync(EARLY_BUNDLE) && existsSync(RARE_BUNDLE) && existsSync(RUNNER)) {
    // tsc rewrites main.js on every run, so no tsc ran since this bundle was made: it is current.
    console.log('bundle: dist/src/cli/waitgraph.cjs is already the bundle of the current dist/src');
    return 0;
  }
  const id = randomUUID();
  const common = {
    bundle: true,
    format: 'cjs' as const,
    platform: 'node' as const,
    target: 'node20',
    absWorkingDir: REPO_ROOT,
    external: EXTERNAL,
    banner: { js: `${BUILD_ID_PREFIX}${id}\n${CJS_BANNER}` },
    // Dependencies' own `import.meta.url` (e.g. fdir's createRequire): the bundle's URL, from
    // where their `require`s resolve the same packages.
    define: { 'import.meta.url': '__waitgraphBundleUrl' },
    legalComments: 'none' as const,
    write: false as const,
    logLevel: 'warning' as const,
  };
  const sourcePlugin = (elsewhere: ReadonlySet<string>): import('esbuild').Plugin => ({
    name: 'waitgraph-cjs',
    setup(build) {
      build.onLoad({ filter: /\.js$/ }, (args) => {
        if (!args.path.startsWith(SRC_DIR + sep)) return undefined;
        return { contents: bundledSource(args.path, readFileSync(args.path, 'utf8'), elsewhere), loader: 'js' };
      });
    },
  });
  // The early part: live/early.ts and every dist/src module it reaches (errors, the gdb driver),
  // found by bundling it once; one object maps each module's key to its exports.
  const probe = await esbuild.build({ ...common, entryPoints: [EARLY_ENTRY], metafile: true, plugins: [sourcePlugin(new Set())] });
  const shared = new Set(Object.keys(probe.metafile.inputs).map((p) => resolve(REPO_ROOT, p)).filter((p) => p.startsWith(SRC_DIR + sep)));
  const sharedList = [...shared].sort();
  const early = await esbuild.build({
    ...common,
    stdin: {
      contents:
        sharedList.map((p, i) => `import * as m${i} from ${JSON.stringify(p)};`).join('\n') +
        `\nexport const modules = { ${sharedList.map((p, i) => `${JSON.stringify(srcKey(p))}: m${i}`).join(', ')} };\n`,
      resolveDir: SRC_DIR,
      sourcefile: 'early-part.js',
      loader: 'js',
    },
    plugins: [sourcePlugin(shared)],
  });
  // The rest: the whole CLI from cli/main.ts, taking the early part's modules from it and
  // requiring the rare part's entries from there; built once to learn its modules.
  const rareEntries = new Set(RARE_ENTRIES);
  const elsewhere = new Set([...shared, ...rareEntries]);
  const restPlugins: import('esbuild').Plugin[] = [
    sourcePlugin(elsewhere),
    {
      name: 'waitgraph-chalk',
      setup(build) {
        build.onResolve({ filter: /^#supports-color$/ }, (args) =>
          /[\\/]chalk[\\/]source[\\/]/.test(args.importer) ? { path: CHALK_SUPPORTS_COLOR_STUB_PATH, namespace: 'waitgraph-stub' } : undefined,
        );
        build.onLoad({ filter: /.*/, namespace: 'waitgraph-stub' }, () => ({ contents: CHALK_SUPPORTS_COLOR_STUB, loader: 'js' }));
      },
    },
    {
      name: 'waitgraph-commander',
      setup(build) {
        build.onLoad({ filter: /[\\/]commander[\\/]lib[\\/]command\.js$/ }, (args) => ({ contents: lazyCommanderSource(readFileSync(args.path, 'utf8')), loader: 'js' }));
      },
    },
    {
      name: 'waitgraph-parts',
      setup(build) {
        build.onResolve({ filter: /^\./ }, (args) => {
          if (!args.importer.startsWith(SRC_DIR + sep)) return undefined;
          const path = resolve(args.resolveDir, args.path);
          if (shared.has(path)) return { path: `${SHARED_PREFIX}${srcKey(path)}`, external: true };
          return rareEntries.has(path) ? { path: `${RARE_PREFIX}${srcKey(path)}`, external: true } : undefined;
        });
      },
    },
  ];
  const restProbe = await esbuild.build({ ...common, entryPoints: [ENTRY], metafile: true, plugins: restPlugins });
  const restInputs = inputPaths(restProbe.metafile);
  // The rare part: the rare entries and what only they reach; a module the rest has comes from the
  // rest (one instance: classes, the built-in rules), an early-part module from the early part.
  const fromRest = new Set<string>();
  const rare = await esbuild.build({
    ...common,
    metafile: true,
    stdin: {
      contents: `export const rareModules = { ${RARE_ENTRIES.map((p) => `${JSON.stringify(srcKey(p))}: () => require(${JSON.stringify(p)})`).join(', ')} };\n`,
      resolveDir: SRC_DIR,
      sourcefile: 'rare-part.js',
      loader: 'js',
    },
    plugins: [
      sourcePlugin(shared),
      {
        name: 'waitgraph-rest-part',
        setup(build) {
          build.onResolve({ filter: /.*/ }, async (args) => {
            if ((args.pluginData as { inner?: boolean } | undefined)?.inner === true || args.importer === '' || args.importer === '<stdin>') return undefined;
            const found = await build.resolve(args.path, { kind: args.kind, importer: args.importer, resolveDir: args.resolveDir, pluginData: { inner: true } });
            if (found.errors.length > 0 || found.external || found.namespace !== 'file') return undefined;
            if (shared.has(found.path)) return { path: `${SHARED_PREFIX}${srcKey(found.path)}`, external: true };
            if (!restInputs.has(found.path)) return { path: found.path };
            fromRest.add(found.path);
            return { path: `${REST_PREFIX}${repoKey(found.path)}`, external: true };
          });
        },
      },
    ],
  });
  for (const path of inputPaths(rare.metafile)) {
    if (restInputs.has(path)) throw new Error(`bundle: ${repoKey(path)} is in both the rest and the rare part`);
  }
  // The rest again, from an entry that also exports the modules the rare part takes from it.
  const restEntry =
    `export * from ${JSON.stringify(ENTRY)};\n` +
    `export const restModules = { ${[...fromRest].sort().map((p) => `${JSON.stringify(repoKey(p))}: () => require(${JSON.stringify(p)})`).join(', ')} };\n`;
  const restBuild = await esbuild.build({
    ...common,
    metafile: true,
    stdin: { contents: restEntry, resolveDir: CLI_DIR, sourcefile: 'rest-part.js', loader: 'js' },
    plugins: restPlugins,
  });
  const restAgain = inputPaths(restBuild.metafile);
  const changed = [...restAgain].filter((p) => !restInputs.has(p)).concat([...restInputs].filter((p) => !restAgain.has(p)));
  if (changed.length > 0) throw new Error(`bundle: exporting the rare part's modules changed what the rest holds: ${changed.map(repoKey).join(', ')}`);
  const rest = restBuild;
  const [earlyOut] = early.outputFiles;
  const [output] = rest.outputFiles;
  const [rareOut] = rare.outputFiles;
  if (earlyOut === undefined || output === undefined || rareOut === undefined || early.outputFiles.length !== 1 || rest.outputFiles.length !== 1 || rare.outputFiles.length !== 1) {
    throw new Error('bundle: esbuild wrote no single bundle');
  }
  for (const f of readdirSync(CLI_DIR)) if (f.startsWith(OLD_CHUNK_PREFIX) && f.endsWith('.js')) rmSync(join(CLI_DIR, f));
  const sizes: number[] = [];
  for (const [file, out] of [[EARLY_BUNDLE, earlyOut], [BUNDLE, output], [RARE_BUNDLE, rareOut]] as const) {
    rmSync(cachePathOf(file), { force: true });
    const text = asciiOnly(out.text);
    writeFileSync(file, text);
    sizes.push(text.length);
    if (buildIdOf(text) !== id) throw new Error(`bundle: the build id is not on ${file}'s first line`);
  }
  // The CommonJS runner bin/waitgraph.js requires (run-bundle.js imports node builtins only).
  const runner = await esbuild.build({ ...common, banner: {}, entryPoints: [join(CLI_DIR, 'run-bundle.js')] });
  const [runnerOut] = runner.outputFiles;
  if (runnerOut === undefined) throw new Error('bundle: esbuild wrote no run-bundle.cjs');
  writeFileSync(RUNNER, runnerOut.text);
  // The loader goes last (renamed into place), so main.js never names a bundle that is not there yet.
  const temp = `${ENTRY}.${process.pid}.tmp`;
  writeFileSync(temp, LOADER);
  renameSync(temp, ENTRY);
  // tsc's source map describes the unbundled main.js.
  rmSync(`${ENTRY}.map`, { force: true });
  console.log(
    `bundle: dist/src/cli/waitgraph-early.cjs (${sharedList.length} modules, ${((sizes[0] ?? 0) / 1e3).toFixed(0)} kB), ` +
      `waitgraph.cjs (${((sizes[1] ?? 0) / 1e6).toFixed(1)} MB), waitgraph-rare.cjs (${((sizes[2] ?? 0) / 1e6).toFixed(1)} MB) and their loader main.js; ${saveCodeCache()}`,
  );
  return 0;
}

/**
 * Runs the bundled CLI on the founding report, saving the code cache of the early part and the
 * rest, then `check` with a user rule file, saving the rare part's; says what happened.
 */
function saveCodeCache(): string {
  if (!existsSync(CACHE_RUN_INPUT)) return `no code cache (${relative(REPO_ROOT, CACHE_RUN_INPUT)} is missing)`;
  const caches = [BUNDLE, EARLY_BUNDLE, RARE_BUNDLE].map(cachePathOf);
  for (const cache of caches) rmSync(cache, { force: true });
  const run = cacheRun([CACHE_RUN_INPUT]);
  // Exit 1 is the founding report's verdict (a deadlock), not a failure.
  if (run.status !== 1 || !existsSync(cachePathOf(BUNDLE)) || !existsSync(cachePathOf(EARLY_BUNDLE))) {
    for (const cache of caches) rmSync(cache, { force: true });
    return `no code cache (the cache run exited ${run.status}: ${(run.stderr ?? '').trim().split('\n')[0] ?? ''})`;
  }
  if (!existsSync(RARE_CACHE_RUN_CHECK)) return `code cache saved; none for the rare part (${relative(REPO_ROOT, RARE_CACHE_RUN_CHECK)} is missing)`;
  const rules = existsSync(RARE_CACHE_RUN_RULES) ? ['--rules', RARE_CACHE_RUN_RULES] : [];
  const check = cacheRun(['check', ...rules, RARE_CACHE_RUN_CHECK]);
  if (check.status !== 0 || !existsSync(cachePathOf(RARE_BUNDLE))) {
    rmSync(cachePathOf(RARE_BUNDLE), { force: true });
    return `code cache saved; none for the rare part (its cache run exited ${check.status}: ${(check.stderr ?? '').trim().split('\n')[0] ?? ''})`;
  }
  return 'code cache saved';
}

/** One run of the bundled CLI that writes the caches of the scripts it ran and that have none. */
function cacheRun(args: string[]): SpawnSyncReturns<string> {
  return spawnSync(process.execPath, [ENTRY, ...args], {
    cwd: REPO_ROOT,
    env: { ...process.env, WAITGRAPH_CODE_CACHE: 'write', NO_COLOR: '1' },
    stdio: ['ignore', 'ignore', 'pipe'],
    encoding: 'utf8',
  });
}

// Not when a test runner loads every file under dist (as precompile-rules.ts).
if (process.env.NODE_TEST_CONTEXT === undefined) process.exitCode = await main();
