/** `--disable RULE|PACK` and a user rule's `overrides: ID`. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuleError } from '../../src/errors.js';
import { loadRules } from '../../src/rules/index.js';
import { disableRules } from '../../src/rules/compile.js';
import { analyzeText } from '../../src/analyze/index.js';
import { FOUNDING, PACKS } from '../helpers/paths.js';
import { runWaitgraph } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'waitgraph-override-'));
const GLIBC_MUTEX = readFileSync(join(PACKS, 'glibc', 'glibc.mutex.wait.yaml'), 'utf8');
const GIL_VS_MUTEX = readFileSync(join(PACKS, 'cpython', 'cpython.gil.vs-native-lock.txt'), 'utf8');

function write(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
}

test('--disable a rule id or a pack: its rules are gone, cycle rules that need them too', () => {
  const all = loadRules();
  const noSleep = disableRules(all, ['glibc.sleep']);
  assert.ok(!noSleep.byId.has('glibc.sleep') && noSleep.byId.has('glibc.mutex.wait'));
  assert.equal(noSleep.threadRules.length, all.threadRules.length - 1);
  const noGlibc = disableRules(all, ['glibc']);
  assert.deepEqual([...noGlibc.byId.values()].filter((r) => r.pack === 'glibc'), []);
  assert.ok(!noGlibc.byId.has('cpython.gil.vs-native-lock'), 'the GIL ↔ mutex cycle rule needs glibc.mutex.wait');
  assert.ok(noGlibc.byId.has('cpython.gil.wait'));
  assert.equal(disableRules(all, []), all);
  assert.throws(() => disableRules(all, ['glibc.no-such']), (e: unknown) => e instanceof RuleError && /^--disable glibc\.no-such: no rule or pack of that name \(packs: .*glibc.*\)$/.test(e.message));
});

test('--disable on the command line changes the analysis, and a bad name is exit 2', () => {
  const founding = runWaitgraph(['-f', 'json', FOUNDING]);
  assert.equal(JSON.parse(founding.stdout).deadlocks[0].title, 'deadlock: Julia GC stop-the-world ↔ LLVM ORC lazy compile');
  const noCycleRule = runWaitgraph(['-f', 'json', '--disable', 'julia.gc.orc-lazy-compile', FOUNDING]);
  const report = JSON.parse(noCycleRule.stdout);
  assert.deepEqual(report.deadlocks[0].threads, [7, 8, 9], 'the cycle stays');
  assert.ok(!report.deadlocks[0].rules.includes('julia.gc.orc-lazy-compile'), 'its cycle rule is off');
  const noJulia = JSON.parse(runWaitgraph(['-f', 'json', '--disable', 'julia', '--disable', 'llvm-orc', FOUNDING]).stdout);
  assert.deepEqual(noJulia.deadlocks, [], 'without the Julia and ORC packs no rule makes the cycle');
  // libstdc++ still sees the std::future waits, but with no rule naming their producer any thread
  // that can go on (the signal listener in sigtimedwait) might fulfil them: no wait is known to be stuck.
  assert.equal(noJulia.verdict, 'ok');
  assert.equal(noJulia.verdictReasons[0].kind, 'can-progress');
  assert.ok(noJulia.threads.some((t: { id: number; waitsFor: string[] }) => t.id === 7 && t.waitsFor.includes('cxx:future')), 'the future waits are still read');
  const bad = runWaitgraph(['--disable', 'nope', FOUNDING]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /^waitgraph: --disable nope: no rule or pack of that name/);
  const check = runWaitgraph(['check', '--disable', 'nope', FOUNDING]);
  assert.equal(check.code, 2);
});

test('overrides: a user rule replaces a built-in in place; references to the old id follow it', () => {
  const mine = GLIBC_MUTEX.replace('id: glibc.mutex.wait', 'id: myapp.mutex.wait\noverrides: glibc.mutex.wait').replace('stateText: waits for a pthread mutex', 'stateText: waits for a myapp mutex');
  const rules = loadRules({ extraFiles: [write('myapp.mutex.wait.yaml', mine)], cwd: dir });
  assert.ok(!rules.byId.has('glibc.mutex.wait'));
  assert.equal(rules.byId.get('myapp.mutex.wait')?.overrides, 'glibc.mutex.wait');
  const before = loadRules();
  assert.equal(
    rules.threadRules.findIndex((r) => r.id === 'myapp.mutex.wait'),
    before.threadRules.findIndex((r) => r.id === 'glibc.mutex.wait'),
    'the same place in the evaluation order',
  );
  const cycle = rules.byId.get('cpython.gil.vs-native-lock');
  assert.ok(cycle?.kind === 'cycle' && cycle.requiredRules.includes('myapp.mutex.wait'));
  const a = analyzeText(GIL_VS_MUTEX, { rules });
  assert.deepEqual(a.deadlocks.map((d) => [d.threads, d.rules.includes('cpython.gil.vs-native-lock')]), [[['1', '2'], true]], 'the cycle rule still names the deadlock');
  assert.equal(a.threads.find((t) => t.key === '1')?.stateText, 'waits for a myapp mutex');
});

test('overrides: the same id may replace a built-in; without overrides a clash stays an error', () => {
  const same = GLIBC_MUTEX.replace('id: glibc.mutex.wait', 'id: glibc.mutex.wait\noverrides: glibc.mutex.wait\npack: myapp');
  const rules = loadRules({ extraFiles: [write('glibc.mutex.wait.yaml', same)], cwd: dir });
  assert.equal(rules.byId.get('glibc.mutex.wait')?.builtin, false);
  const clash = write('glibc.sleep.yaml', readFileSync(join(PACKS, 'glibc', 'glibc.sleep.yaml'), 'utf8'));
  assert.throws(() => loadRules({ extraFiles: [clash], cwd: dir }), (e: unknown) => e instanceof RuleError && /rule id glibc\.sleep is already defined in .*glibc\.sleep\.yaml \(a rule replaces another with overrides: glibc\.sleep\)$/.test(e.message));
  const missing = write('myapp.ghost.yaml', GLIBC_MUTEX.replace('id: glibc.mutex.wait', 'id: myapp.ghost\noverrides: glibc.ghost'));
  assert.throws(() => loadRules({ extraFiles: [missing], cwd: dir }), (e: unknown) => e instanceof RuleError && /^myapp\.ghost\.yaml:2: overrides: no rule glibc\.ghost to override$/.test(e.message));
  const kind = write('myapp.kind.yaml', GLIBC_MUTEX.replace('id: glibc.mutex.wait', 'id: myapp.kind\noverrides: cpython.gil.vs-native-lock'));
  assert.throws(() => loadRules({ extraFiles: [kind], cwd: dir }), /is a cycle rule; a thread rule cannot replace it/);
});
