/**
 * The source reader (src/source/) on small C and C++ files written here: which locks a frame's
 * function still holds at its line, for each form the packs' vocabulary names, and what it must
 * not claim (a lock let go on the way, taken in a branch the line is not in, a deferred guard, a
 * guard whose block has ended). Real tree-sitter grammars (the npm wasm builds), no stubs.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import type { SourceAnswer, SourceProbe } from '../../src/model/source.js';
import { loadSourceLocks } from '../../src/rules/source-locks.js';
import { openSourceReader } from '../../src/source/index.js';
import { ROOT } from '../helpers/paths.js';
import { sourceFolder } from '../helpers/source-reader.js';

/** Asks as a frame of `f` calling pthread_mutex_lock. */
const { dir, ask, reader } = sourceFolder('waitgraph-source-', { function: 'f', callee: 'pthread_mutex_lock' });

const held = (a: SourceAnswer): string[] => a.holds.map((h) => `${h.lock.text}@${h.line}`);

test('C ABBA: the lock taken two lines up is held at the line that waits, with its line and code', () => {
  const a = ask('abba.c', ['#include <pthread.h>', 'static pthread_mutex_t a, b;', 'void *f(void *x) {', '  pthread_mutex_lock(&a);', '  work();', '  pthread_mutex_lock(&b); // WAIT', '  pthread_mutex_unlock(&b);', '  return 0;', '}'], 'WAIT', { callee: '___pthread_mutex_lock' });
  assert.equal(a.status, 'read');
  assert.deepEqual(held(a), ['&a@4']);
  assert.deepEqual(a.holds[0]?.lock.symbols, ['a']);
  assert.equal(a.holds[0]?.code, 'pthread_mutex_lock(&a);');
  assert.equal(a.code, 'pthread_mutex_lock(&b);', 'the frame line without its comment');
  assert.deepEqual(a.waits.map((w) => w.text), ['&b']);
});

test('a lock let go on the way is not held; one let go only after the line still is', () => {
  const a = ask('unlocked.c', ['void f(void) {', '  pthread_mutex_lock(&a);', '  pthread_mutex_unlock(&a);', '  pthread_mutex_lock(&c);', '  pthread_mutex_lock(&b); // WAIT', '  pthread_mutex_unlock(&c);', '}'], 'WAIT');
  assert.deepEqual(held(a), ['&c@4']);
});

test('a lock taken in a branch the line is not in is not claimed; one in the branch the line is in is', () => {
  const a = ask('branch.c', ['void f(int x) {', '  if (x) {', '    pthread_mutex_lock(&a);', '  } else {', '    pthread_mutex_lock(&c);', '    pthread_mutex_lock(&b); // WAIT', '  }', '}'], 'WAIT');
  assert.deepEqual(held(a), ['&c@5']);
  const b = ask('loop.c', ['void f(int n) {', '  for (int i = 0; i < n; i++) pthread_mutex_lock(&a);', '  while (n && pthread_mutex_lock(&d)) {}', '  pthread_mutex_lock(&b); // WAIT', '}'], 'WAIT');
  assert.deepEqual(held(b), [], 'a loop body and the right side of && may not have run');
});

test('a frame whose own line lets the lock go (a thread inside pthread_mutex_unlock) does not hold it', () => {
  const a = ask('unlocking.c', ['void f(void) {', '  pthread_mutex_lock(&a);', '  pthread_mutex_lock(&c);', '  pthread_mutex_unlock(&a); // HERE', '}'], 'HERE', { callee: '??' });
  assert.deepEqual(held(a), ['&c@3']);
});

test('a release in any branch before the line cancels the hold (nothing is claimed that might have been let go)', () => {
  const a = ask('maybe.c', ['void f(int x) {', '  pthread_mutex_lock(&a);', '  if (x) pthread_mutex_unlock(&a);', '  pthread_mutex_lock(&b); // WAIT', '}'], 'WAIT');
  assert.deepEqual(held(a), []);
});

test('only the enclosing function counts: a caller that returned, or another function, holds nothing here', () => {
  const a = ask('two.c', ['void g(void) { pthread_mutex_lock(&a); }', 'void f(void) {', '  g();', '  pthread_mutex_lock(&b); // WAIT', '}'], 'WAIT');
  assert.deepEqual(held(a), [], 'g took a and returned: the code of f does not show it');
});

