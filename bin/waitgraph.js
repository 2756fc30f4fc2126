#!/usr/bin/env node
// The command. CommonJS (bin/package.json says so): a CommonJS entry starts without Node's ES
// module loader, ~7 ms of every start (issue 18, figure 4: the founding report within 2 × `node -e 0`).
// When the build has bundled the CLI (src/build/bundle.ts replaced dist/src/cli/main.js with its
// loader), the bundle runs through the CommonJS copy of cli/run-bundle.ts; when only tsc ran,
// main.js is tsc's own ES module and is imported as before.
'use strict';
const { readFileSync } = require('node:fs');
const { join } = require('node:path');
const { pathToFileURL } = require('node:url');

const cli = join(__dirname, '..', 'dist', 'src', 'cli');
const main = join(cli, 'main.js');
/** The first line of the loader the build writes (LOADER_MARK in src/build/bundle.ts). */
const LOADER_MARK = '// waitgraph bundle loader (src/build/bundle.ts)';

let entry = null;
try {
  entry = readFileSync(main, 'latin1');
} catch {
  process.stderr.write(`waitgraph: ${main} is missing: run npm run build (or npm install) first\n`);
  process.exitCode = 2;
}
if (entry !== null && entry.startsWith(LOADER_MARK)) {
  require(join(cli, 'run-bundle.cjs')).runBundle(pathToFileURL(join(cli, 'waitgraph-early.cjs')), pathToFileURL(join(cli, 'waitgraph.cjs')), pathToFileURL(join(cli, 'waitgraph-rare.cjs')));
} else if (entry !== null) {
  import(pathToFileURL(main).href);
}
