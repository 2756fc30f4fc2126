/**
 * Build step (`npm run build`, after tsc): bundles the CLI that tsc wrote to dist/src into a few
 * files, so a start loads one entry and the chunks its command needs instead of ~60 modules —
 * node's ESM loader resolves, reads, compiles and links every module separately, which was about
 * a third of a start (issue 7 figure 4, issue 4's attach figure).
 *
 * - The bundle replaces dist/src/cli/main.js (what bin/waitgraph.js imports); its chunks are
 *   `dist/src/cli/bundle-*.js` beside it. Every other dist/src module stays as tsc wrote it
 *   (tests and library users import those). A later plain `tsc` rewrites main.js with the
 *   unbundled module, so the CLI never runs a bundle older than dist/src.
 * - Lazy imports stay lazy: esbuild splits each dynamic import (a command, a report format) into
 *   its own chunk (ESM code splitting).
 * - `import.meta.url` in a bundled module is rewritten to that module's own URL in dist/src, so
 *   files found relative to it (built-in rules JSON, rule packs, package.json, Chevrotain's
 *   bundle) are found as before.
 * - Chevrotain stays outside: parse/chevrotain.ts loads its single-file build by URL, and the
 *   regular entry is only a fallback. @viz-js/viz (SVG only, megabytes) stays outside too.
 * - CommonJS dependencies (commander) get a `require` made with createRequire, as esbuild's ESM
 *   output for node expects.
 * Without esbuild (a production install), the step says so and leaves the unbundled CLI.
 */
import { readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { basename, dirname, join, relative, sep } from 'node:path';
import { fileURLToPath } from 'node:url';

const CLI_DIR = dirname(fileURLToPath(import.meta.url));
const SRC_DIR = dirname(CLI_DIR);
const ENTRY = join(CLI_DIR, 'main.js');
const CHUNK_PREFIX = 'bundle-';
const EXTERNAL = ['chevrotain', '@viz-js/viz'];
const BANNER_MARK = '// waitgraph bundle (src/cli/bundle.ts)';
const REQUIRE_BANNER = "import { createRequire as __waitgraphCreateRequire } from 'node:module'; const require = __waitgraphCreateRequire(import.meta.url);";

/** `import.meta.url` of a dist/src module, as seen from a chunk in CLI_DIR. */
function metaUrlFor(path: string): string {
  const rel = relative(CLI_DIR, path).split(sep).join('/');
  return `new URL(${JSON.stringify(rel)}, import.meta.url).href`;
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
  if (entrySource.startsWith(BANNER_MARK)) {
    // tsc rewrites main.js on every run, so no tsc ran since this bundle was made: it is current.
    console.log('bundle: dist/src/cli/main.js is already the bundle of the current dist/src');
    return 0;
  }
  const result = await esbuild.build({
    entryPoints: [ENTRY],
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20',
    outdir: CLI_DIR,
    entryNames: '[name]',
    chunkNames: `${CHUNK_PREFIX}[name]-[hash]`,
    external: EXTERNAL,
    banner: { js: `${BANNER_MARK}\n${REQUIRE_BANNER}` },
    legalComments: 'none',
    write: false,
    logLevel: 'warning',
    plugins: [
      {
        name: 'waitgraph-meta-url',
        setup(build) {
          build.onLoad({ filter: /\.js$/ }, (args) => {
            if (!args.path.startsWith(SRC_DIR + sep)) return undefined;
            const text = readFileSync(args.path, 'utf8');
            return { contents: text.includes('import.meta.url') ? text.replaceAll('import.meta.url', metaUrlFor(args.path)) : text, loader: 'js' };
          });
        },
      },
    ],
  });
  // Old chunks go first; the entry is written last (renamed into place), so main.js never names a
  // chunk that is not there yet.
  for (const f of readdirSync(CLI_DIR)) if (f.startsWith(CHUNK_PREFIX) && f.endsWith('.js')) rmSync(join(CLI_DIR, f));
  let entryText: string | null = null;
  for (const file of result.outputFiles) {
    if (file.path === ENTRY) entryText = file.text;
    else if (dirname(file.path) === CLI_DIR && basename(file.path).startsWith(CHUNK_PREFIX)) writeFileSync(file.path, file.contents);
    else throw new Error(`bundle: unexpected output ${file.path}`);
  }
  if (entryText === null) throw new Error('bundle: esbuild wrote no entry');
  const temp = `${ENTRY}.${process.pid}.tmp`;
  writeFileSync(temp, entryText);
  renameSync(temp, ENTRY);
  // tsc's source map describes the unbundled main.js.
  rmSync(`${ENTRY}.map`, { force: true });
  const chunks = result.outputFiles.length - 1;
  console.log(`bundle: dist/src/cli/main.js + ${chunks} chunk${chunks === 1 ? '' : 's'} (${CHUNK_PREFIX}*.js)`);
  return 0;
}

// Not when a test runner loads every file under dist (as precompile.ts).
if (process.env.NODE_TEST_CONTEXT === undefined) process.exitCode = await main();
