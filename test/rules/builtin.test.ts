/**
 * The CLI starts from the built-in rules the build compiled to JSON (src/rules/builtin.ts), not
 * from the YAML through zod (issue 7, figure 4). Both must be the same rules: same ids in the
 * same order, same compiled conditions, and the same analysis of every fixture dump.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { analyzeText } from '../../src/analyze/index.js';
import { renderJson } from '../../src/report/index.js';
import { loadRules } from '../../src/rules/load.js';
import { builtinDirStates, builtinFileStates, statesMatch } from '../../src/rules/builtin.js';
import { builtinRulesDir, underDir } from '../../src/rules/builtin-dir.js';
import type { LoadedRules } from '../../src/rules/types.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';

/** The rule set as text: closures (compiled patterns) by their arity, Maps by their keys. */
function describe(rules: LoadedRules): string {
  return JSON.stringify(rules, (_key, value: unknown) => (typeof value === 'function' ? `fn/${value.length}` : value instanceof Map ? [...value.keys()] : value));
}

const PRECOMPILE = join(ROOT, 'dist', 'src', 'build', 'precompile-rules.js');
const BUILTIN = join(ROOT, 'dist', 'src', 'rules', 'builtin.js');

test('the build writes the JSON, and the rules compiled from it are the rules read from YAML', () => {
  execFileSync(process.execPath, [PRECOMPILE], { stdio: 'pipe' });
  // A fresh process, so builtin.ts decides at import time, as in the CLI.
  const out = execFileSync(
    process.execPath,
    [
      '--input-type=module',
      '-e',
      `const m = await import(${JSON.stringify(new URL(`file://${BUILTIN}`).href)});
       const r = m.loadBuiltinRules();
       process.stdout.write(JSON.stringify({ fromJson: m.builtinRulesFromJson(), text: JSON.stringify(r, (k, v) => typeof v === 'function' ? 'fn/' + v.length : v instanceof Map ? [...v.keys()] : v) }));`,
    ],
    { encoding: 'utf8' },
  );
  const child = JSON.parse(out) as { fromJson: boolean; text: string };
  assert.equal(child.fromJson, true, 'the CLI path uses the JSON the build wrote');
  assert.equal(child.text, describe(loadRules()));
});

test('every fixture dump is analysed the same with the JSON-compiled rules', async () => {
  const { loadBuiltinRules } = await import('../../src/rules/builtin.js');
  const fromJson = loadBuiltinRules();
  const fromYaml = loadRules();
  const files: string[] = [];
  const walk = (dir: string): void => {
    for (const name of readdirSync(dir).sort()) {
      const path = join(dir, name);
      if (statSync(path).isDirectory()) walk(path);
      else if (name.endsWith('.txt')) files.push(path);
    }
  };
  walk(FIXTURES);
  let compared = 0;
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const a = analyzeText(text, { rules: fromYaml });
    if (a.stats.backtraces === 0) continue;
    assert.equal(renderJson(analyzeText(text, { rules: fromJson })), renderJson(a), file);
    compared++;
  }
  assert.ok(compared > 50, `compared ${compared} dumps`);
});


test('the JSON is used only while no pack folder or rule file changed since the build (no folder is listed at a start)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-packs-'));
  try {
    mkdirSync(join(dir, 'mypack'));
    writeFileSync(join(dir, 'mypack', 'primitives.yaml'), 'primitives: []\n');
    writeFileSync(join(dir, 'mypack', 'mypack.a.yaml'), 'id: mypack.a\n');
    // Times one second in the past, so any change below gives a new time even on a coarse clock.
    const past = new Date(Date.now() - 10_000);
    for (const p of ['mypack/primitives.yaml', 'mypack/mypack.a.yaml', 'mypack', '']) utimesSync(join(dir, p), past, past);
    const built = () => ({ dirs: builtinDirStates(dir), files: builtinFileStates(dir) });
    const states = built();
    assert.deepEqual(states.dirs.map((d) => d.path), ['', 'mypack']);
    assert.deepEqual(states.files.map((f) => f.path), ['mypack/primitives.yaml', 'mypack/mypack.a.yaml']);
    assert.equal(statesMatch(states, dir), true, 'unchanged');

    writeFileSync(join(dir, 'mypack', 'mypack.a.yaml'), 'id: mypack.a\nsummary: edited\n');
    assert.equal(statesMatch(states, dir), false, 'a rule file edited in place');

    const again = built();
    writeFileSync(join(dir, 'mypack', 'mypack.b.yaml'), 'id: mypack.b\n');
    assert.equal(statesMatch(again, dir), false, 'a rule file added to a pack');

    const third = built();
    renameSync(join(dir, 'mypack', 'mypack.b.yaml'), join(dir, 'mypack', 'mypack.c.yaml'));
    assert.equal(statesMatch(third, dir), false, 'a rule file renamed');

    const fourth = built();
    mkdirSync(join(dir, 'otherpack'));
    assert.equal(statesMatch(fourth, dir), false, 'a pack added');

    const fifth = built();
    rmSync(join(dir, 'mypack', 'mypack.c.yaml'));
    assert.equal(statesMatch(fifth, dir), false, 'a rule file removed');
    assert.equal(statesMatch(built(), dir), true, 'recorded again: unchanged');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('underDir is path.join for every path of the packs folder a start reads, and for a folder with a trailing separator', () => {
  const dir = builtinRulesDir();
  const paths = [...builtinDirStates(dir).map((d) => d.path), ...builtinFileStates(dir).map((f) => f.path)];
  assert.ok(paths.length > 100, `${paths.length} paths`);
  for (const rel of paths) assert.equal(underDir(dir, rel), join(dir, rel));
  assert.equal(underDir('/', 'glibc/primitives.yaml'), join('/', 'glibc/primitives.yaml'));
  assert.equal(underDir(dir, ''), dir);
});
