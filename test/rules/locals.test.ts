/**
 * Locals rules (rules/locals.ts) and the holds they give (analyze/locals-holds.ts): how a `bt full`
 * local's printed value is read, which guards are holds (not the one being built, not one in lock
 * internals, not one whose thread's wait names no address), and that user rules of this kind are
 * validated like any other. The packs' own fixtures (libstdcxx, rust, qt, abseil, glib) are run by
 * rule-set.test.ts; these are the edges around them.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyze } from '../../src/analyze/index.js';
import { parseDump } from '../../src/parse/index.js';
import { loadBuiltinRules } from '../../src/rules/builtin.js';
import { disableRules } from '../../src/rules/compile.js';
import { loadRules } from '../../src/rules/load.js';
import { matchLocal, readLocalValue } from '../../src/rules/locals.js';
import type { LocalsRule } from '../../src/rules/types.js';
import { RuleError } from '../../src/errors.js';

const rule = (id: string): LocalsRule => {
  const r = loadBuiltinRules().localsRules?.find((x) => x.id === id);
  assert.ok(r, id);
  return r;
};
const holdsOf = (id: string, value: string, name = 'g') => matchLocal(rule(id), { name, value }, 'f', readLocalValue(value));

test('printed values are read into their type and top-level members, C and Rust alike', () => {
  assert.deepEqual(readLocalValue('{_M_device = @0x55e87e3180e0}'), { type: null, members: new Map([['_M_device', '@0x55e87e3180e0']]), text: '{_M_device = @0x55e87e3180e0}' });
  const rust = readLocalValue('std::sync::poison::mutex::MutexGuard<u64> {lock: 0x563abe658af0, poison: std::sync::poison::Guard {panicking: false}}');
  assert.equal(rust?.type, 'std::sync::poison::mutex::MutexGuard<u64>');
  assert.deepEqual([...(rust?.members?.keys() ?? [])], ['lock', 'poison']);
  // Generic arguments with commas and `Output=()` are part of the type, not members.
  const pl = readLocalValue('lock_api::mutex::MutexGuard<parking_lot::raw_mutex::RawMutex, u32> {mutex: 0x55f015f39d90, marker: core::marker::PhantomData<(&mut u32, lock_api::GuardNoSend)>}');
  assert.equal(pl?.type, 'lock_api::mutex::MutexGuard<parking_lot::raw_mutex::RawMutex, u32>');
  assert.equal(pl?.members?.get('mutex'), '0x55f015f39d90');
  // `set print pretty on` spreads a value over lines (the parser joins them with \n).
  assert.equal(readLocalValue('{\n  _M_device = 0x5565c26f3040 <m1>,\n  _M_owns = true\n}')?.members?.get('_M_owns'), 'true');
  assert.equal(readLocalValue('0x5555555580a0 <mutex>')?.members, null);
  assert.equal(readLocalValue(`{a = ${'x'.repeat(5000)}}`), null, 'too long to be a guard');
  assert.deepEqual(readLocalValue('{a = "}, b = 1", c = \'}\'}')?.members, new Map([['a', '"}, b = 1"'], ['c', "'}'"]]), 'strings and char literals do not end a member');
});

test('each guard shape gives its lock, and its near misses give none', () => {
  assert.deepEqual(holdsOf('libstdcxx.lock-guard.held', '{_M_device = @0x55e87e3180e0}')?.fields._M_device?.addresses, ['0x55e87e3180e0']);
  assert.equal(holdsOf('libstdcxx.lock-guard.held', '{_M_device = 0x5565c26f3040 <m1>, _M_owns = true}'), null, 'a unique_lock is not a lock_guard');
  assert.equal(holdsOf('libstdcxx.lock-guard.held', '{_M_device = 0x0}'), null, 'no null lock');
  assert.deepEqual(holdsOf('libstdcxx.unique-lock.held', '{_M_device = 0x5565c26f3040 <m1>, _M_owns = true}')?.fields._M_device, { addresses: ['0x5565c26f3040'], symbol: 'm1', value: '0x5565c26f3040 <m1>' });
  assert.equal(holdsOf('libstdcxx.unique-lock.held', '{_M_device = 0x5565c26f3040 <m1>, _M_owns = false}'), null, 'deferred or unlocked');
  assert.equal(holdsOf('libstdcxx.unique-lock.held', '{_M_device = 0x0, _M_owns = false}'), null, 'moved from');
  assert.deepEqual(holdsOf('libstdcxx.scoped-lock.held', '{_M_devices = std::tuple containing = {[1] = @0x5565c26f31c0, [2] = @0x5565c26f3200}}')?.fields._M_devices?.addresses, ['0x5565c26f31c0', '0x5565c26f3200']);
  // Qt 5 keeps "locked" in bit 0 of the pointer; gdb prints it in decimal.
  assert.deepEqual(holdsOf('qt.mutex-locker-qt5.held', '{val = 94592077922753}')?.fields.val?.addresses, ['0x5607ef3401c0']);
  assert.equal(holdsOf('qt.mutex-locker-qt5.held', '{val = 94592077922816}'), null, 'bit 0 clear: unlocked');
  assert.equal(holdsOf('glib.mutex-locker.held', '0x5607ef3402c0 <cache_lock>', 'mutex'), null, 'a GMutex * not named like a locker');
  assert.ok(holdsOf('glib.mutex-locker.held', '0x5607ef3402c0 <cache_lock>', 'locker'));
  assert.equal(holdsOf('rust.std.mutex-guard.held', 'alloc::sync::Arc<std::sync::poison::mutex::Mutex<u32>, alloc::alloc::Global> {ptr: core::ptr::non_null::NonNull<u8> {pointer: 0x563abe658a10}}'), null, 'an Arc<Mutex> is no guard');
});

/** A thread header and frames, as gdb prints them, with `bt full` locals under the frames that have some. */
function thread(n: number, name: string, frames: Array<[string, string[]?]>): string {
  const lines = [`Thread ${n} (Thread 0x7f00000${n}000 (LWP ${1000 + n}) "${name}"):`];
  frames.forEach(([frame, locals], i) => {
    lines.push(`#${i}  ${i === 0 ? '' : `0x00005555555551${i}0 in `}${frame}`);
    for (const l of locals ?? []) lines.push(`        ${l}`);
    if (!locals || locals.length === 0) lines.push('No locals.');
  });
  return `${lines.join('\n')}\n`;
}
const mutexWait = (address: string, symbol: string): Array<[string, string[]?]> => [
  [`futex_wait (private=0, expected=2, futex_word=${address} <${symbol}>) at ../sysdeps/nptl/futex-internal.h:146`],
  [`__GI___lll_lock_wait (futex=futex@entry=${address} <${symbol}>, private=0) at ./nptl/lowlevellock.c:49`],
  [`___pthread_mutex_lock (mutex=${address} <${symbol}>) at ./nptl/pthread_mutex_lock.c:93`],
  [`std::mutex::lock (this=${address} <${symbol}>) at /usr/include/c++/12/bits/std_mutex.h:100`],
  [`std::lock_guard<std::mutex>::lock_guard (this=0x7ffff7d8fdf0, __m=...) at /usr/include/c++/12/bits/std_mutex.h:229`],
];
const A = '0x555555558100';
const B = '0x555555558140';

