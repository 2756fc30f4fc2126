/**
 * `--source DIR` on real programs (fixtures/programs), built and run here, their threads captured
 * with gdb as a user would (`thread apply all bt`): the text alone cannot say who holds the
 * mutexes (hang); with the programs' source the locks each function took before its line close
 * the exact cycle (deadlock, evidence inferred, basis source). Healthy programs stay ok. An edited
 * copy of a program's source (a line moved) is detected: the text-only verdict plus a note.
 * The captured dumps (fixtures/live) are checked the same way where gdb cannot attach.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, test } from 'node:test';
import { promisify } from 'node:util';
import type { JsonReport, JsonThreadRef } from '../../src/report/json.js';
import { runWaitgraph } from '../helpers/run-cli.js';
import { runWaitgraphAsync } from './cli.js';
import { captureBacktraces, LIVE_FIXTURES, LIVE_TEST_TIMEOUT_MS, liveSkipReason, livePids, PROGRAMS_DIR, startProgram, type Started } from './harness.js';
import { PROGRAMS, type ProgramSpec } from './programs.js';
import { buildZoo, ZOOS } from '../rules/zoos.js';

const skipReason = await liveSkipReason();
/** The programs whose every hold the code shows: the source closes their cycle. */
const FROM_SOURCE = ['abba', 'cxx-lock-guard-abba', 'join-holds-mutex', 'abc-cycle'];
const HEALTHY = PROGRAMS.filter((p) => p.expect === 'healthy' && p.language !== 'python');

/** Why a tool is missing (`rustc --version` fails), or null. */
async function toolMissing(tool: string): Promise<string | null> {
  try {
    await promisify(execFile)(tool, ['--version'], { timeout: 20_000 });
    return null;
  } catch {
    return `${tool} not found`;
  }
}

/** Why glib-abba cannot be built here (no pkg-config or no GLib headers), or null. */
async function glibMissing(): Promise<string | null> {
  try {
    await promisify(execFile)('pkg-config', ['--exists', 'glib-2.0'], { timeout: 20_000 });
    return null;
  } catch {
    return 'pkg-config glib-2.0 not found (Debian: libglib2.0-dev)';
  }
}

/** Runs `fn` with a started program, killed afterwards; READY may be slow on a loaded machine. */
async function withProgram<T>(name: string, fn: (p: Started) => Promise<T>): Promise<T> {
  const program = await startProgram(name, { readyTimeoutMs: 90_000 });
  try {
    return await fn(program);
  } finally {
    await program.kill();
  }
}

const spec = (name: string): ProgramSpec => PROGRAMS.find((p) => p.name === name) as ProgramSpec;
const names = (report: JsonReport, ids: JsonThreadRef[]): string[] => ids.map((id) => report.threads.find((t) => t.id === id)?.name ?? `?${id}`).sort();

/** The JSON report of a dump, with and without --source. */
function reportOf(dump: string, args: string[]): { code: number; report: JsonReport; stderr: string } {
  const r = runWaitgraph(['-', '--format', 'json', ...args], { input: dump });
  return { code: r.code, report: JSON.parse(r.stdout) as JsonReport, stderr: r.stderr };
}

/** The report with --source: exit 1, one deadlock of exactly `cycle` (thread names), evidence inferred. */
function exactCycleFromSource(dump: string, sourceDir: string, cycle: readonly string[]): { report: JsonReport; deadlock: JsonReport['deadlocks'][number] } {
  const read = reportOf(dump, ['--source', sourceDir]);
  assert.equal(read.stderr, '');
  assert.equal(read.code, 1);
  assert.equal(read.report.verdict, 'deadlock', `with --source: ${JSON.stringify(read.report.notes)}`);
  assert.equal(read.report.deadlocks.length, 1);
  const deadlock = read.report.deadlocks[0]!;
  assert.deepEqual(names(read.report, deadlock.threads), [...cycle].sort(), 'exactly the cycle threads');
  assert.equal(deadlock.evidence, 'inferred');
  return { report: read.report, deadlock };
}

