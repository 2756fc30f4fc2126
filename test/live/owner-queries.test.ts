/** Units of the live driver that need no gdb: MI decoding, owner query planning, answer parsing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMiLine, quoteCString, readCString, resultField } from '../../src/live/mi.js';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { factFromAnswer, GIL_HOLDER_EXPRESSIONS, parseIntegerAnswer, planOwnerQueries, queryFor, shapeOfExpression } from '../../src/live/owner-queries.js';
import { analyzeText } from '../../src/analyze/index.js';
import { loadRules } from '../../src/rules/index.js';
import { PACKS } from '../helpers/paths.js';
import { parsePid } from '../../src/live/investigate.js';
import type { Edge } from '../../src/model/analysis.js';

test('MI c-strings decode escapes and UTF-8 octal bytes', () => {
  assert.equal(readCString('"a\\n\\"b\\\\"', 0).value, 'a\n"b\\');
  // gdb prints a thread name with non-ASCII bytes as octal escapes: "é" = \303\251.
  assert.equal(readCString('"caf\\303\\251"', 0).value, 'café');
  assert.equal(quoteCString('a"b\\c'), '"a\\"b\\\\c"');
});

test('MI lines: console streams, results with tokens, errors with msg', () => {
  const stream = parseMiLine('~"Thread 2 (Thread 0x7f (LWP 5) \\"abba-ab\\"):\\n"');
  assert.deepEqual(stream, { type: 'stream', channel: 'console', text: 'Thread 2 (Thread 0x7f (LWP 5) "abba-ab"):\n' });
  const done = parseMiLine('6^done,value="5790"');
  assert.equal(done.type, 'result');
  assert.ok(done.type === 'result' && done.token === 6 && done.cls === 'done');
  assert.ok(done.type === 'result' && resultField(done.rest, 'value') === '5790');
  const error = parseMiLine('5^error,msg="Cannot access memory at address 0x9"');
  assert.ok(error.type === 'result' && resultField(error.rest, 'msg') === 'Cannot access memory at address 0x9');
  assert.equal(parseMiLine('(gdb) ').type, 'prompt');
  assert.equal(parseMiLine('=thread-created,id="2",group-id="i1"').type, 'async');
});

test('owner queries are built only for validated hex addresses', () => {
  assert.equal(queryFor('mutex:0x55c6a8e3d0a0')?.expressions[0], '((pthread_mutex_t *) 0x55c6a8e3d0a0)->__data.__owner');
  assert.equal(queryFor('rwlock:0x4420d8')?.expressions[0], '((pthread_rwlock_t *) 0x4420d8)->__data.__cur_writer');
  assert.equal(queryFor('mutex:0x1); shell touch /tmp/x #'), null);
  assert.equal(queryFor('mutex:0X1'), null);
  assert.equal(queryFor('mutex:?'), null);
  assert.equal(queryFor('mutex:0x12345678901234567'), null, 'more than 64 bits is not an address');
  assert.equal(queryFor('cond:0x10'), null, 'condition variables have no owner to ask');
  assert.equal(queryFor('py:gil')?.answer, 'ptid');
});

test('rtld-lock: the loader locks are asked by name, only the three names glibc has', () => {
  assert.equal(queryFor('loader:dl_load_write_lock', 'rtld-lock')?.expressions[0], '_rtld_global._dl_load_write_lock.mutex.__data.__owner');
  assert.equal(queryFor('loader:dl_load_tls_lock', 'rtld-lock')?.answer, 'lwp');
  assert.equal(queryFor('loader:dl_other_lock', 'rtld-lock'), null);
  assert.equal(queryFor('loader:dl_load_lock); shell touch /tmp/x #', 'rtld-lock'), null);
  assert.equal(queryFor('loader:0x55c6a8e3d0a0', 'rtld-lock'), null);
  // A saved transcript's question is read back to the same lock.
  assert.deepEqual(shapeOfExpression('_rtld_global._dl_load_lock.mutex.__data.__owner'), { shape: 'rtld-lock', resource: 'loader:dl_load_lock', answer: 'lwp' });
});

test('planOwnerQueries asks once per waited-for resource, including unresolved waits', () => {
  const wait = (from: string, to: string): Edge => ({ kind: 'waits', from, to, evidence: 'inferred', ruleId: 'x', site: null, description: '' });
  const plan = planOwnerQueries({
    edges: [wait('thread:2', 'res:mutex:0xa0'), wait('thread:3', 'res:mutex:0xa0'), wait('thread:4', 'res:cond:0xb0'), { ...wait('res:mutex:0xc0', 'thread:2'), kind: 'holds' }],
    unresolved: [{ thread: '5', resource: 'py:gil', description: '', ruleId: 'y', site: null, gdbCommand: null }],
  });
  assert.deepEqual(plan.map((q) => q.resource), ['mutex:0xa0', 'py:gil']);
});

test('answers: integers from gdb output; 0 means no holder', () => {
  assert.equal(parseIntegerAnswer('20496'), 20496n);
  assert.equal(parseIntegerAnswer('$1 = 20496'), 20496n);
  assert.equal(parseIntegerAnswer('{_value = 140615691774848}'), 140615691774848n);
  assert.equal(parseIntegerAnswer('<optimized out>'), null);
  assert.equal(parseIntegerAnswer('20496; shell id'), null);
  const q = queryFor('py:gil')!;
  const fact = factFromAnswer({ query: q, command: 'print x', answer: '140615691774848', ok: true });
  assert.deepEqual(fact?.holder, { ptid: '0x7fe3a45bab80' });
  assert.equal(factFromAnswer({ query: queryFor('mutex:0x10')!, command: 'print y', answer: '0', ok: true }), null);
  assert.equal(factFromAnswer({ query: queryFor('mutex:0x10')!, command: 'print y', answer: 'Cannot access memory', ok: false }), null);
  assert.deepEqual(factFromAnswer({ query: queryFor('mutex:0x10')!, command: 'print y', answer: '5790', ok: true })?.holder, { lwp: 5790 });
});

test('pids are plain positive decimal integers', () => {
  assert.equal(parsePid('4242'), 4242);
  for (const bad of ['0', '-1', '12a', '0x10', ' ', '1; id', '99999999999']) assert.throws(() => parsePid(bad), { code: 'E_INPUT' });
});

test('owner shapes: a rule names one and gdb is asked by it, whatever the resource kind is called', () => {
  assert.equal(queryFor('gmutex:0x10', 'grec-mutex')?.expressions[0], '((pthread_mutex_t *) *(void **) 0x10)->__data.__owner');
  assert.equal(queryFor('jlmutex:0x7fa1', 'jl-mutex')?.answer, 'ptid');
  assert.equal(queryFor('gmutex:0x10'), null, 'a kind without a default shape is not asked');
  assert.equal(queryFor('gmutex:unknown@3', 'grec-mutex'), null, 'an identity that is no address is never asked');
  const wait: Edge = { kind: 'waits', from: 'thread:2', to: 'res:qmutex:0xa0', evidence: 'proven', ruleId: 'x', site: null, description: '', ownerShape: 'pthread-mutex' };
  assert.deepEqual(
    planOwnerQueries({ edges: [wait], unresolved: [] }).map((q) => q.expressions[0]),
    ['((pthread_mutex_t *) 0xa0)->__data.__owner'],
  );
});

test('the gdb command a report shows is the one live mode asks first (one table of shapes)', () => {
  const rules = loadRules();
  for (const name of ['cpython/cpython.gil.wait.txt', 'glibc/glibc.mutex.wait.txt', 'glibc/glibc.rwlock.write.txt', 'julia/julia.lock.jl-mutex.txt']) {
    const a = analyzeText(readFileSync(join(PACKS, name), 'utf8'), { rules });
    const shown = a.unresolved.filter((u) => u.ownerShape !== undefined);
    assert.ok(shown.length > 0, `${name}: an unresolved wait with an owner shape`);
    for (const u of shown) assert.equal(u.gdbCommand, `print ${queryFor(u.resource, u.ownerShape)?.expressions[0]}`, `${name} ${u.resource}`);
  }
  // The GIL waiter alone (its fixture's holder left out): the wait is unresolved.
  const waiter = /^Thread 2 [^\n]*\n(#[^\n]*\n)+/m.exec(readFileSync(join(PACKS, 'cpython', 'cpython.gil.wait.txt'), 'utf8'))?.[0] ?? '';
  const gil = analyzeText(waiter, { rules }).unresolved.find((u) => u.resource === 'py:gil');
  assert.equal(gil?.gdbCommand, `print ${GIL_HOLDER_EXPRESSIONS[0]}`, 'the GIL command checks that the GIL is locked, as live mode does');
});
