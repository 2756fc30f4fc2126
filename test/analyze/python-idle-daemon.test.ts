/**
 * A Python program whose every thread sleeps in a Python lock wait with no time limit. The C
 * frames cannot tell a Condition, Event or Queue wait (acquire() on a lock of its own, released by
 * notify) from a held Lock, but they do show two things: a `with lock:` entry (a lock wait only,
 * cpython.lock.with-enter) and the main thread, whose wait a signal interrupts to run the Python
 * signal handlers (cpython.lock.main-thread). A daemon in Event.wait() over workers in Queue.get()
 * is then idle until a signal; two workers deadlocked in `with` blocks are still a hang.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText } from '../../src/analyze/index.js';
import { LIVE_FIXTURES } from '../live/harness.js';

const analysisOf = (name: string) => analyzeText(readFileSync(join(LIVE_FIXTURES, name), 'utf8'));

for (const variant of ['txt', 'nodebug.txt']) {
  test(`py-healthy-daemon.${variant}: idle until a signal, which the main thread's wait takes; not a hang`, () => {
    const a = analysisOf(`py-healthy-daemon.${variant}`);
    assert.equal(a.verdict, 'ok');
    const reason = a.verdictReasons[0];
    assert.equal(reason?.kind, 'signal-wake');
    const main = a.threads.find((t) => t.name === 'python3');
    assert.deepEqual(reason?.threads, [main?.key], 'only the main thread is woken by a signal');
    assert.match(reason?.text ?? '', /is the main thread, whose Python lock wait a signal interrupts/);
    assert.match(reason?.text ?? '', /thread apply all py-bt/);
    for (const t of a.threads.filter((x) => x.name?.startsWith('py-daemon-w'))) {
      assert.ok(!t.rules.includes('cpython.lock.with-enter'), `${t.name}: a Queue.get is no \`with\` entry`);
      assert.ok(t.rules.includes('cpython.lock.acquire'), `${t.name}: read as a Python lock wait`);
    }
  });

  test(`py-abba-locks.${variant}: the workers wait to enter \`with\` blocks, so it is still a hang`, () => {
    const a = analysisOf(`py-abba-locks.${variant}`);
    assert.equal(a.verdict, 'hang');
    for (const name of ['py-abba-ab', 'py-abba-ba']) {
      const t = a.threads.find((x) => x.name === name);
      assert.ok(t?.rules.includes('cpython.lock.with-enter'), `${name}: ${t?.rules.join(', ')}`);
    }
    // The main thread (in join) would be woken by a signal, but the workers' `with` waits are lock waits.
    assert.ok(a.threads.find((x) => x.name === 'python3')?.signalWake, 'the main thread takes signals');
  });
}
