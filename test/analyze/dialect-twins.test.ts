/**
 * Twin fixtures: the same stacks in Julia's own dump format, in LLDB's, and as gdb prints them.
 * The rules must fire on each exactly as on its gdb twin: the same states, waits, holds and
 * deadlocks, and the founding deadlock {7, 8, 9} as in the founding gdb text. Every Julia or LLDB
 * fixture of the project (fixtures/, the rule packs' fixtures, the rule examples) has its gdb twin
 * in fixtures/dialects/: a test fails when one is added without.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { analyzeText } from '../../src/analyze/index.js';
import type { Analysis } from '../../src/model/analysis.js';
import { FIXTURES, FOUNDING, ROOT } from '../helpers/paths.js';

const DIR = join(FIXTURES, 'dialects');
const analyse = (name: string): Analysis => analyzeText(readFileSync(join(DIR, name), 'utf8'));
const analysePath = (path: string): Analysis => analyzeText(readFileSync(join(ROOT, path), 'utf8'));

/**
 * What the rules concluded, per thread and per deadlock, without line numbers or frame levels: a
 * backtrace with no thread (`bt@LINE`) is named by its place among those (`bt#1`).
 */
function facts(a: Analysis): string[] {
  const headerless = a.threads.filter((t) => t.key.startsWith('bt@')).map((t) => t.key);
  const key = (k: string): string => (k.startsWith('bt@') ? `bt#${headerless.indexOf(k) + 1}` : k);
  const out: string[] = [];
  for (const t of a.threads) {
    out.push(`thread ${key(t.key)} state ${t.state} rules ${[...t.rules].sort().join(',')}`);
    for (const w of [...t.waitsFor].sort()) out.push(`thread ${key(t.key)} waits ${w.replace(/@bt@\d+$/, '@bt')}`);
    for (const h of [...t.holds].sort()) out.push(`thread ${key(t.key)} holds ${h}`);
  }
  for (const d of a.deadlocks) out.push(`deadlock ${d.threads.map(key).join(',')} ${d.title} ${d.signature} ${d.rules.join(',')}`);
  out.push(`verdict ${a.verdict}`);
  return out.sort();
}

/** Each Julia or LLDB fixture (path from the repo root) and its gdb twin. */
const TWINS: Array<[string, string]> = [
  ['fixtures/dialects/enzyme-deferred.julia.txt', 'fixtures/dialects/enzyme-deferred.gdb.txt'],
  ['fixtures/dialects/enzyme-deferred.lldb.txt', 'fixtures/dialects/enzyme-deferred.gdb.txt'],
  ['fixtures/dialects/orc-context-lock.julia.txt', 'fixtures/dialects/orc-context-lock.gdb.txt'],
  // The parse-shape fixtures of the dialects (their parse is held by fixtures/parse/shapes/*.json).
  ['fixtures/parse/shapes/julia-signal-dump.txt', 'fixtures/dialects/julia-signal-dump.gdb.txt'],
  ['fixtures/parse/shapes/julia-task-backtraces.txt', 'fixtures/dialects/julia-task-backtraces.gdb.txt'],
  ['fixtures/parse/shapes/lldb-bt-all.txt', 'fixtures/dialects/lldb-bt-all.gdb.txt'],
  // The macos pack's rule fixtures, LLDB's `bt all`, and the README's user-pack example.
  ...['cond.wait', 'dispatch.group-wait', 'dispatch.sync', 'fork.prepare-handler', 'gcd.idle', 'mutex.wait', 'runloop.wait', 'semaphore.wait', 'unfair-lock'].map(
    (id): [string, string] => [`src/rules/packs/macos/macos.${id}.txt`, `fixtures/dialects/macos.${id}.gdb.txt`],
  ),
  ['test/rules/examples/lldb-mutex.txt', 'fixtures/dialects/lldb-mutex.gdb.txt'],
  ['test/rules/examples/mymac/mymac.psynch.mutex-wait.txt', 'fixtures/dialects/mymac.psynch.mutex-wait.gdb.txt'],
];

