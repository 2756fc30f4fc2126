/**
 * An unresolved wait whose lock records no owner (no gdb command can name the holder) carries the
 * rule's holderHint: the text report prints it once for all the waits it is said of, JSON gives it
 * on each, and a wait with a gdb command gets the command instead.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText } from '../../src/analyze/index.js';
import { renderJson } from '../../src/report/json.js';
import { renderText } from '../../src/report/text.js';
import { ROOT } from '../helpers/paths.js';
import { Chalk } from 'chalk';

const live = (name: string): string => readFileSync(join(ROOT, 'fixtures', 'live', name), 'utf8');

test('GMutex waits without GLib debug info: the hint is in JSON on each wait, in the text once', () => {
  const a = analyzeText(live('glib-abba.txt'));
  const json = JSON.parse(renderJson(a)) as { unresolved: Array<{ resource: string; gdbCommand: string | null; holderHint?: string }> };
  assert.deepEqual(json.unresolved.map((u) => u.resource), ['gmutex:unknown@2', 'gmutex:unknown@3']);
  for (const u of json.unresolved) {
    assert.equal(u.gdbCommand, null);
    assert.match(u.holderHint ?? '', /`--source DIR` \(the program's source\) names the GMutexes each thread took/);
  }
  const text = renderText(a, { chalk: new Chalk({ level: 0 }) });
  assert.equal(text.split('to find who holds such a lock:').length - 1, 1, text);
  // It follows the first wait it is said of, inside the Unresolved waits section.
  const section = text.slice(text.indexOf('Unresolved waits'));
  assert.ok(section.indexOf('to find who holds such a lock:') > section.indexOf('(gmutex:unknown@2)'));
  assert.ok(section.indexOf('to find who holds such a lock:') < section.indexOf('Thread 3 (LWP'));
});

test('a wait with a gdb command to name its holder gets the command and no hint', () => {
  const a = analyzeText(live('gstreamer-wait-zoo.txt'));
  const mutex = a.unresolved.find((u) => u.resource.startsWith('mutex:0x'));
  assert.ok(mutex?.gdbCommand, 'a pthread mutex wait with its owner query');
  assert.equal(mutex.holderHint, undefined);
  const text = renderText(a, { chalk: new Chalk({ level: 0 }) });
  // Two hints (GST_OBJECT_LOCK's and the bare GMutex's), each printed once.
  assert.equal(text.split('to find who holds such a lock:').length - 1, 2, text);
  assert.match(text, /ask gdb: print \(\(pthread_mutex_t \*\) 0x[0-9a-f]+\)->__data\.__owner/);
});
