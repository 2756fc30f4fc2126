/** `waitgraph parse`: the model as JSON, with the input's invisible characters escaped. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { runWaitgraph } from '../../helpers/run-cli.js';

test('parse escapes bidi marks and C1 controls from the input, and the JSON still reads back the same text', () => {
  // U+202E (right-to-left override) in a thread name and U+0085 (C1 NEL) in a function name.
  const dump = 'Thread 2 (Thread 0x7f00 (LWP 11) "evil\u202egnp.exe"):\n#0  0x00007f01 in lock\u0085er (m=0x1) at a.c:3\n';
  const run = runWaitgraph(['parse', '-'], { input: dump });
  assert.equal(run.code, 0, run.stderr);
  assert.doesNotMatch(run.stdout, /[\u202e\u0085]/);
  assert.match(run.stdout, /\\u202e/);
  assert.match(run.stdout, /\\u0085/);
  const parsed = JSON.parse(run.stdout) as { backtraces: Array<{ thread: { name: string }; frames: Array<{ function: string }> }> };
  assert.equal(parsed.backtraces[0]!.thread.name, 'evil\u202egnp.exe');
  assert.equal(parsed.backtraces[0]!.frames[0]!.function, 'lock\u0085er');
});