/** Text of Julia's signal or task dumps, or of LLDB's `bt` (a thread or frame line of its own). */
const DIALECT = /^(?:signal \(\d+\): |\[\d+\] signal \d+|==== Thread \d+ created|[ \t]*\*?[ \t]*(?:frame|thread) #\d+[:,])/m;

/** Every `.txt` under `dir` (repo-relative paths), but reports (golden/) and fuzz regressions. */
function textFiles(dir: string): string[] {
  const out: string[] = [];
  for (const entry of readdirSync(join(ROOT, dir)).sort()) {
    const path = join(dir, entry);
    if (statSync(join(ROOT, path)).isDirectory()) {
      if (entry !== 'golden' && entry !== 'robustness') out.push(...textFiles(path));
    } else if (entry.endsWith('.txt')) out.push(path);
  }
  return out;
}

test('twins: every Julia and LLDB fixture of the project has a gdb twin', () => {
  const dialectFixtures = ['fixtures', 'src/rules/packs', 'test/rules/examples']
    .flatMap(textFiles)
    .filter((path) => !path.endsWith('.gdb.txt') && DIALECT.test(readFileSync(join(ROOT, path), 'utf8')));
  // Not vacuous: the finder sees Julia and LLDB text.
  assert.ok(dialectFixtures.length >= 10, dialectFixtures.join(', '));
  const twinned = new Set(TWINS.map(([dialect]) => dialect));
  const missing = dialectFixtures.map((p) => relative(ROOT, join(ROOT, p))).filter((p) => !twinned.has(p));
  assert.deepEqual(missing, [], 'a Julia or LLDB fixture without a gdb twin in fixtures/dialects/ (add it to TWINS)');
  // And each twin is gdb text, not another dialect.
  for (const [, gdb] of TWINS) assert.ok(!DIALECT.test(readFileSync(join(ROOT, gdb), 'utf8')), `${gdb} is not gdb text`);
});

for (const [dialect, gdb] of TWINS) {
  test(`twins: ${dialect} gives the same facts as its gdb twin ${gdb}`, () => {
    const a = analysePath(dialect);
    const b = analysePath(gdb);
    // Not vacuous: the dialect was read (frames) and the gdb twin is not empty either.
    assert.ok(a.dump.stats.frames > 0 && b.dump.stats.frames > 0, `${dialect}: no frames read`);
    // Parked Julia tasks are no threads of the gdb twin: compared apart.
    const threadsOnly = (lines: string[]) => lines.filter((l) => !/^thread \d+\.task-/.test(l));
    assert.deepEqual(threadsOnly(facts(a)), facts(b));
  });
}

test('twins: the rules fire on the twins (the facts compared are not only "running")', () => {
  const fired = TWINS.filter(([dialect]) => analysePath(dialect).threads.some((t) => t.rules.length > 0));
  assert.ok(fired.length >= TWINS.length - 1, `rules fired on ${fired.length} of ${TWINS.length}`);
});

test('twins: the Julia and LLDB fixtures of the founding threads give the founding deadlock {7, 8, 9}', () => {
  const founding = analyzeText(readFileSync(FOUNDING, 'utf8')).deadlocks;
  assert.equal(founding.length, 1);
  for (const name of ['enzyme-deferred.julia.txt', 'enzyme-deferred.lldb.txt']) {
    const a = analyse(name);
    assert.equal(a.verdict, 'deadlock', name);
    assert.deepEqual(a.deadlocks.map((d) => d.threads), [['7', '8', '9']], name);
    // The same kind of deadlock, by the same acquire sites: the signature is the founding one's.
    assert.equal(a.deadlocks[0]!.signature, founding[0]!.signature, name);
    assert.deepEqual(a.deadlocks[0]!.rules, founding[0]!.rules, name);
  }
});

test('twins: a parked Julia task is no thread and never running', () => {
  const a = analyse('enzyme-deferred.julia.txt');
  const parked = a.threads.find((t) => t.key === '7.task-root');
  assert.equal(parked?.state, 'task-parked');
  // The task that ran on thread 7 is thread 7.
  assert.equal(a.threads.find((t) => t.key === '7')?.state, 'gc-unsafe');
  assert.ok(a.threads.every((t) => t.state !== 'running'));
});
