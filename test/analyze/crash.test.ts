/**
 * The crash verdict (src/analyze/crash.ts): the fixtures in fixtures/crash/ (their sidecars are
 * also checked by `waitgraph check fixtures/`), the near misses, the exit code, and the published
 * crash dumps of ../shared/corpus (skipped when it is absent).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText } from '../../src/analyze/index.js';
import { parseDump } from '../../src/parse/index.js';
import { crashEvidenceOf } from '../../src/analyze/crash.js';
import { FIXTURES, HAS_SHARED_CORPUS, SHARED_CORPUS } from '../helpers/paths.js';
import { runWaitgraph } from '../helpers/run-cli.js';

const CRASH_DIR = join(FIXTURES, 'crash');
const fixture = (name: string): string => readFileSync(join(CRASH_DIR, name), 'utf8');

/** thread, signal, evidence, where it went wrong: what each crash fixture must give. */
const EXPECTED: Record<string, { thread: string; signal: string | null; evidence: string; site: string | null; verdict: string }> = {
  'abort-thread-join-self.txt': { thread: '4', signal: 'SIGABRT', evidence: 'signal-line', site: 'std::thread::join()', verdict: 'crash' },
  'assert-fail.txt': { thread: '1', signal: 'SIGABRT', evidence: 'assert', site: 'queue_pop', verdict: 'crash' },
  'segv-crash-handler.txt': { thread: '1', signal: 'SIGSEGV', evidence: 'signal-handler', site: 'Document::title', verdict: 'crash' },
  'core-segv-waiter.txt': { thread: '1', signal: 'SIGSEGV', evidence: 'signal-line', site: 'entry_commit', verdict: 'crash' },
  'deadlock-and-watchdog-abort.txt': { thread: '3', signal: 'SIGABRT', evidence: 'abort', site: 'watchdog_main', verdict: 'deadlock' },
};

for (const [name, want] of Object.entries(EXPECTED)) {
  test(`crash: ${name} names thread ${want.thread}, ${want.signal}, where it went wrong`, () => {
    const a = analyzeText(fixture(name));
    assert.equal(a.verdict, want.verdict);
    assert.ok(a.crash, 'a crash is reported');
    assert.equal(a.crash.thread, want.thread);
    assert.equal(a.crash.signal, want.signal);
    assert.equal(a.crash.evidence, want.evidence);
    assert.equal(a.crash.site?.function ?? null, want.site);
    // The crashing thread is never "running".
    const t = a.threads.find((x) => x.key === want.thread);
    assert.notEqual(t?.state, 'running');
    assert.match(a.crash.text, new RegExp(`thread ${want.thread}\\b`));
  });
}

test('crash: a crashed process is not hung — a wait on a lock the crashed thread may hold is where the crash froze it', () => {
  const a = analyzeText(fixture('core-segv-waiter.txt'));
  assert.equal(a.verdict, 'crash');
  assert.deepEqual(a.hung, []);
  // The wait is still listed, with the command that names its holder.
  assert.equal(a.unresolved.length, 1);
  assert.match(a.unresolved[0]!.gdbCommand ?? '', /__owner/);
});

test('crash: near misses are no crash (raise(SIGSTOP), pthread_kill of a peer, SIGINT, a Julia GC safepoint fault)', () => {
  for (const name of ['not-a-crash.txt', 'julia-safepoint-signal.txt']) {
    const a = analyzeText(fixture(name));
    assert.equal(a.crash, undefined, name);
    assert.notEqual(a.verdict, 'crash', name);
  }
});

test('crash: the evidence of one backtrace, rule by rule', () => {
  const bt = (text: string) => parseDump(text).backtraces[0]!;
  // A trap raised on purpose is a breakpoint, not a crash; an unknown or fatal one is.
  assert.equal(crashEvidenceOf(bt('#0  0x1 in raise (sig=5) at r.c:1\n#1  0x2 in main () at m.c:2\n'), 0, false), null);
  assert.equal(crashEvidenceOf(bt('#0  0x1 in raise () from /lib/libc.so.6\n#1  0x2 in main () at m.c:2\n'), 0, false)?.kind, 'abort');
  assert.equal(crashEvidenceOf(bt('#0  0x1 in raise (sig=11) at r.c:1\n#1  0x2 in main () at m.c:2\n'), 0, false)?.signal, 'SIGSEGV');
  // A handler for a signal that is not fatal (SIGPROF = 27) is no crash; for SIGBUS it is.
  assert.equal(crashEvidenceOf(bt('#0  0x1 in prof_handler (sig=27) at p.c:3\n#1  <signal handler called>\n#2  0x2 in work () at w.c:9\n'), 0, false), null);
  assert.equal(crashEvidenceOf(bt('#0  0x1 in on_fault (signum=7) at p.c:3\n#1  <signal handler called>\n#2  0x2 in work () at w.c:9\n'), 0, false)?.signal, 'SIGBUS');
  // LLDB's name for the trampoline counts as the signal frame.
  assert.equal(crashEvidenceOf(bt('frame #0: 0x1 app`on_fault(sig=11) at f.c:3\nframe #1: 0x2 libsystem_platform.dylib`_sigtramp + 29\nframe #2: 0x3 app`work at w.c:9\n'), 0, false)?.site?.function, 'work');
  // A freed-memory fill value counts only on a thread that is not waiting.
  const freed = '#0  0x1 in use_it (p=0xdddddddddddddddd) at u.c:4\n#1  0x2 in main () at m.c:2\n';
  assert.equal(crashEvidenceOf(bt(freed), 0, false)?.kind, 'freed-memory');
  assert.equal(crashEvidenceOf(bt(freed), 0, true), null);
  assert.equal(crashEvidenceOf(bt('#0  0x1 in use_it (p=0xdddd00000000dddd) at u.c:4\n'), 0, false), null);
});

