/**
 * Runs the bundled CLI (`dist/src/cli/waitgraph-early.cjs`, `waitgraph.cjs` and
 * `waitgraph-rare.cjs`, written by build/bundle.ts) with V8's code cache: the bytecode of every
 * function the build's own runs compiled, saved beside each bundle.
 * Node 20 keeps no compile cache of its own for ES modules (`module.enableCompileCache` came in
 * Node 22), and parsing and compiling the ~2 MB CLI was ~25 ms of a ~150 ms start (issue 7,
 * figure 4: the founding report within 2.5 × `node -e 0`, aiming for 1.5).
 *
 * The cache is used only when it was made from this very bundle: its first line is the build id
 * the bundle's own first line carries (a fresh one per build). V8 rejects a cache from another
 * V8 version or other flags by itself; either way the bundle is then compiled as usual, so a
 * missing, stale or rejected cache costs time, never correctness.
 *
 * Environment (read here because this loader is the process boundary of a bundled start, as
 * cli/main.ts is of an unbundled one):
 *   WAITGRAPH_CODE_CACHE=write   after the run, save the cache of each script that ran and has
 *                                none yet (the build removes them, then runs the CLI twice)
 *   WAITGRAPH_CODE_CACHE=report  say on stderr whether the cache was used (tests)
 *   WAITGRAPH_CODE_CACHE=off     compile without the cache
 */
import { isAscii } from 'node:buffer';
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Script } from 'node:vm';

/** A bundle's first line: `// waitgraph bundle <id>`; its cache file starts with the same id. */
export const BUILD_ID_PREFIX = '// waitgraph bundle ';

/** Where the cache of a bundle lives. */
export function cachePathOf(bundlePath: string): string {
  return `${bundlePath}.cache`;
}

/** The build id on a bundle's first line, or null. */
export function buildIdOf(source: string): string | null {
  if (!source.startsWith(BUILD_ID_PREFIX)) return null;
  const end = source.indexOf('\n');
  return source.slice(BUILD_ID_PREFIX.length, end < 0 ? source.length : end).trim() || null;
}

/** The cache's V8 data when its header names `id`, else null (missing, unreadable or stale). */
export function readCache(path: string, id: string | null): Buffer | null {
  if (id === null) return null;
  let data: Buffer;
  try {
    data = readFileSync(path);
  } catch {
    return null;
  }
  const header = Buffer.from(`${id}\n`);
  return data.length > header.length && data.subarray(0, header.length).equals(header) ? data.subarray(header.length) : null;
}

type CacheState = 'used' | 'rejected' | 'stale or missing' | 'off';

/** How the rest of the CLI (and the rare part) names a module of the early part in its `require` calls. */
export const SHARED_PREFIX = 'waitgraph-early:';
/** How the rest names a module of the rare part (loaded on first use): `waitgraph-rare:rules/load.js`. */
export const RARE_PREFIX = 'waitgraph-rare:';
/** How the rare part names a module it takes from the rest: `waitgraph-rest:dist/src/model/ids.js`. */
export const REST_PREFIX = 'waitgraph-rest:';

/** What the rest and the rare part export: each module the other side may ask for, initialised on first use. */
export type LazyModules = Record<string, () => unknown>;

interface LoadedScript {
  file: string;
  id: string | null;
  script: Script;
  state: CacheState;
  exports: Record<string, unknown>;
}

/**
 * Compiles (from the cache when it fits) and runs one CommonJS bundle; `require` is what it gets as
 * require. `module` is the bundle's module object, made by the caller so that a `require` the
 * bundle's top level makes can already reach what it exports.
 */
function runScript(file: string, mode: string | undefined, require: (id: string) => unknown, module: { exports: Record<string, unknown> } = { exports: {} }): LoadedScript {
  const bytes = readFileSync(file);
  // The build writes ASCII only (build/bundle.ts), which reads as Latin-1 at copy speed: ~1 ms for the
  // 2 MB rest, against ~7 ms through the UTF-8 decoder; anything else still decodes as UTF-8.
  const source = isAscii(bytes) ? bytes.toString('latin1') : bytes.toString('utf8');
  const id = buildIdOf(source);
  const cachedData = mode === 'off' || mode === 'write' ? null : readCache(cachePathOf(file), id);
  // The CommonJS wrapper on the bundle's first line keeps its line numbers in stack traces.
  const script = new Script(`(function (exports, require, module, __filename, __dirname) {${source}\n})`, {
    filename: file,
    ...(cachedData !== null ? { cachedData } : {}),
  });
  const state: CacheState = mode === 'off' ? 'off' : cachedData === null ? 'stale or missing' : script.cachedDataRejected === true ? 'rejected' : 'used';
  (script.runInThisContext() as (...args: unknown[]) => void)(module.exports, require, module, file, dirname(file));
  return { file, id, script, state, exports: module.exports };
}