test('the guard being built is no hold; a second guard on the same mutex further out is (a self-deadlock)', () => {
  const building = thread(2, 'building', [...mutexWait(A, 'a'), ['work () at app.cpp:10', [`g = {_M_device = @${A}}`]], ['start_thread () from /lib/libc.so.6']]);
  const one = analyze(parseDump(building));
  assert.equal(one.edges.filter((e) => e.basis === 'locals').length, 0);
  const self = thread(2, 'relock', [...mutexWait(A, 'a'), ['relock () at app.cpp:5', [`again = {_M_device = @${A}}`]], ['work () at app.cpp:10', [`held = {_M_device = @${A}}`]], ['start_thread () from /lib/libc.so.6']]);
  const two = analyze(parseDump(self));
  assert.equal(two.verdict, 'deadlock');
  assert.deepEqual(two.deadlocks.map((d) => [d.threads, d.evidence]), [[['2'], 'proven']]);
  assert.equal(two.edges.find((e) => e.basis === 'locals')?.site?.function, 'work ()'.replace(' ()', ''));
});

test('a blocked thread whose wait names no address: its innermost lock_guard may be the one being built, so no hold', () => {
  // libc without debug info and no std::mutex frame: the wait is mutex:unknown@2.
  const text = thread(2, 'nodebug', [['0x00007ffff7e2412b in ?? () from /lib/x86_64-linux-gnu/libc.so.6'], ['pthread_mutex_lock () from /lib/x86_64-linux-gnu/libc.so.6'], ['work () at app.c:10', [`g = {_M_device = @${A}}`]]]);
  const a = analyze(parseDump(text));
  assert.equal(a.edges.filter((e) => e.basis === 'locals').length, 0);
});

