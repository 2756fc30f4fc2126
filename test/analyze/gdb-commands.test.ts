/**
 * The `--gdb-commands` file (src/analyze/gdb-commands.ts): what it asks and in what order, that it
 * runs nothing the pasted text or a user's rule could smuggle in, and that every command is echoed
 * so gdb's output reads back as a transcript. The live loop itself is test/live/owner-loop.test.ts.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText } from '../../src/analyze/index.js';
import { gdbCommandFile, safeGdbCommand } from '../../src/analyze/gdb-commands.js';
import { loadRules } from '../../src/rules/index.js';
import { FIXTURES, ROOT } from '../helpers/paths.js';

const live = (name: string): string => readFileSync(join(FIXTURES, 'live', name), 'utf8');

test('each owner question is echoed as `(gdb) …` before it runs; settings first', () => {
  const file = gdbCommandFile(analyzeText(live('abba.txt')), 'abba.txt');
  const lines = file.split('\n');
  assert.deepEqual(lines.slice(4, 7), ['set pagination off', 'set width 0', 'set print pretty off']);
  const asks = lines.filter((l) => l.startsWith('print '));
  assert.deepEqual(asks, ['print ((pthread_mutex_t *) 0x556cc90550a0)->__data.__owner', 'print ((pthread_mutex_t *) 0x556cc90550e0)->__data.__owner']);
  for (const ask of asks) assert.equal(lines[lines.indexOf(ask) - 1], `echo (gdb) ${ask}\\n`);
});

test('the GIL variants and $rdi questions are each tried on their own in Python, after the plain ones', () => {
  const gil = gdbCommandFile(analyzeText(live('py-gil-vs-mutex.txt')), 'py');
  assert.match(gil, /^python\n[\s\S]*waitgraph_ask\(\["print _PyRuntime\.ceval\.gil\.locked\._value \? [^\]]+\]\)\nend\n$/m);
  assert.ok(gil.indexOf('\nprint ((pthread_mutex_t *)') < gil.indexOf('\npython\n'), 'plain questions before the Python block');
  const bare = gdbCommandFile(analyzeText(live('abba.nodebug.txt')), 'bare');
  assert.match(bare, /if gdb\.selected_inferior\(\)\.architecture\(\)\.name\(\) == "i386:x86-64":\n {4}waitgraph_ask\(\["thread apply 2 print \*\(pthread_mutex_t \*\) \$rdi"\]\)/);
});

test('a user rule’s own ownerQuery is written as a comment, never to run', () => {
  const rules = loadRules({ extraFiles: [join(ROOT, 'test', 'rules', 'examples', 'myapp.spinlock.wait.yaml')] });
  const a = analyzeText(readFileSync(join(ROOT, 'test', 'rules', 'examples', 'spin.txt'), 'utf8'), { rules });
  const file = gdbCommandFile(a, 'spin.txt');
  assert.match(file, /^# From a rule file, not run \(read it first\): print \(\(struct myapp_spinlock \*\) 0x55f1c2a04060\)->owner_tid$/m);
  assert.doesNotMatch(file, /^print \(\(struct myapp_spinlock/m);
});

test('commands from the pasted text run only when they read memory and call nothing', () => {
  assert.ok(safeGdbCommand('print &qemu_global_mutex'));
  assert.ok(safeGdbCommand('thread apply 2 frame apply level 2 print &(*(pthread_mutex_t *) $rdi)'));
  for (const bad of ['print &x = 1', 'print system("rm -rf /")', 'print &(f(1))', 'shell rm -rf /', 'print &x\nshell id', 'print $x++', 'print a, b']) {
    assert.equal(safeGdbCommand(bad), false, bad);
  }
  // An unlinked print of a call is reported without a command, and nothing of it reaches the file.
  const a = analyzeText(`${live('abba.nodebug.txt')}(gdb) p *get_lock(1)\n$1 = {__data = {__lock = 2, __count = 0, __owner = 20595}}\n`);
  assert.equal(a.unlinkedOwners?.[0]?.gdbCommand, null);
  assert.doesNotMatch(gdbCommandFile(a, 'x'), /get_lock/);
});