/** What a deadlock program must show: hang from the text, the exact cycle from text + --source, holds from the source. */
function assertSourceClosesCycle(name: string, dump: string, sourceDir: string): void {
  const plain = reportOf(dump, []);
  assert.equal(plain.report.verdict, 'hang', `${name}: the text alone gives hang`);
  const { report, deadlock: d } = exactCycleFromSource(dump, sourceDir, spec(name).cycle);
  const read = { report };
  const sourceHolds = read.report.edges.filter((e) => e.kind === 'holds' && e.basis === 'source');
  assert.ok(sourceHolds.length >= 1, 'hold edges from the source');
  for (const e of sourceHolds) {
    assert.equal(e.evidence, 'inferred');
    assert.equal(e.rule, 'source');
    assert.match(e.description, /^holds `[\w:>-]+` since [\w.-]+:\d+: `[^`]+`$/, 'names the lock, its file:line and the line');
    assert.ok(e.site?.code !== undefined && e.site.line !== null, 'the acquisition site with its code');
  }
  for (const step of d.cycle) assert.ok(step.text.length > 0);
  // The text report says it: evidence inferred (source), and each hold's line.
  // Words as the report wraps them at 100 columns, joined back.
  const text = runWaitgraph(['-', '--source', sourceDir], { input: dump }).stdout.replace(/\s+/g, ' ');
  assert.match(text, /Cycle \(evidence: inferred \(source\);/);
  assert.match(text, /\[inferred \(source\)\]/);
  for (const e of sourceHolds) assert.ok(text.includes(e.description), `text shows: ${e.description}`);
  // Where each cycle thread waits, with the code at that line.
  for (const t of read.report.threads.filter((t) => d.threads.includes(t.id))) assert.ok(t.acquireSite?.code !== undefined, `${t.name}: acquire site code`);
}

/**
 * fixtures/programs/glib-abba.c (test/rules/zoos.ts builds it against the system's shared libglib,
 * which has no debug info): a GMutex ABBA where gdb prints no mutex address. The text names both
 * waits (glib.mutex.lock-nodebug) and where each thread asks; it cannot say who holds them, and a
 * thread idle in a GMainLoop could, so it claims no deadlock. The source closes the exact cycle.
 */
const GLIB_ABBA = { name: 'glib-abba', cycle: ['glib-ab', 'glib-ba'], holds: { 'glib-ab': 'lock_a', 'glib-ba': 'lock_b' } } as const;

function assertGlibSourceClosesCycle(dump: string, sourceDir: string): void {
  const plain = reportOf(dump, []);
  assert.notEqual(plain.report.verdict, 'deadlock', 'the text alone shows no holder');
  for (const name of GLIB_ABBA.cycle) {
    const t = plain.report.threads.find((x) => x.name === name);
    assert.ok(t !== undefined, `${name} in the dump`);
    assert.ok(t.rules.includes('glib.mutex.lock-nodebug'), `${name}: ${t.rules.join(', ')}`);
    assert.equal(t.state, 'blocked');
    assert.equal(t.stateText, 'waits for a GMutex (address not shown)');
    // Where it waits is the program's line, not the nameless libglib frame.
    assert.match(`${t.acquireSite?.function} ${t.acquireSite?.file}`, /^take_[ab]_then_[ab] glib-abba\.c$/, `${name} acquire site`);
  }
  const read = { report: exactCycleFromSource(dump, sourceDir, GLIB_ABBA.cycle).report };
  for (const [name, lock] of Object.entries(GLIB_ABBA.holds)) {
    const id = read.report.threads.find((t) => t.name === name)?.id;
    // With the source, where it waits shows the line that asks for the other lock.
    const wanted = lock === 'lock_a' ? 'lock_b' : 'lock_a';
    assert.equal(read.report.threads.find((t) => t.name === name)?.acquireSite?.code, `g_mutex_lock(&${wanted});`);
    const held = read.report.edges.filter((e) => e.kind === 'holds' && e.basis === 'source' && e.to === `thread:${id}`);
    assert.equal(held.length, 1, `${name} holds one GMutex by the source`);
    assert.match(held[0]!.description, new RegExp(`^holds \`${lock}\` since glib-abba\.c:\\d+: \`g_mutex_lock\\(&${lock}\\);\`$`));
    // The GMutex it holds is the one the other cycle thread waits for.
    const other = read.report.threads.find((t) => GLIB_ABBA.cycle.includes(t.name as never) && t.name !== name);
    assert.deepEqual(other?.waitsFor, [held[0]!.from.slice('res:'.length)]);
  }
}