test('a scoped_lock whose constructor waits for one of its mutexes holds neither', () => {
  const text = thread(2, 'scoped', [...mutexWait(B, 'b').slice(0, 4), ['std::lock<std::mutex, std::mutex> (__l1=..., __l2=...) at /usr/include/c++/12/mutex:691'], ['work () at app.cpp:10', [`both = {_M_devices = std::tuple containing = {[1] = @${A}, [2] = @${B}}}`]]]);
  const a = analyze(parseDump(text));
  assert.equal(a.edges.filter((e) => e.basis === 'locals').length, 0);
});

test('a lock_guard on a std::shared_mutex meets the rwlock wait on the same address; --disable turns the rule off', () => {
  const holder = thread(2, 'holder', [['futex_wait (private=0, expected=2, futex_word=0x555555558200 <gate>) at ../sysdeps/nptl/futex-internal.h:146'], ['__GI___lll_lock_wait (futex=0x555555558200 <gate>, private=0) at ./nptl/lowlevellock.c:49'], ['___pthread_mutex_lock (mutex=0x555555558200 <gate>) at ./nptl/pthread_mutex_lock.c:93'], ['work () at app.cpp:10', [`w = {_M_device = @${A}}`]]]);
  const writer = thread(3, 'writer', [
    [`__futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=3, futex_word=${A} <rw>) at ./nptl/futex-internal.c:57`],
    [`__pthread_rwlock_wrlock_full64 (abstime=0x0, clockid=0, rwlock=${A} <rw>) at ./nptl/pthread_rwlock_common.c:730`],
    [`___pthread_rwlock_wrlock (rwlock=${A} <rw>) at ./nptl/pthread_rwlock_wrlock.c:26`],
    ['write () at app.cpp:20'],
  ]);
  const a = analyze(parseDump(holder + '\n' + writer));
  const hold = a.edges.find((e) => e.basis === 'locals');
  assert.equal(hold?.from, `res:rwlock:${A}`, 'named like the wait on that address');
  assert.equal(hold?.to, 'thread:2');
  const off = analyze(parseDump(holder + '\n' + writer), { rules: disableRules(loadBuiltinRules(), ['libstdcxx.lock-guard.held']) });
  assert.equal(off.edges.filter((e) => e.basis === 'locals').length, 0);
});

test('a user locals rule is validated: a placeholder that names no address member is one error line', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-locals-rule-'));
  try {
    const file = join(dir, 'myapp.guard.held.yaml');
    const rule = (resource: string, extra = ''): string =>
      `id: myapp.guard.held\npack: myapp\nsummary: my guard.\nmatch:\n  local:\n    fields:\n      lock_: { address: true }\n${extra}effect:\n  evidence: proven\n  holds:\n    - resource: "${resource}"\nexplanation: x\nfix: y\nsources: [myapp]\n`;
    writeFileSync(file, rule('mutex:{local.owner_.address}'));
    assert.throws(() => loadRules({ extraFiles: [file], noBuiltins: true }), (e: unknown) => e instanceof RuleError && /placeholder \{local\.owner_\.address\} names owner_, which is no address member/.test(e.message) && !e.message.includes('\n'));
    writeFileSync(file, rule('mutex:{local.lock_.address}', '    pointer: true\n'));
    assert.throws(() => loadRules({ extraFiles: [file], noBuiltins: true }), /give fields or pointer: true, not both/);
    writeFileSync(file, rule('mutex:{local.lock_.address}'));
    const loaded = loadRules({ extraFiles: [file], noBuiltins: true });
    assert.deepEqual(loaded.localsRules?.map((r) => r.id), ['myapp.guard.held']);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
