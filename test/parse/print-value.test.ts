/**
 * The readers of gdb `print` answers and expressions (src/parse/print-value.ts), on the shapes real
 * sessions print: glibc's pthread_mutex_t and rwlock, QEMU's QemuMutex (as a mail archive mangled
 * it, ../shared/corpus/048), std::mutex with its base class (gdb 13 / g++ 12), glibc's pretty
 * printers, and answers cut short (../shared/corpus/033).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { integerAddress, ownerFields, pointerAnswer, printExpression } from '../../src/parse/print-value.js';

test('a pthread mutex: __owner at the value start, with its __lock word', () => {
  const v = '{__data = {__lock = 2, __count = 0, __owner = 20496, __nusers = 1, __kind = 0, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\\002\\000\\000\\000\\000\\000\\000\\000\\020P\\000\\000\\001", \'\\000\' <repeats 26 times>, __align = 2}';
  assert.deepEqual(ownerFields(v), [{ field: '__owner', value: 20496, lockPath: [], atStart: true, lockWord: 2 }]);
});

test('a process-shared lock: __kind with PTHREAD_MUTEX_PSHARED_BIT (128, as gdb 13 printed a PTHREAD_PROCESS_SHARED mutex), an rwlock\'s __shared, the printers\' Shared = Yes', () => {
  const shared = '{__data = {__lock = 2, __count = 0, __owner = 19951, __nusers = 1, __kind = 128, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\\002", \'\\000\' <repeats 38 times>, __align = 2}';
  assert.deepEqual(ownerFields(shared), [{ field: '__owner', value: 19951, lockPath: [], atStart: true, lockWord: 2, shared: true }]);
  // A recursive (1) or robust (16) private mutex is not shared.
  for (const kind of [1, 16, 3]) assert.equal(ownerFields(shared.replace('__kind = 128', `__kind = ${kind}`))[0]?.shared, undefined, `__kind = ${kind}`);
  assert.equal(ownerFields('{__data = {__readers = 0, __writers = 0, __wrphase_futex = 1, __writers_futex = 1, __pad3 = 0, __pad4 = 0, __cur_writer = 4711, __shared = 1, __rwelision = 0 \'\\000\', __pad1 = "\\000", __pad2 = 0, __flags = 0}, __size = "", __align = 0}')[0]?.shared, true);
  assert.equal(ownerFields('pthread_mutex_t = {Type = Normal, Status = Acquired, possibly with waiters, Owner ID = 20497, Robust = No, Shared = Yes, Protocol = None}')[0]?.shared, true);
});

test('QEMU QemuMutex wrapping the mutex, mangled `_data` as published (corpus 048)', () => {
  const v = '{lock = {_data = {lock = 2, __count = 0, __owner = 11212, __nusers = 9, __kind = 0, __spins = 0, __elision = 0, __list = {_prev = 0x0, __next = 0x0}}, __size = "\\002\\000\\000\\000\\000\\000\\000\\000\\314+\\000\\000\\t", \'\\000\' <repeats 26 times>, __align = 2}, file = 0x563401c07e4b "util/main-loop.c", line = 240, initialized = true}';
  assert.deepEqual(ownerFields(v), [{ field: '__owner', value: 11212, lockPath: ['lock'], atStart: true, lockWord: 2 }]);
});

test('std::mutex: the base class and _M_mutex lead to the pthread mutex at the start', () => {
  const v = '{<std::__mutex_base> = {_M_mutex = {__data = {__lock = 2, __count = 0, __owner = 31666, __nusers = 1, __kind = 0, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\\002\\000\\000\\000\\000\\000\\000\\000\\262{\\000\\000\\001", \'\\000\' <repeats 26 times>, __align = 2}}, <No data fields>}';
  assert.deepEqual(ownerFields(v), [{ field: '__owner', value: 31666, lockPath: ['_M_mutex'], atStart: true, lockWord: 2 }]);
});

test('a lock that is not the first member is not at the start; two locks give two fields', () => {
  const v = '{count = 3, a = {__data = {__lock = 2, __count = 0, __owner = 7, __nusers = 1}}, b = {__data = {__lock = 0, __count = 0, __owner = 0}}}';
  assert.deepEqual(ownerFields(v), [
    { field: '__owner', value: 7, lockPath: ['a'], atStart: false, lockWord: 2 },
    { field: '__owner', value: 0, lockPath: ['b'], atStart: false, lockWord: 0 },
  ]);
});

test('glibc pretty printers: Owner ID, Writer ID and Readers', () => {
  assert.deepEqual(ownerFields('pthread_mutex_t = {Type = Normal, Status = Acquired, possibly with waiters, Owner ID = 20497, Robust = No, Shared = No, Protocol = None}'), [
    { field: '__owner', value: 20497, lockPath: [], atStart: true },
  ]);
  assert.deepEqual(ownerFields('pthread_rwlock_t = {Kind = Prefer readers, Readers = 2, Writer ID = 0, Shared = No}'), [{ field: '__cur_writer', value: 0, lockPath: [], atStart: true, readers: 2 }]);
});

test('a glibc rwlock: __cur_writer, and readers from __readers >> 3', () => {
  const v = '{__data = {__readers = 11, __writers = 0, __wrphase_futex = 0, __writers_futex = 0, __pad3 = 0, __pad4 = 0, __cur_writer = 0, __shared = 0, __rwelision = 0 \'\\000\', __pad1 = "\\000\\000\\000\\000\\000\\000", __pad2 = 0, __flags = 0}, __size = "\\v", \'\\000\' <repeats 55 times>, __align = 11}';
  assert.deepEqual(ownerFields(v), [{ field: '__cur_writer', value: 0, lockPath: [], atStart: true, readers: 1 }]);
});

test('an answer cut short still gives the owner it showed (corpus 033)', () => {
  const v = '{__data = {__lock = 2, __count = 0, __owner = 428, __nusers = 1, __kind = 0, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\\002\\000\\000\\000\\000\\000\\000\\000\\254\\001\\000\\000\\001", \'\\000\' <rep';
  assert.deepEqual(ownerFields(v).map((f) => [f.field, f.value]), [['__owner', 428]]);
});

test('values without an owner, strings that look like one, and hostile nesting give nothing', () => {
  assert.deepEqual(ownerFields('{name = "__owner = 5", n = 3}'), []);
  assert.deepEqual(ownerFields('20595'), []);
  assert.deepEqual(ownerFields('{'.repeat(100_000)), []);
  assert.deepEqual(ownerFields(`${'{a = '.repeat(70)}{__owner = 5}${'}'.repeat(70)}`), [], 'deeper than the reader goes: read as flat text');
});

test('pointer and integer answers', () => {
  assert.deepEqual(pointerAnswer('(class std::mutex *) 0x564f29c900e0 <accounts>'), { address: '0x564f29c900e0', symbol: 'accounts' });
  assert.deepEqual(pointerAnswer('(pthread_mutex_t *) 0x00005555555580a0'), { address: '0x5555555580a0', symbol: null });
  assert.equal(pointerAnswer('{__data = {}}'), null);
  assert.equal(integerAddress('140209899737720'), '0x7f8529449278');
  assert.equal(integerAddress('0'), null);
});

test('print expressions: what object the answer is, and the members after it', () => {
  const base = (e: string) => printExpression(e);
  assert.deepEqual(base('*(pthread_mutex_t*)0x7f8529449278'), { base: { kind: 'address', address: '0x7f8529449278' }, members: [], last: null });
  assert.deepEqual(base('((pthread_mutex_t *) 0x561c67ba50e0)->__data.__owner'), { base: { kind: 'address', address: '0x561c67ba50e0' }, members: [], last: '__owner' });
  assert.deepEqual(base('qemu_global_mutex'), { base: { kind: 'variable', name: 'qemu_global_mutex' }, members: [], last: null });
  assert.deepEqual(base('qemu_global_mutex.lock'), { base: { kind: 'variable', name: 'qemu_global_mutex' }, members: ['lock'], last: 'lock' });
  assert.deepEqual(base('*mutex'), { base: { kind: 'pointer', name: 'mutex' }, members: [], last: null });
  assert.deepEqual(base('mutex->__data.__owner'), { base: { kind: 'pointer', name: 'mutex' }, members: [], last: '__owner' });
  assert.deepEqual(base('*(pthread_mutex_t *) $rdi'), { base: { kind: 'convenience', name: 'rdi', deref: true }, members: [], last: null });
  assert.deepEqual(base('*$3'), { base: { kind: 'convenience', name: '3', deref: true }, members: [], last: null });
  assert.equal(base('&lock_b'), null);
  assert.equal(base('foo(1)'), null);
  assert.equal(base(`*(${'('.repeat(5000)}`), null);
});