/**
 * fixtures/programs/rust-abba.rs (a zoo: test/rules/zoos.ts builds it with rustc -g): a
 * std::sync::Mutex ABBA on statics. The dump names each Mutex (address and symbol) but, std's
 * futex Mutex recording no owner, no holder: the text gives a hang. The source's `let` guards
 * close the exact cycle; rs-audit dropped its guard before it waits, so it holds nothing and is
 * only blocked behind the cycle.
 */
const RUST_ABBA = { name: 'rust-abba', cycle: ['rs-journal', 'rs-transfer'], holds: { 'rs-transfer': 'ACCOUNTS', 'rs-journal': 'JOURNAL' }, behind: 'rs-audit' } as const;

function assertRustSourceClosesCycle(dump: string, sourceDir: string): void {
  const plain = reportOf(dump, []);
  assert.equal(plain.report.verdict, 'hang', 'the text alone: a hang, no cycle');
  assert.deepEqual(plain.report.deadlocks, []);
  const { report, deadlock: d } = exactCycleFromSource(dump, sourceDir, RUST_ABBA.cycle);
  const read = { report };
  const byName = (name: string) => read.report.threads.find((t) => t.name === name)!;
  for (const [name, lock] of Object.entries(RUST_ABBA.holds)) {
    const held = read.report.edges.filter((e) => e.kind === 'holds' && e.basis === 'source' && e.to === `thread:${byName(name).id}`);
    assert.deepEqual(held.map((e) => e.description.replace(/:\d+:/, ':N:')), [`holds \`${lock}\` since rust-abba.rs:N: \`let _${lock.toLowerCase()} = ${lock}.lock().unwrap();\``], name);
    assert.match(byName(name).acquireSite?.code ?? '', /^let _\w+ = \w+\.lock\(\)\.unwrap\(\);$/);
  }
  // drop(audit) let AUDIT go before the wait: nothing is claimed of rs-audit, blocked behind the cycle.
  const audit = byName(RUST_ABBA.behind);
  assert.deepEqual(read.report.edges.filter((e) => e.kind === 'holds' && e.basis === 'source' && e.to === `thread:${audit.id}`), []);
  assert.ok(d.blockedBehind.includes(audit.id), `rs-audit blocked behind the cycle: ${JSON.stringify(d.blockedBehind)}`);
}

/**
 * fixtures/programs/rust-match-guard.rs: a match on a value read through a MutexGuard never bound;
 * the arm that locks the same Mutex again waits for the scrutinee's guard, which lives through the
 * arms. The text shows one thread waiting (a hang); the source shows it holds what it waits for.
 */
