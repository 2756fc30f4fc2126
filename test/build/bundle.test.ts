/**
 * The bundled CLI (`npm run build` makes dist/src/cli/waitgraph.cjs and replaces main.js with its
 * loader, see src/build/bundle.ts and cli/run-bundle.ts) must behave exactly like the modules tsc wrote:
 * same reports with and without V8's code cache, the built-in rules and package.json found
 * through the rewritten `import.meta.url`, lazy formats loadable.
 * Compared with runCli imported from dist/src (never bundled). When main.js is tsc's own output
 * (only tsc ran), the comparison still holds and the bundle checks are skipped.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { closeSync, existsSync, mkdirSync, mkdtempSync, openSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../src/cli/program.js';
import type { CliIO } from '../../src/cli/io.js';
import { buildIdOf, cachePathOf, readCache } from '../../src/cli/run-bundle.js';
import { asciiOnly, CHALK_SUPPORTS_COLOR_STUB_PATH, lazyCommanderSource, LOADER_MARK } from '../../src/build/bundle.js';
import { spawnSync } from 'node:child_process';
import { isAscii } from 'node:buffer';
import { runInNewContext } from 'node:vm';
import { BIN, FOUNDING, ROOT } from '../helpers/paths.js';
import { runWaitgraph } from '../helpers/run-cli.js';

const MAIN = join(ROOT, 'dist', 'src', 'cli', 'main.js');
const BUNDLE = join(ROOT, 'dist', 'src', 'cli', 'waitgraph.cjs');
const EARLY_BUNDLE = join(ROOT, 'dist', 'src', 'cli', 'waitgraph-early.cjs');
const RARE_BUNDLE = join(ROOT, 'dist', 'src', 'cli', 'waitgraph-rare.cjs');
const isBundle = readFileSync(MAIN, 'utf8').startsWith('// waitgraph bundle');
const notBundled = isBundle ? false : 'dist/src/cli/main.js is tsc output (only tsc ran)';
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

test('with the code cache and without it, the bundled CLI prints the same', { skip: notBundled }, () => {
  for (const format of ['text', 'json']) {
    const cached = runWaitgraph([FOUNDING, '--format', format], { env: { WAITGRAPH_CODE_CACHE: 'report' } });
    assert.equal(cached.stderr, 'waitgraph: code cache used (early part: used)\nwaitgraph: rare part not loaded\n', `${format}: the build's caches are used, and the rare part is not read`);
    const compiled = runWaitgraph([FOUNDING, '--format', format], { env: { WAITGRAPH_CODE_CACHE: 'off' } });
    assert.equal(compiled.code, cached.code, `${format}: exit code`);
    assert.equal(compiled.stdout, cached.stdout, `${format}: same report`);
  }
});

test('the bundle is three CommonJS scripts: the early part, the rest with Chevrotain inside, and the rare part; no module is in two', { skip: notBundled }, () => {
  const text = readFileSync(BUNDLE, 'utf8');
  const early = readFileSync(EARLY_BUNDLE, 'utf8');
  const rare = readFileSync(RARE_BUNDLE, 'utf8');
  assert.ok(buildIdOf(text) !== null, 'the first line carries the build id');
  assert.equal(buildIdOf(early), buildIdOf(text), 'the early part comes from the same build');
  assert.equal(buildIdOf(rare), buildIdOf(text), 'the rare part comes from the same build');
  assert.match(
    readFileSync(MAIN, 'utf8'),
    /runBundle\(new URL\('\.\/waitgraph-early\.cjs', import\.meta\.url\), new URL\('\.\/waitgraph\.cjs', import\.meta\.url\), new URL\('\.\/waitgraph-rare\.cjs', import\.meta\.url\)\)/,
  );
  // The modules each script holds: esbuild's `// path` line before each.
  const modulesOf = (bundle: string): Set<string> => new Set([...bundle.matchAll(/^\/\/ ((?:dist\/src|node_modules)\/\S+)$/gm)].map((m) => m[1] as string));
  const [inEarly, inRest, inRare] = [modulesOf(early), modulesOf(text), modulesOf(rare)];
  for (const [a, b, what] of [[inEarly, inRest, 'the early part and the rest'], [inEarly, inRare, 'the early part and the rare part'], [inRest, inRare, 'the rest and the rare part']] as const) {
    assert.deepEqual([...a].filter((m) => b.has(m)), [], `no module is in both ${what}`);
  }
  // zod and yaml (the YAML rule reader, check's sidecars) are read only when used.
  for (const pkg of ['zod', 'yaml']) {
    assert.ok([...inRare].some((m) => m.startsWith(`node_modules/${pkg}/`)), `${pkg} is in the rare part`);
    assert.ok(![...inRest].some((m) => m.startsWith(`node_modules/${pkg}/`)), `${pkg} is not in the rest`);
  }
  for (const module of ['rules/load.js', 'rules/source-locks-yaml.js', 'cli/commands/check.js']) {
    assert.ok(inRare.has(`dist/src/${module}`), `${module} is in the rare part`);
    assert.match(text, new RegExp(`require\\("waitgraph-rare:${module.replaceAll('/', '\\/').replace('.', '\\.')}"\\)`), `the rest requires ${module} from the rare part`);
  }
  assert.match(rare, /require\("waitgraph-rest:dist\/src\/rules\/compile\.js"\)/, 'the rare part takes the rest\'s modules from the rest');
  assert.match(rare, /require\("waitgraph-early:errors\.js"\)/, 'and the error classes from the early part');
  for (const module of ['errors.js', 'live/early.js', 'live/gdb-session.js']) {
    assert.match(early, new RegExp(`^// dist/src/${module.replace('.', '\\.')}$`, 'm'), `${module} is in the early part`);
    assert.doesNotMatch(text, new RegExp(`^// dist/src/${module.replace('.', '\\.')}$`, 'm'), `${module} is not copied into the rest`);
  }
  assert.match(text, /require\("waitgraph-early:live\/early\.js"\)/, 'the rest takes live/early.js from the early part');
  assert.ok(isAscii(readFileSync(BUNDLE)) && isAscii(readFileSync(EARLY_BUNDLE)) && isAscii(readFileSync(RARE_BUNDLE)), 'ASCII only, so the loader reads them as Latin-1');
  assert.match(text, /^\/\/ \S*node_modules\/chevrotain\/lib\/chevrotain\.mjs$/m, 'Chevrotain is bundled from its single-file build');
  assert.doesNotMatch(text, /\bimport\.meta\b/, 'no import.meta is left in CommonJS');
});

test('check, a user rule file and a bad sidecar go through the rare part, with its cache, as the unbundled modules do', { skip: notBundled }, async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-rare-'));
  try {
    const bad = join(dir, 'bad.txt');
    writeFileSync(bad, readFileSync(FOUNDING));
    writeFileSync(join(dir, 'bad.expect.json'), '{"verdict": "stuck"}\n');
    const runs = [
      ['check', join(ROOT, 'fixtures', 'check')],
      ['--rules', join(ROOT, 'test', 'rules', 'examples', 'myapp.spinlock.wait.yaml'), join(ROOT, 'test', 'rules', 'examples', 'spin.txt')],
      // zod's error for the sidecar, thrown in the rare part, is an input error of the early part: exit 2.
      ['check', bad],
    ];
    for (const args of runs) {
      const cached = runWaitgraph(args, { env: { WAITGRAPH_CODE_CACHE: 'report' } });
      assert.equal(cached.stderr.split('\n').filter((l) => l.startsWith('waitgraph: rare part')).join('\n'), 'waitgraph: rare part loaded, code cache used', `${args[0]}: the rare part is read, with its cache`);
      const plain = runWaitgraph(args);
      const here = await inProcess(args);
      assert.equal(plain.code, here.code, `${args.join(' ')}: exit code`);
      assert.equal(plain.stdout, here.stdout, `${args.join(' ')}: same output`);
    }
    const badRun = runWaitgraph(['check', bad]);
    assert.equal(badRun.code, 2);
    assert.equal(badRun.stderr.trim().split('\n').length, 1, `one line: ${badRun.stderr}`);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a code cache is read only when its header names the bundle\'s build id', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-cache-'));
  try {
    const cache = cachePathOf(join(dir, 'waitgraph.cjs'));
    assert.equal(readCache(cache, 'build-1'), null, 'no file');
    writeFileSync(cache, Buffer.concat([Buffer.from('build-1\n'), Buffer.from([1, 2, 3])]));
    assert.deepEqual([...(readCache(cache, 'build-1') ?? [])], [1, 2, 3]);
    assert.equal(readCache(cache, 'build-2'), null, 'another build');
    assert.equal(readCache(cache, null), null, 'a bundle without an id');
    writeFileSync(cache, 'build-1\n');
    assert.equal(readCache(cache, 'build-1'), null, 'a header without data');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('asciiOnly escapes what esbuild leaves (comments, regex literals) without changing what the code means', () => {
  const source = String.raw`// gef➤ prompt
[/^(?:pwndbg>|gef➤)$/.test('gef➤'), /…/.test('a … b'), /^😀$/u.test('😀'), '→ é'.length, 'gef➤']`;
  const escaped = asciiOnly(source);
  assert.ok(isAscii(Buffer.from(escaped)), escaped);
  // Compared as JSON: arrays made in another context have another Array prototype.
  const run = (code: string): string => JSON.stringify(runInNewContext(code));
  assert.equal(run(escaped), run(source));
  assert.equal(run(escaped), JSON.stringify([true, true, true, 3, 'gef➤']));
});

test('bin/waitgraph.js is CommonJS and starts the bundle without Node\'s ES module loader', { skip: notBundled }, () => {
  // The loader mark it looks for is the one the build writes.
  assert.ok(readFileSync(BIN, 'utf8').includes(`const LOADER_MARK = '${LOADER_MARK}';`), 'bin/waitgraph.js names the build\'s loader mark');
  assert.equal((JSON.parse(readFileSync(join(ROOT, 'bin', 'package.json'), 'utf8')) as { type: string }).type, 'commonjs');
  // Which internal modules the run loaded, printed by a preloaded script at exit.
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-modules-'));
  try {
    const probe = join(dir, 'probe.cjs');
    // fs.writeSync, not process.stderr: a piped stderr would load net itself.
    writeFileSync(probe, "process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify(process.moduleLoadList)));\n");
    const run = spawnSync(process.execPath, ['--require', probe, BIN, FOUNDING], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    assert.equal(run.status, 1, 'the founding report is a deadlock');
    assert.match(run.stdout, /^Deadlock: /);
    const loaded = JSON.parse(run.stderr) as string[];
    // child_process and crypto: required by the gdb driver when it starts and by commander only
    // to spawn (build/bundle.ts); the deadlock's signature hashes in JavaScript. tty: chalk's own
    // colour detection is not in the bundle, and stdin's TTY flag is read only without a file.
    for (const module of ['internal/modules/esm/module_job', 'internal/modules/esm/translators', 'v8', 'fs/promises', 'child_process', 'crypto', 'tty', 'dgram']) {
      assert.ok(!loaded.includes(`NativeModule ${module}`), `${module} is not loaded by a start on a dump`);
    }
    // With the report going to a file, no socket module either (a pipe needs net for process.stdout).
    const out = join(dir, 'report.txt');
    const fd = openSync(out, 'w');
    const toFile = spawnSync(process.execPath, ['--require', probe, BIN, FOUNDING], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', fd, 'pipe'] });
    closeSync(fd);
    assert.equal(toFile.status, 1);
    assert.equal(readFileSync(out, 'utf8'), run.stdout, 'the same report in the file');
    const loadedToFile = JSON.parse(toFile.stderr) as string[];
    // Nor the streams: a file (and /dev/null) is written with fs.writeSync, not through process.stdout.
    for (const module of ['net', 'tty', 'child_process', 'crypto', 'stream', 'internal/fs/sync_write_stream']) {
      assert.ok(!loadedToFile.includes(`NativeModule ${module}`), `${module} is not loaded by a start that writes its report to a file`);
    }
    const toNull = spawnSync(process.execPath, ['--require', probe, BIN, FOUNDING], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, stdio: ['ignore', 'ignore', 'pipe'] });
    assert.equal(toNull.status, 1);
    assert.ok(!(JSON.parse(toNull.stderr) as string[]).includes('NativeModule internal/fs/sync_write_stream'), 'stdout on /dev/null is written directly too');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('commander requires child_process only to spawn, and a commander that changed the line fails the build', () => {
  const source = readFileSync(join(ROOT, 'node_modules', 'commander', 'lib', 'command.js'), 'utf8');
  const lazy = lazyCommanderSource(source);
  assert.ok(!lazy.includes("const childProcess = require('node:child_process');"));
  assert.match(lazy, /const childProcess = \{ spawn: \(\.\.\.args\) => require\('node:child_process'\)\.spawn\(\.\.\.args\) \};/);
  // Everything else is commander's own text.
  assert.equal(lazy.length - source.length, lazy.split('\n')[1]!.length - source.split('\n')[1]!.length);
  assert.throws(() => lazyCommanderSource(source.replace("require('node:child_process')", "require('child_process')")), /no longer requires child_process in the expected line/);
  assert.throws(() => lazyCommanderSource(`${source}\nchildProcess.fork('x');\n`), /more than spawn/);
});

test('the chalk in the bundle detects no colour of its own; the level comes from createChalk, as unbundled', { skip: notBundled }, async () => {
  const bundle = readFileSync(BUNDLE, 'latin1');
  assert.ok(bundle.includes(`// waitgraph-stub:${CHALK_SUPPORTS_COLOR_STUB_PATH}`), 'the stub is in the bundle');
  assert.ok(!bundle.includes('node_modules/chalk/source/vendor/supports-color/index.js'), 'chalk\'s supports-color is not');
  // The colours of a --color and of a FORCE_COLOR run are those of the modules tsc wrote.
  for (const [args, env] of [[['--color', FOUNDING], {}], [[FOUNDING], { FORCE_COLOR: '3' }]] as const) {
    const bundled = spawnSync(process.execPath, [BIN, ...args], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '', ...env } });
    let stdout = '';
    const io: CliIO = { out: (t) => void (stdout += t), err: () => undefined, stdin: process.stdin, stdoutIsTTY: false, stderrIsTTY: false, env, cwd: ROOT };
    assert.equal(await runCli([...args], io, version), bundled.status);
    assert.match(bundled.stdout, /\u001b\[/, `${args.join(' ')} is coloured`);
    assert.equal(bundled.stdout, stdout);
  }
});

test('a --source start hands web-tree-sitter the wasm bytes: no ES module loader, fs/promises or perf_hooks', { skip: notBundled }, () => {
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-source-modules-'));
  try {
    const probe = join(dir, 'probe.cjs');
    writeFileSync(probe, "process.on('exit', () => require('node:fs').writeSync(2, JSON.stringify(process.moduleLoadList)));\n");
    const tree = join(dir, 'tree');
    mkdirSync(tree);
    writeFileSync(join(tree, 'gc.c'), 'int main(void) { return 0; }\n');
    const run = spawnSync(process.execPath, ['--require', probe, BIN, FOUNDING, '--source', tree], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' } });
    assert.equal(run.status, 1, run.stderr.slice(0, 300));
    const loaded = JSON.parse(run.stderr) as string[];
    assert.ok(loaded.includes('NativeModule v8'), 'the probe sees the --source run (it sets --liftoff-only through node:v8)');
    for (const module of ['internal/modules/esm/module_job', 'internal/modules/esm/translators', 'fs/promises', 'perf_hooks']) {
      assert.ok(!loaded.includes(`NativeModule ${module}`), `${module} is not loaded by a --source start`);
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