test('C++ guards: lock_guard and scoped_lock hold to the end of their block, a deferred unique_lock not until lock()', () => {
  const lines = [
    '#include <mutex>',
    'std::mutex m1, m2, m3, m4, m5;',
    'void f() {',
    '  std::lock_guard<std::mutex> g1(m1);',
    '  { std::lock_guard<std::mutex> inner(m2); }',
    '  std::scoped_lock both{m3, m4};',
    '  std::unique_lock<std::mutex> later(m5, std::defer_lock);',
    '  std::lock_guard<std::mutex> g(m6); // WAIT',
    '}',
  ];
  const a = ask('guards.cpp', lines, 'WAIT', { callee: 'std::lock_guard<std::mutex>::lock_guard' });
  assert.deepEqual(held(a), ['m1@4', 'm3@6', 'm4@6']);
  assert.deepEqual(a.waits.map((w) => w.text), ['m6']);
  const b = ask('relock.cpp', ['void f() {', '  std::unique_lock<std::mutex> lk(m5, std::defer_lock);', '  lk.lock();', '  std::unique_lock<std::mutex> u(m1);', '  u.unlock();', '  m7.lock(); // WAIT', '}'], 'WAIT', { callee: 'std::mutex::lock' });
  assert.deepEqual(held(b), ['m5@3'], 'lk.lock() takes the deferred lock; u.unlock() lets m1 go');
});

test('members: this->mu_ and mu_ in a method name the field of `this`; m.lock()/unlock() pair', () => {
  const a = ask('member.cpp', ['struct S { std::mutex mu_, other_; void run(); };', 'void S::run() {', '  std::lock_guard<std::mutex> g(mu_);', '  this->other_.lock();', '  other_.unlock();', '  this->x_.lock(); // WAIT', '}'], 'WAIT', { function: 'S::run', callee: 'std::mutex::lock' });
  assert.deepEqual(held(a), ['mu_@3'], 'this->other_ and other_ are one lock: taken and let go');
  assert.deepEqual(a.holds[0]?.lock.member, { root: 'this', path: '->mu_' });
  assert.deepEqual(a.holds[0]?.lock.symbols, ['mu_'], 'or a global of that name, if the dump shows one');
  assert.deepEqual(a.waits[0]?.member, { root: 'this', path: '->x_' });
});

test('GLib, Qt, QEMU, Abseil forms from the packs: G_LOCK, GMutexLocker, QMutexLocker, QEMU_LOCK_GUARD, WITH_QEMU_LOCK_GUARD, bql_lock, absl::MutexLock', () => {
  const g = ask('glib.c', ['void f(void) {', '  G_LOCK(cache);', '  g_autoptr(GMutexLocker) l = g_mutex_locker_new(&state->mutex);', '  g_mutex_lock(&other); // WAIT', '}'], 'WAIT', { callee: 'g_mutex_lock' });
  assert.deepEqual(held(g), ['cache@2', '&state->mutex@3']);
  assert.deepEqual(g.holds[0]?.lock.symbols, ['g__cache_lock']);
  assert.deepEqual(g.holds[1]?.lock.member, { root: 'state', path: '->mutex' });
  const q = ask('qemu.c', ['void f(S *s) {', '  bql_lock();', '  QEMU_LOCK_GUARD(&s->lock);', '  WITH_QEMU_LOCK_GUARD(&s->other) {', '    qemu_mutex_lock(&s->third); // WAIT', '  }', '}'], 'WAIT', { callee: 'qemu_mutex_lock_impl' });
  assert.deepEqual(held(q), ['bql_lock()@2', '&s->lock@3', '&s->other@4']);
  assert.deepEqual(q.holds[0]?.lock.symbols, ['bql', 'qemu_global_mutex']);
  const after = ask('qemu2.c', ['void f(S *s) {', '  WITH_QEMU_LOCK_GUARD(&s->other) {', '    x();', '  }', '  qemu_mutex_lock(&s->third); // WAIT', '}'], 'WAIT', { callee: 'qemu_mutex_lock_impl' });
  assert.deepEqual(held(after), [], 'WITH_QEMU_LOCK_GUARD holds only inside its block');
  const qt = ask('qt.cpp', ['void W::run() {', '  QMutexLocker locker(&mutex);', '  absl::MutexLock l(&mu_);', '  other.lock(); // WAIT', '}'], 'WAIT', { function: 'W::run', callee: 'QMutex::lock' });
  assert.deepEqual(held(qt), ['&mutex@2', '&mu_@3']);
});