function assertRustSelfDeadlockFromSource(dump: string, sourceDir: string): void {
  assert.equal(reportOf(dump, []).report.verdict, 'hang', 'the text alone: a hang');
  const { report, deadlock } = exactCycleFromSource(dump, sourceDir, ['rs-cache']);
  const id = report.threads.find((t) => t.name === 'rs-cache')?.id;
  const held = report.edges.filter((e) => e.kind === 'holds' && e.basis === 'source' && e.to === `thread:${id}`);
  assert.equal(held.length, 1);
  assert.match(held[0]!.description, /^holds `CACHE` since rust-match-guard\.rs:\d+: `match CACHE\.lock\(\)\.unwrap\(\)/);
  assert.deepEqual(deadlock.resources.map((r) => `res:${r}`), [held[0]!.from], 'it waits for the lock it holds');
}

describe('--source on the captured dumps of the programs (no gdb needed)', () => {
  for (const name of FROM_SOURCE) {
    test(`fixtures/live/${name}.txt: hang from the text; the exact cycle from text + --source fixtures/programs, evidence inferred (source)`, () => {
      assertSourceClosesCycle(name, readFileSync(join(LIVE_FIXTURES, `${name}.txt`), 'utf8'), PROGRAMS_DIR);
    });
  }
  test('fixtures/live/rust-abba.txt (std::sync::Mutex statics): a hang from the text, the exact cycle with --source', () => {
    for (const variant of ['txt', 'nodebug.txt']) assertRustSourceClosesCycle(readFileSync(join(LIVE_FIXTURES, `${RUST_ABBA.name}.${variant}`), 'utf8'), PROGRAMS_DIR);
  });
  test('fixtures/live/rust-match-guard.txt: a match scrutinee\'s guard, held through the arms, is the thread\'s own deadlock with --source', () => {
    for (const variant of ['txt', 'nodebug.txt']) assertRustSelfDeadlockFromSource(readFileSync(join(LIVE_FIXTURES, `rust-match-guard.${variant}`), 'utf8'), PROGRAMS_DIR);
  });
  test('fixtures/live/glib-abba.txt (GLib without debug info): GMutex waits from the text, the exact cycle with --source', () => {
    for (const variant of ['txt', 'nodebug.txt']) assertGlibSourceClosesCycle(readFileSync(join(LIVE_FIXTURES, `${GLIB_ABBA.name}.${variant}`), 'utf8'), PROGRAMS_DIR);
  });
  for (const p of HEALTHY) {
    test(`fixtures/live/${p.name}.txt stays ok with --source`, () => {
      for (const variant of ['txt', 'nodebug.txt']) {
        const r = reportOf(readFileSync(join(LIVE_FIXTURES, `${p.name}.${variant}`), 'utf8'), ['--source', PROGRAMS_DIR]);
        assert.equal(r.report.verdict, 'ok', `${variant}: ${JSON.stringify(r.report.notes)}`);
        assert.equal(r.code, 0);
      }
    });
  }

  test('an edited copy of abba.c (a line moved) is detected: the text-only verdict plus a note', () => {
    const dir = mkdtempSync(join(tmpdir(), 'waitgraph-edited-'));
    try {
      cpSync(PROGRAMS_DIR, dir, { recursive: true });
      const original = readFileSync(join(dir, 'abba.c'), 'utf8');
      writeFileSync(join(dir, 'abba.c'), original.replace('static pthread_mutex_t lock_a', '/* a comment added since the build */\nstatic pthread_mutex_t lock_a'));
      const dump = readFileSync(join(LIVE_FIXTURES, 'abba.txt'), 'utf8');
      const plain = reportOf(dump, []);
      const read = reportOf(dump, ['--source', dir]);
      assert.equal(read.report.verdict, 'hang', 'the text-only verdict');
      assert.deepEqual(read.report.hung, plain.report.hung);
      assert.equal(read.report.edges.filter((e) => e.basis === 'source').length, 0, 'no line of the edited file is used');
      assert.ok(read.report.notes.some((n) => /^--source: abba\.c does not match the dump \(an edited checkout\?\): line \d+ of \w+ reads `[^`]+`, which does not call pthread_\w+ \(the frame below it\)\. None of its lines are used\.$/.test(n)), read.report.notes.join('\n'));
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('without --source the report is byte-identical to before; a missing folder is one line, exit 2', () => {
    const dump = readFileSync(join(LIVE_FIXTURES, 'abba.txt'), 'utf8');
    const missing = runWaitgraph(['-', '--source', 'no/such/dir'], { input: dump });
    assert.equal(missing.code, 2);
    assert.equal(missing.stdout, '');
    assert.equal(missing.stderr, 'waitgraph: --source no/such/dir: no such folder\n');
    // A folder whose files no frame names changes nothing but the grammar load: same report, byte for byte.
    const empty = mkdtempSync(join(tmpdir(), 'waitgraph-empty-'));
    try {
      for (const format of ['text', 'json', 'markdown', 'dot', 'sarif']) {
        assert.equal(runWaitgraph(['-', '--format', format, '--source', empty], { input: dump }).stdout, runWaitgraph(['-', '--format', format], { input: dump }).stdout, format);
      }
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }
  });
});

