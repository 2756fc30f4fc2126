import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze, openOwnerQueries } from '../../src/analyze/index.js';
import { loadRules } from '../../src/rules/index.js';
import type { OwnerFact } from '../../src/model/analysis.js';
import { dumpOf, f, mutexWaiter, thread } from './build-dump.js';
import { verdictLine } from '../../src/report/cycle-view.js';

// A self-contained mutex rule, so these tests do not depend on the glibc pack's wording.
const dir = mkdtempSync(join(tmpdir(), 'waitgraph-facts-'));
const RULE = join(dir, 'test.mutex.wait.yaml');
writeFileSync(
  RULE,
  `id: test.mutex.wait
pack: test
summary: Waits in pthread_mutex_lock.
match:
  frames:
    - function: { exact: pthread_mutex_lock, underscores: ignore }
      args:
        mutex: { address: true }
  blocked: true
effect:
  state: mutex-wait
  priority: 50
  evidence: proven
  waits:
    - resource: "mutex:{args.mutex.address}"
      description: "waits for the mutex {args.mutex.symbol|args.mutex.address}"
      ownerQuery: "print ((pthread_mutex_t *) {args.mutex.address})->__data.__owner"
      ownerAnswer: lwp
explanation: x
fix: y
sources: [z]
`,
);
const rules = loadRules({ noBuiltins: true, extraFiles: [RULE] });
const A = '0x0000555555558040';
const B = '0x555555558080';
const abba = () => dumpOf([mutexWaiter(1, `${A} <lock_a>`, 'worker_a'), mutexWaiter(2, `${B} <lock_b>`, 'worker_b')]);
const fact = (resource: string, lwp: number): OwnerFact => ({ resource, holder: { lwp }, origin: 'gdb', query: `print ((pthread_mutex_t *) ${resource.slice(6)})->__data.__owner`, answer: String(lwp), sourceLine: null });

test('without owners an ABBA is a hang with two open owner queries', () => {
  const a = analyze(abba(), { rules });
  assert.equal(a.verdict, 'hang');
  assert.deepEqual(a.hung, ['1', '2']);
  const queries = openOwnerQueries(a);
  assert.deepEqual(
    queries.map((q) => [q.resource, q.address, q.query, q.answer, q.waiters]),
    [
      ['mutex:0x555555558040', '0x555555558040', 'print ((pthread_mutex_t *) 0x555555558040)->__data.__owner', 'lwp', ['1']],
      ['mutex:0x555555558080', '0x555555558080', 'print ((pthread_mutex_t *) 0x555555558080)->__data.__owner', 'lwp', ['2']],
    ],
  );
});

test('gdb owner facts make the ABBA a proven deadlock', () => {
  const a = analyze(abba(), { rules, facts: [fact('mutex:0x555555558040', 1002), fact('mutex:0x555555558080', 1001)] });
  assert.equal(a.verdict, 'deadlock');
  assert.deepEqual(a.deadlocks[0]?.threads, ['1', '2']);
  assert.equal(a.deadlocks[0]?.evidence, 'proven');
  assert.deepEqual(a.deadlocks[0]?.resources, ['mutex:0x555555558040', 'mutex:0x555555558080']);
  assert.ok(a.deadlocks[0]?.rules.includes('gdb-owner'));
  assert.deepEqual(openOwnerQueries(a), []);
  assert.match(a.deadlocks[0]?.title ?? '', /^deadlock: /);
});

test('owner hints printed in the text (`p *(pthread_mutex_t *) M`) count as proven holds', () => {
  const d = abba();
  d.ownerHints = [
    { expression: `*(pthread_mutex_t *) ${A}`, address: A, field: '__owner', ownerLwp: 1002, sourceLine: 90 },
    { expression: `*(pthread_mutex_t *) ${B}`, address: B, field: '__owner', ownerLwp: 1001, sourceLine: 92 },
  ];
  const a = analyze(d, { rules });
  assert.equal(a.verdict, 'deadlock');
  assert.equal(a.deadlocks[0]?.evidence, 'proven');
  assert.ok(a.facts.every((x) => x.origin === 'text'));
});