test('an edited file is detected: a line that does not make the call the frame below shows, or lies in another function', () => {
  const lines = ['void f(void) {', '  pthread_mutex_lock(&a);', '  pthread_barrier_wait(&w);', '  pthread_mutex_lock(&b); // WAIT', '}'];
  const moved = ask('edited.c', lines, 'pthread_barrier_wait', { callee: '___pthread_mutex_lock' });
  assert.equal(moved.status, 'mismatch');
  assert.deepEqual(moved.holds, []);
  assert.match(moved.notes.join(' '), /edited\.c does not match the dump .*line 3 of f reads `pthread_barrier_wait\(&w\);`, which does not call pthread_mutex_lock/);
  const other = ask('edited2.c', lines, 'WAIT', { function: 'g', callee: '___pthread_mutex_lock' });
  assert.equal(other.status, 'mismatch');
  assert.match(other.notes.join(' '), /line 4 of g is in f/);
  const join_ = ask('join.c', ['void f(pthread_t t) {', '  pthread_mutex_lock(&a);', '  pthread_join(t, 0); // WAIT', '}'], 'WAIT', { callee: '__pthread_clockjoin_ex' });
  assert.equal(join_.status, 'read', 'glibc names pthread_join __pthread_clockjoin_ex: the pack says so');
  assert.deepEqual(held(join_), ['&a@2']);
});

test('path mapping: exact relative path first, then the longest path suffix; two equal matches are ambiguous and unused', () => {
  writeFileSync(join(dir, 'top.c'), 'void f(void) {\n  pthread_mutex_lock(&a);\n  pthread_mutex_lock(&b);\n}\n');
  mkdirSync(join(dir, 'src', 'gc'), { recursive: true });
  mkdirSync(join(dir, 'other', 'gc'), { recursive: true });
  mkdirSync(join(dir, 'deep', 'src', 'gc'), { recursive: true });
  for (const d of ['src/gc', 'other/gc', 'deep/src/gc']) writeFileSync(join(dir, d, 'gc.c'), 'void f(void) {\n  pthread_mutex_lock(&a);\n  pthread_mutex_lock(&b);\n}\n');
  const probe = (path: string): SourceProbe => ({ id: 1, path, line: 3, function: 'f', callee: 'pthread_mutex_lock' });
  const one = (path: string) => reader().read([probe(path)]);
  assert.equal(one('top.c').answers[0]?.file, 'top.c');
  assert.equal(one('/cache/build/x86_64/top.c').answers[0]?.file, 'top.c');
  assert.equal(one('src/gc/gc.c').answers[0]?.file, 'src/gc/gc.c', 'exact beats the longer deep/src/gc/gc.c');
  assert.equal(one('/cache/build/deep/src/gc/gc.c').answers[0]?.file, 'deep/src/gc/gc.c', 'the longest suffix wins');
  const amb = one('/cache/build/x/gc/gc.c');
  assert.equal(amb.answers[0]?.status, 'ambiguous');
  assert.match(amb.notes.join(' '), /gc\/gc\.c matches 3 files equally well \(deep\/src\/gc\/gc\.c, other\/gc\/gc\.c, src\/gc\/gc\.c\); neither is used/);
  assert.equal(one('nowhere.c').answers[0]?.status, 'unmapped');
});

test('path mapping after prepare(paths): the walk indexes only the names announced, yet a name announced late still maps, and the same ambiguity is found', async () => {
  mkdirSync(join(dir, 'late', 'a'), { recursive: true });
  mkdirSync(join(dir, 'late', 'b'), { recursive: true });
  for (const d of ['late/a', 'late/b']) writeFileSync(join(dir, d, 'twice.c'), 'void f(void) {\n  pthread_mutex_lock(&a);\n  pthread_mutex_lock(&b);\n}\n');
  writeFileSync(join(dir, 'late', 'a', 'unannounced.c'), 'void f(void) {\n  pthread_mutex_lock(&a);\n  pthread_mutex_lock(&b);\n}\n');
  const probe = (id: number, path: string): SourceProbe => ({ id, path, line: 3, function: 'f', callee: 'pthread_mutex_lock' });
  const announced = await openSourceReader({ dirs: [dir], cwd: dir, vocabulary: loadSourceLocks({ cwd: ROOT }) });
  await announced.prepare(['/build/x/a/twice.c', '/build/y/twice.c', 'main.rs']);
  const report = announced.read([probe(1, '/build/x/a/twice.c'), probe(2, '/build/y/twice.c'), probe(3, '/build/late/a/unannounced.c'), probe(4, 'main.rs')]);
  assert.deepEqual(
    report.answers.map((a) => [a.id, a.status, a.file ?? null]),
    [
      [1, 'read', 'late/a/twice.c'],
      [2, 'ambiguous', null],
      [3, 'read', 'late/a/unannounced.c'],
      [4, 'unmapped', null],
    ],
  );
  assert.match(report.notes.join(' '), /\/build\/y\/twice\.c matches 2 files equally well \(late\/a\/twice\.c, late\/b\/twice\.c\)/);
});

