/** Units of the live driver that need no gdb: MI decoding, owner query planning, answer parsing. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseMiLine, quoteCString, readCString, resultField } from '../../src/live/mi.js';
import { factFromAnswer, parseIntegerAnswer, planOwnerQueries, queryFor } from '../../src/live/owner-queries.js';
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