test('a thread waiting for a mutex it holds itself is a deadlock of one thread', () => {
  const a = analyze(dumpOf([mutexWaiter(3, `${A} <lock_a>`)]), { rules, facts: [fact('mutex:0x555555558040', 1003)] });
  assert.equal(a.verdict, 'deadlock');
  assert.deepEqual(a.deadlocks[0]?.threads, ['3']);
  assert.equal(a.deadlocks[0]?.cycle.length, 1);
  assert.match(a.deadlocks[0]?.cycle[0]?.text ?? '', /which it holds itself/);
});

test('an owner that is not a thread of the dump makes a hang that says so; its LWP against the pid tells exited from forked', () => {
  const a = analyze(dumpOf([mutexWaiter(1, `${A} <lock_a>`)]), { rules, facts: [fact('mutex:0x555555558040', 4242)] });
  assert.equal(a.verdict, 'hang');
  assert.equal(a.verdictReasons[0]?.kind, 'owner-gone');
  assert.deepEqual(a.hung, ['1']);
  // Thread 1 (the main thread) has LWP 1001 = the pid: 4242 came later and is gone.
  assert.match(a.verdictReasons[0]?.text ?? '', /waits for the mutex lock_a; its owner, LWP 4242, is not among the threads of the dump: it exited while holding it/);
  const forked = analyze(dumpOf([mutexWaiter(1, `${A} <lock_a>`)]), { rules, facts: [fact('mutex:0x555555558040', 900)] });
  assert.match(forked.verdictReasons[0]?.text ?? '', /its owner, LWP 900, is not a thread of this process but older than it \(its LWP is lower than the process id, 1001\): a thread of the parent held the lock when the process was forked, and the lock came across fork\(\) held/);
  const live = analyze(dumpOf([mutexWaiter(1, `${A} <lock_a>`)]), {
    rules,
    facts: [fact('mutex:0x555555558040', 4242)],
    process: { pid: 1001, whole: true, ownerStatus: new Map([[4242, { exists: false }]]) },
  });
  assert.match(live.verdictReasons[0]?.text ?? '', /\/proc has no such thread\): it exited while holding it/);
  // The headline says only what the dump supports: an owner it merely does not show may still be
  // in the process (a paste of some threads); one /proc says is gone left it.
  assert.equal(verdictLine(a), 'Hang: thread 1 waits for a lock whose owner is not among the threads the dump shows');
  assert.equal(verdictLine(live), 'Hang: thread 1 waits for a lock whose owner is not in the process');
});

test('a headerless backtrace matching two threads is not merged, and says so', () => {
  const same = [f('syscall'), f('std::future<int>::get()'), f('app_wait'), f('app_main')];
  const a = analyze(dumpOf([thread(1, same), thread(2, same), thread(null, same)]), { rules });
  assert.equal(a.threads.length, 3);
  assert.ok(a.notes.some((n) => /matches the top frames of 2 threads \(1, 2\)/.test(n)));
  assert.ok(a.threads.some((t) => t.key.startsWith('bt@')));
});

test('a holder given as a pthread_t, in hex or in decimal, maps to the thread with that header', () => {
  const d = abba();
  const ptid1 = d.backtraces[0]!.thread!.ptid!;
  const ptid2 = d.backtraces[1]!.thread!.ptid!;
  for (const [h1, h2] of [
    [ptid1, ptid2],
    [BigInt(ptid1).toString(10), BigInt(ptid2).toString(10)],
  ]) {
    const facts: OwnerFact[] = [
      { resource: 'mutex:0x555555558040', holder: { ptid: h2 }, origin: 'gdb', query: null, answer: null, sourceLine: null },
      { resource: 'mutex:0x555555558080', holder: { ptid: h1 }, origin: 'gdb', query: null, answer: null, sourceLine: null },
    ];
    const a = analyze(d, { rules, facts });
    assert.equal(a.verdict, 'deadlock', `${h1}`);
    assert.deepEqual(a.deadlocks[0]?.threads, ['1', '2']);
  }
});