test('safety: no path out of the folder, no symbolic link out of it, a stated size cap, a missing folder is one error', async () => {
  const outside = mkdtempSync(join(tmpdir(), 'waitgraph-outside-'));
  try {
    writeFileSync(join(outside, 'secret.c'), 'void f(void) {\n  pthread_mutex_lock(&a);\n  pthread_mutex_lock(&b);\n}\n');
    symlinkSync(join(outside, 'secret.c'), join(dir, 'linked.c'));
    const probe = (path: string): SourceProbe => ({ id: 1, path, line: 3, function: 'f', callee: 'pthread_mutex_lock' });
    assert.equal(reader().read([probe('linked.c')]).answers[0]?.status, 'unmapped', 'a link out of the folder is not followed');
    assert.equal(reader().read([probe('../' + outside.split('/').pop() + '/secret.c')]).answers[0]?.status, 'unmapped', '.. does not leave the folder');
    assert.equal(reader().read([probe(join(outside, 'secret.c'))]).answers[0]?.status, 'unmapped', 'an absolute path elsewhere maps only by suffix, and none matches');
    writeFileSync(join(dir, 'huge.c'), `void f(void) {\n  pthread_mutex_lock(&a);\n  pthread_mutex_lock(&b);\n}\n/*${'x'.repeat(70 * 1024)}*/\n`);
    const big = reader().read([probe('huge.c')]);
    assert.equal(big.answers[0]?.status, 'skipped');
    assert.match(big.notes.join(' '), /huge\.c is 0\.1 MB, over the 0\.1 MB size cap for a source file; it was not read/);
  } finally {
    rmSync(outside, { recursive: true, force: true });
  }
  await assert.rejects(openSourceReader({ dirs: [join(dir, 'missing')], cwd: dir, vocabulary: loadSourceLocks({ cwd: ROOT }) }), /--source .*missing: no such folder/);
});

test('each file is parsed once for all the frames that name it', () => {
  writeFileSync(join(dir, 'many.c'), 'void f(void) {\n  pthread_mutex_lock(&a);\n  pthread_mutex_lock(&b);\n}\nvoid g(void) {\n  pthread_mutex_lock(&b);\n  pthread_mutex_lock(&a);\n}\n');
  const report = reader().read([
    { id: 7, path: 'many.c', line: 3, function: 'f', callee: 'pthread_mutex_lock' },
    { id: 8, path: 'many.c', line: 7, function: 'g', callee: 'pthread_mutex_lock' },
  ]);
  assert.deepEqual(report.answers.map((a) => [a.id, held(a)]), [[7, ['&a@2']], [8, ['&b@6']]]);
});

test('a long function is read whole: the parse window widens until the function lies inside it', () => {
  const filler = Array.from({ length: 700 }, (_, i) => `  counter += ${i};`);
  const a = ask('long.c', ['static int counter;', 'void f(void) {', '  pthread_mutex_lock(&a);', ...filler, '  pthread_mutex_lock(&b); // WAIT', '  pthread_mutex_unlock(&b);', '}'], 'WAIT');
  assert.equal(a.status, 'read');
  assert.deepEqual(held(a), ['&a@3']);
  // A window that starts inside a long comment does not fool it either.
  const comment = ['/*', ...Array.from({ length: 400 }, () => ' * } pthread_mutex_lock(&z); {'), ' */', 'void g(void) {', '  pthread_mutex_lock(&c);', '  pthread_mutex_lock(&d); // WAIT', '}'];
  const b = ask('comment.c', comment, 'WAIT', { function: 'g' });
  assert.deepEqual(held(b), ['&c@404']);
});
