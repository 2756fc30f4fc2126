/**
 * A thread that called g_main_context_acquire and kept the context shows no GLib frame while it
 * does something else, so a waiter for that context (glib.main-context.wait) must not be told that
 * no thread of the dump could hold it. In the GLib zoo the context's owner is the main thread,
 * parked in pause(): it can go on (a signal), so the wait is contention, not a hang.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText } from '../../src/analyze/index.js';
import { FIXTURES } from '../helpers/paths.js';

test('a GMainContext waiter whose owner shows no GLib frame: a thread that can go on may hold it', () => {
  for (const variant of ['glib-wait-zoo.txt', 'glib-wait-zoo.nodebug.txt']) {
    const a = analyzeText(readFileSync(join(FIXTURES, 'live', variant), 'utf8'));
    const waiter = a.threads.find((t) => t.name === 'gcontext-waiter');
    assert.deepEqual(waiter?.rules, ['glib.main-context.wait'], variant);
    assert.equal(a.verdict, 'ok', `${variant}: ${a.verdictReasons.map((r) => r.text).join(' ')}`);
    const said = [...a.verdictReasons.map((r) => r.text), ...a.notes].join('\n');
    assert.doesNotMatch(said, /no thread of the dump could hold it/, variant);
    assert.match(said, /wait for a lock whose holder the text does not show; a thread that can go on may hold it/);
  }
});