/**
 * Saves a script's code cache unless it has one; after the run, so it holds the functions the run
 * compiled, not only the top level. A cache already there is the one an earlier run of the build
 * wrote for that script (the founding report's, for the early part and the rest).
 */
function saveCache(loaded: LoadedScript): void {
  if (loaded.id === null) return;
  const path = cachePathOf(loaded.file);
  if (existsSync(path)) return;
  const temp = `${path}.${process.pid}.tmp`;
  writeFileSync(temp, Buffer.concat([Buffer.from(`${loaded.id}\n`), loaded.script.createCachedData()]));
  renameSync(temp, path);
}

/** A module of another script, by key, from its LazyModules export (each initialised once, on first use). */
function lazyModule(owner: string, modules: LazyModules | undefined, key: string, cache: Map<string, unknown>): unknown {
  if (cache.has(key)) return cache.get(key);
  const load = modules?.[key];
  if (load === undefined) throw new Error(`waitgraph bundle: ${key} is not in the ${owner} (rebuild with npm run build)`);
  const exports = load();
  cache.set(key, exports);
  return exports;
}

/**
 * Runs the bundled CLI: first the early part (errors and the gdb driver), which starts gdb at once
 * for a plain `attach PID` / `core CORE` line (live/early.ts; the ~20 ms the rest takes to load
 * then overlap gdb's attach, issue 4), then the rest, whose `require` of an early-part module gets
 * that same instance (one early gdb, one set of error classes). The rare part (zod, yaml and the
 * modules only `check`, user rules and vocabularies need) is read and run the first time the rest
 * requires one of its modules; the modules it shares with the rest come from the rest. Settles
 * when the run has finished.
 */
export async function runBundle(earlyUrl: URL, restUrl: URL, rareUrl: URL): Promise<void> {
  const mode = process.env.WAITGRAPH_CODE_CACHE;
  const earlyFile = fileURLToPath(earlyUrl);
  const restFile = fileURLToPath(restUrl);
  const rareFile = fileURLToPath(rareUrl);
  const nodeRequire = createRequire(restFile);
  const early = runScript(earlyFile, mode, nodeRequire);
  const modules = early.exports.modules as Record<string, unknown>;
  const fromEarly = (id: string): unknown => {
    const shared = modules[id.slice(SHARED_PREFIX.length)];
    if (shared === undefined) throw new Error(`waitgraph bundle: ${id} is not in the early part (rebuild with npm run build)`);
    return shared;
  };
  const argv = process.argv.slice(2);
  if (argv[0] === 'attach' || argv[0] === 'core') {
    (modules['live/early.js'] as { startEarly(argv: string[], env: NodeJS.ProcessEnv, cwd: string): void }).startEarly(argv, process.env, process.cwd());
  }
  const restModule = { exports: {} as Record<string, unknown> };
  const fromRest = new Map<string, unknown>();
  const fromRare = new Map<string, unknown>();
  // A holder, not a `let`: the rest's require sets it, from inside the rest's run.
  const loaded: { rare: LoadedScript | null } = { rare: null };
  const rareRequire = (id: string): unknown => {
    if (id.startsWith(SHARED_PREFIX)) return fromEarly(id);
    if (id.startsWith(REST_PREFIX)) return lazyModule('rest', restModule.exports.restModules as LazyModules | undefined, id.slice(REST_PREFIX.length), fromRest);
    return nodeRequire(id);
  };
  const restRequire = (id: string): unknown => {
    if (id.startsWith(SHARED_PREFIX)) return fromEarly(id);
    if (id.startsWith(RARE_PREFIX)) {
      loaded.rare ??= runScript(rareFile, mode, rareRequire);
      return lazyModule('rare part', loaded.rare.exports.rareModules as LazyModules | undefined, id.slice(RARE_PREFIX.length), fromRare);
    }
    return nodeRequire(id);
  };
  const rest = runScript(restFile, mode, restRequire, restModule);
  if (mode === 'report') process.stderr.write(`waitgraph: code cache ${rest.state} (early part: ${early.state})\n`);
  await (rest.exports.done as Promise<void> | undefined);
  if (mode === 'report') process.stderr.write(`waitgraph: rare part ${loaded.rare === null ? 'not loaded' : `loaded, code cache ${loaded.rare.state}`}\n`);
  if (mode === 'write') {
    saveCache(early);
    saveCache(rest);
    if (loaded.rare !== null) saveCache(loaded.rare);
  }
}
