/**
 * The bundled CLI (`npm run build` replaces dist/src/cli/main.js with an esbuild bundle, see
 * src/cli/bundle.ts) must behave exactly like the modules tsc wrote: same reports, the built-in
 * rules and package.json found through the rewritten `import.meta.url`, lazy formats loadable.
 * Compared with runCli imported from dist/src (never bundled). When main.js is tsc's own output
 * (only tsc ran), the comparison still holds and the bundle checks are skipped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runCli } from '../../src/cli/program.js';
import type { CliIO } from '../../src/cli/io.js';
import { FOUNDING, ROOT } from '../helpers/paths.js';
import { runWaitgraph } from '../helpers/run-cli.js';

const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const isBundle = readFileSync(MAIN, 'utf8').startsWith('// waitgraph bundle');
const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

async function inProcess(args: string[]): Promise<{ code: number; stdout: string }> {
  let stdout = '';
  const io: CliIO = {
    out: (t) => void (stdout += t),
    err: () => undefined,
    stdin: process.stdin,
    stdoutIsTTY: false,
    stderrIsTTY: false,
    env: { NO_COLOR: '1' },
    cwd: ROOT,
  };
  const code = await runCli(args, io, version);
  return { code, stdout };
}

test('the CLI (bundled or not) prints what the unbundled modules print, in every format', async () => {
  for (const format of ['text', 'json', 'markdown', 'mermaid', 'dot', 'sarif']) {
    const child = runWaitgraph([FOUNDING, '--format', format]);
    const here = await inProcess([FOUNDING, '--format', format]);
    assert.equal(child.stderr, '', `${format}: nothing on stderr`);
    assert.equal(child.code, here.code, `${format}: exit code`);
    assert.equal(child.stdout, here.stdout, `${format}: same report`);
  }
});

test('the CLI finds package.json and the built-in rules from where it runs', () => {
  assert.equal(runWaitgraph(['--version']).stdout.trim(), version);
  const rules = runWaitgraph(['check', '--help']);
  assert.equal(rules.code, 0);
});

test('the bundle names only chunks that exist, and loads Chevrotain from its own file', { skip: isBundle ? false : 'dist/src/cli/main.js is tsc output (only tsc ran)' }, () => {
  const seen = new Set<string>();
  const queue = ['main.js'];
  while (queue.length > 0) {
    const file = queue.pop() as string;
    if (seen.has(file)) continue;
    seen.add(file);
    const path = join(ROOT, 'dist', 'src', 'cli', file);
    assert.ok(existsSync(path), `${file} exists`);
    const text = readFileSync(path, 'utf8');
    for (const m of text.matchAll(/(?:from |import\()\s*"\.\/(bundle-[\w-]+\.js)"/g)) queue.push(m[1] as string);
    assert.doesNotMatch(text, /^\/\/ node_modules\/chevrotain\//m, `${file}: Chevrotain is loaded from its own single-file build`);
  }
  assert.ok(seen.size > 3, `main.js reaches its chunks (${[...seen].join(', ')})`);
});