test('a dump that does not show every thread: the hang headline speaks of the threads it shows, and names a headerless backtrace by its line', () => {
  const part = analyze(dumpOf([mutexWaiter(5, `${A} <lock_a>`)]), { rules });
  assert.equal(part.verdictReasons[0]?.notWhole, true);
  assert.equal(verdictLine(part), 'Hang: every thread the dump shows is blocked with no time limit; thread 5 waits for what no thread shown can release');
  const headerless = analyze(dumpOf([mutexWaiter(null, `${A} <lock_a>`)]), { rules });
  assert.match(verdictLine(headerless), /^Hang: every thread the dump shows is blocked with no time limit; the backtrace at line \d+ waits for what no thread shown can release$/);
  const whole = analyze(dumpOf([mutexWaiter(1, `${A} <lock_a>`), mutexWaiter(2, `${A} <lock_a>`)]), { rules });
  assert.equal(whole.verdictReasons[0]?.notWhole, undefined);
  assert.equal(verdictLine(whole), 'Hang: every thread is blocked with no time limit; threads 1, 2 wait for what no thread left can release');
});

test('every stuck thread only waits to be woken and one on a semaphore: ok (signal-wake), a signal handler may post it; a lock wait among them keeps the hang (built-in rules)', () => {
  const semWaiter = thread(1, [f('__futex_abstimed_wait_common64'), f('__new_sem_wait_slow64', { args: { sem: '0x555555558100 <stop>' } }), f('main')]);
  const cond = { cond: '0x555555558140 <work_ready>', mutex: '0x555555558180 <queue_lock>' };
  const condWaiter = thread(2, [f('__futex_abstimed_wait_common64'), f('__pthread_cond_wait_common', { args: cond }), f('___pthread_cond_wait', { args: cond }), f('worker')]);
  const idle = analyze(dumpOf([semWaiter, condWaiter]));
  assert.equal(idle.verdict, 'ok');
  assert.equal(idle.verdictReasons[0]?.kind, 'signal-wake');
  assert.deepEqual(idle.verdictReasons[0]?.threads, ['1']);
  assert.match(idle.verdictReasons[0]?.text ?? '', /^Every thread only waits to be woken .* thread 1 waits on a semaphore, which a signal handler may post/);
  const withLock = analyze(dumpOf([semWaiter, mutexWaiter(2, `${A} <lock_a>`)]));
  assert.equal(withLock.verdict, 'hang', 'a thread waiting for a lock is no wait a signal ends');
  const condOnly = analyze(dumpOf([thread(1, [f('__futex_abstimed_wait_common64'), f('__pthread_cond_wait_common', { args: cond }), f('main')]), condWaiter]));
  assert.equal(condOnly.verdict, 'hang', 'a condition variable is no wake-up a signal handler may give');
});

test('a process-shared mutex whose owner is no thread of the dump: its waiter waits on another process (ok), not for an owner that exited (hang)', () => {
  const waiter = () => dumpOf([mutexWaiter(1, `${A} <lock_a>`), mutexWaiter(2, `${A} <lock_a>`)]);
  const shared = analyze(waiter(), { rules, facts: [{ ...fact('mutex:0x555555558040', 4242), shared: true }] });
  assert.equal(shared.verdict, 'ok', shared.verdictReasons.map((r) => r.text).join(' '));
  assert.match(shared.threads[0]?.stateText ?? '', /process-shared lock whose owner, LWP 4242, is a thread of another process/);
  assert.deepEqual(shared.unresolved, [], 'the owner is known, so the wait is not unresolved');
  assert.doesNotMatch(shared.verdictReasons.map((r) => r.text).join(' '), /holder the text does not show/);
  const private_ = analyze(waiter(), { rules, facts: [fact('mutex:0x555555558040', 4242)] });
  assert.equal(private_.verdict, 'hang');
  assert.equal(private_.verdictReasons[0]?.kind, 'owner-gone');
});
