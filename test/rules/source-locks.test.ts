/**
 * The lock vocabulary `--source` reads code with is pack data (src/rules/packs/<pack>/source-locks.yaml):
 * the built-in packs name the pthread, C++, GLib, Qt, QEMU and Abseil forms, a user's pack adds
 * its own (`spin_lock`-style), and a bad file is one line naming the file, line and field.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { RuleError } from '../../src/errors.js';
import { loadSourceLocks } from '../../src/rules/source-locks.js';
import { ROOT } from '../helpers/paths.js';

test('the built-in packs name every form the issue lists', () => {
  const v = loadSourceLocks({ cwd: ROOT });
  const acquires = v.calls.flatMap((c) => c.acquire);
  for (const name of ['pthread_mutex_lock', 'pthread_rwlock_wrlock', 'pthread_rwlock_rdlock', 'g_mutex_lock', 'G_LOCK', 'qemu_mutex_lock', 'bql_lock']) assert.ok(acquires.includes(name), name);
  const guards = v.guards.flatMap((g) => g.types);
  for (const name of ['std::lock_guard', 'std::unique_lock', 'std::scoped_lock', 'std::shared_lock', 'QMutexLocker', 'absl::MutexLock']) assert.ok(guards.includes(name), name);
  const scoped = v.scoped.flatMap((s) => s.calls);
  for (const name of ['g_mutex_locker_new', 'QEMU_LOCK_GUARD', 'WITH_QEMU_LOCK_GUARD']) assert.ok(scoped.includes(name), name);
  assert.ok(v.methods.some((m) => m.acquire.includes('lock') && m.release.includes('unlock')), 'm.lock() / m.unlock()');
  assert.ok(v.calls.some((c) => c.release.includes('pthread_mutex_unlock')));
  // Rust: the guard-returning methods, of the kinds the rust pack's waits use.
  assert.deepEqual(v.guardMethods.map((g) => [g.kind, g.methods.join(',')]), [['rust-mutex', 'lock'], ['rust-rwlock', 'read,write,upgradable_read']]);
});

test("a user's pack declares its own spin_lock-style calls; a bad field is one line with the file and line", () => {
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-vocab-'));
  try {
    mkdirSync(join(dir, 'kernelish'));
    writeFileSync(join(dir, 'kernelish', 'source-locks.yaml'), 'calls:\n  - acquire: [spin_lock, spin_lock_irqsave]\n    release: [spin_unlock, spin_unlock_irqrestore]\n    kind: spinlock\n');
    const v = loadSourceLocks({ cwd: dir, extraFiles: [dir] });
    assert.ok(v.calls.some((c) => c.acquire.includes('spin_lock_irqsave') && c.kind === 'spinlock'));
    assert.ok(v.calls.some((c) => c.acquire.includes('pthread_mutex_lock')), 'the built-ins stay');
    writeFileSync(join(dir, 'kernelish', 'source-locks.yaml'), 'calls:\n  - acquire: [spin_lock]\n    kind: spinlock\n    lokArg: 1\n');
    assert.throws(() => loadSourceLocks({ cwd: dir, extraFiles: [dir] }), (e: unknown) => e instanceof RuleError && /^kernelish\/source-locks\.yaml:4: calls\[0\]\.lokArg: unknown field "lokArg"$/.test(e.message));
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