test('crash: exit code 0 for a crash alone, 1 with a deadlock besides; JSON carries the crash', () => {
  const alone = runWaitgraph(['--format', 'json', join('fixtures', 'crash', 'assert-fail.txt')]);
  assert.equal(alone.code, 0, alone.stderr);
  const report = JSON.parse(alone.stdout) as { verdict: string; crash: { thread: number; signal: string; site: { function: string } } };
  assert.equal(report.verdict, 'crash');
  assert.equal(report.crash.thread, 1);
  assert.equal(report.crash.site.function, 'queue_pop');
  assert.equal(runWaitgraph([join('fixtures', 'crash', 'deadlock-and-watchdog-abort.txt')]).code, 1);
});

test('crash: SARIF has the waitgraph/crash rule and a note result naming the thread; `check` holds the crash sidecars', () => {
  const sarif = runWaitgraph(['--format', 'sarif', join('fixtures', 'crash', 'assert-fail.txt')]);
  assert.equal(sarif.code, 0, sarif.stderr);
  const run = (JSON.parse(sarif.stdout) as { runs: Array<{ tool: { driver: { rules: Array<{ id: string }> } }; results: Array<{ ruleId: string; level: string; properties: Record<string, string> }> }> }).runs[0]!;
  assert.ok(run.tool.driver.rules.some((r) => r.id === 'waitgraph/crash'));
  assert.deepEqual(run.results.map((r) => [r.ruleId, r.level, r.properties['thread'], r.properties['signal']]), [['waitgraph/crash', 'note', '1', 'SIGABRT']]);
  // Every crash fixture's sidecar says crash (or the deadlock found besides), and check agrees.
  const check = runWaitgraph(['check', join('fixtures', 'crash')]);
  assert.equal(check.code, 0, check.stdout);
  for (const name of ['abort-thread-join-self', 'assert-fail', 'core-segv-waiter', 'segv-crash-handler']) {
    assert.match(check.stdout, new RegExp(`fixtures/crash/${name}\\.txt\\s+crash\\s+crash\\s+ok`), name);
  }
  assert.match(check.stdout, /0 mismatched/);
});

const skip = HAS_SHARED_CORPUS ? false : 'the shared corpus is not beside this checkout';
const corpusText = (prefix: string): string | null => {
  const file = readdirSync(SHARED_CORPUS).find((f) => f.startsWith(prefix) && f.endsWith('.txt'));
  return file === undefined ? null : readFileSync(join(SHARED_CORPUS, file), 'utf8');
};

test('corpus: the published crash dumps get crash, with the thread that crashed', { skip }, () => {
  const cases: Array<[string, string, string | null, RegExp]> = [
    // Godot#46412: a thread joins itself, std::system_error, SIGABRT.
    ['035-', '23', 'SIGABRT', /^std::thread::join/],
    // KDE bug 431561: qFatal after the Wayland connection broke.
    ['007-', '1', 'SIGABRT', /QWaylandDisplay::checkError/],
    // DrKonqi's crash test: a null KCmdLineArgs dereferenced, under KCrash's handler.
    ['008-', '3', 'SIGSEGV', /^KCmdLineArgs::arg/],
    // bpo-36114: a daemon thread re-takes the GIL with a freed thread state (0xdb fill).
    ['014-', '1', null, /^take_gil/],
  ];
  for (const [prefix, thread, signal, site] of cases) {
    const text = corpusText(prefix);
    assert.ok(text !== null, prefix);
    const a = analyzeText(text);
    assert.equal(a.verdict, 'crash', prefix);
    assert.equal(a.crash?.thread, thread, prefix);
    assert.equal(a.crash?.signal, signal, prefix);
    assert.match(a.crash?.site?.function ?? '', site, prefix);
    assert.notEqual(a.threads.find((t) => t.key === thread)?.state, 'running', prefix);
  }
});

test('corpus: every crash dump with frames is a crash, none is a deadlock or hang, and no other dump is a crash', { skip }, () => {
  for (const label of readdirSync(SHARED_CORPUS).filter((f) => f.endsWith('.json'))) {
    const kind = (JSON.parse(readFileSync(join(SHARED_CORPUS, label), 'utf8')) as { kind: string }).kind;
    const text = readFileSync(join(SHARED_CORPUS, label.replace(/\.json$/, '.txt')), 'utf8');
    const a = analyzeText(text);
    if (kind === 'crash') {
      assert.ok(a.verdict !== 'deadlock' && a.verdict !== 'hang', `${label}: ${a.verdict}`);
      if (a.dump.stats.frames > 0) assert.equal(a.verdict, 'crash', label);
    } else {
      assert.notEqual(a.verdict, 'crash', label);
    }
  }
});