describe('--source on the real programs, captured live', { concurrency: 2 }, () => {
  for (const name of FROM_SOURCE) {
    test(`${name}: captured with gdb now, hang from the text, the exact cycle with --source`, { skip: skipReason ?? false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
      await withProgram(name, async (p) => {
        assertSourceClosesCycle(name, await captureBacktraces(p.pid), PROGRAMS_DIR);
      });
    });
  }
  for (const p of HEALTHY) {
    test(`${p.name}: ok with --source`, { skip: skipReason ?? false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
      await withProgram(p.name, async (run) => {
        const r = reportOf(await captureBacktraces(run.pid), ['--source', PROGRAMS_DIR]);
        assert.equal(r.report.verdict, 'ok', JSON.stringify(r.report.notes));
      });
    });
  }
  test('rust-abba (rustc -g): captured with gdb now, the exact cycle with --source', { timeout: LIVE_TEST_TIMEOUT_MS }, async (t) => {
    const reason = skipReason ?? (await toolMissing('rustc'));
    if (reason) return t.skip(reason);
    await buildZoo(ZOOS.find((z) => z.name === RUST_ABBA.name)!);
    await withProgram(RUST_ABBA.name, async (p) => {
      assertRustSourceClosesCycle(await captureBacktraces(p.pid), PROGRAMS_DIR);
    });
  });
  test('rust-match-guard (rustc -g): captured with gdb now, the thread\'s own deadlock with --source', { timeout: LIVE_TEST_TIMEOUT_MS }, async (t) => {
    const reason = skipReason ?? (await toolMissing('rustc'));
    if (reason) return t.skip(reason);
    await buildZoo(ZOOS.find((z) => z.name === 'rust-match-guard')!);
    await withProgram('rust-match-guard', async (p) => {
      assertRustSelfDeadlockFromSource(await captureBacktraces(p.pid), PROGRAMS_DIR);
    });
  });
  test('glib-abba (shared libglib, no debug info): captured with gdb now, the exact cycle with --source', { timeout: LIVE_TEST_TIMEOUT_MS }, async (t) => {
    const reason = skipReason ?? (await glibMissing());
    if (reason) return t.skip(reason);
    const zoo = ZOOS.find((z) => z.name === GLIB_ABBA.name)!;
    await buildZoo(zoo);
    await withProgram(GLIB_ABBA.name, async (p) => {
      assertGlibSourceClosesCycle(await captureBacktraces(p.pid), PROGRAMS_DIR);
    });
  });
  test('attach --source: gdb proves the cycle and the report shows the source lines', { skip: skipReason ?? false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    await withProgram('abba', async (p) => {
      const r = await runWaitgraphAsync(['attach', String(p.pid), '--source', PROGRAMS_DIR]);
      assert.equal(r.code, 1, r.stderr);
      assert.match(r.stdout, /Cycle \(evidence: proven;/);
      assert.match(r.stdout, /at take_a_then_b at abba\.c:17: pthread_mutex_lock\(&lock_b\);/);
      const missing = await runWaitgraphAsync(['attach', String(p.pid), '--source', 'no/such/dir']);
      assert.equal(missing.code, 2);
      assert.equal(missing.stderr, 'waitgraph: --source no/such/dir: no such folder\n');
    });
  });
});

after(() => {
  assert.deepEqual(livePids(), [], 'every started program was killed');
});
