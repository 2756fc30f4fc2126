/**
 * Context of a print (issue 12 §2): a `print` typed after `thread N` / `frame K`, in a thread whose
 * frames give no address (libc without debug info), answers that thread's wait — and only that
 * thread's. The backtraces are the real gdb 13 capture fixtures/live/abba.nodebug.txt (threads 2
 * and 3 each wait for a mutex gdb shows no address of); the transcript lines are in gdb 13's shapes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText } from '../../src/analyze/index.js';
import { FIXTURES } from '../helpers/paths.js';

const dump = readFileSync(join(FIXTURES, 'live', 'abba.nodebug.txt'), 'utf8');
const lwp = (name: string): number => Number(new RegExp(`\\(LWP (\\d+)\\) "${name}"`).exec(dump)?.[1]);
const mutexPrint = (owner: number): string =>
  `{__data = {__lock = 2, __count = 0, __owner = ${owner}, __nusers = 1, __kind = 0, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\\002", '\\000' <repeats 38 times>, __align = 2}`;
const select = (thread: number, name: string): string =>
  `(gdb) thread ${thread}\n[Switching to thread ${thread} (Thread 0x7f2411f276c0 (LWP ${lwp(name)}))]\n#0  0x00007f2411fb112b in ?? () from /lib/x86_64-linux-gnu/libc.so.6\n`;

test('a print in `thread N` is about thread N’s wait when its frames give no address', () => {
  const ab = lwp('abba-ab');
  const ba = lwp('abba-ba');
  const text = `${dump}${select(2, 'abba-ab')}(gdb) p lock_b\n$1 = ${mutexPrint(ba)}\n${select(3, 'abba-ba')}(gdb) p lock_a\n$2 = ${mutexPrint(ab)}\n`;
  const a = analyzeText(text);
  assert.deepEqual(a.facts.map((f) => [f.resource, f.holder.lwp, f.link]), [
    ['mutex:unknown@2', ba, "by the selected thread, printed in thread 2's frame 0"],
    ['mutex:unknown@3', ab, "by the selected thread, printed in thread 3's frame 0"],
  ]);
  assert.equal(a.verdict, 'deadlock');
  assert.deepEqual(a.deadlocks.map((d) => [d.threads, d.evidence]), [[['2', '3'], 'proven']]);
});

test('the same prints with no thread selected link to nothing, and say which command would link them', () => {
  const a = analyzeText(`${dump}(gdb) p lock_b\n$1 = ${mutexPrint(lwp('abba-ba'))}\n`);
  assert.deepEqual(a.facts, []);
  assert.equal(a.unlinkedOwners?.[0]?.gdbCommand, 'print &lock_b');
  assert.notEqual(a.verdict, 'deadlock');
});

test('a print in thread 1, which waits for no mutex, answers neither waiter', () => {
  const a = analyzeText(`${dump}(gdb) thread 1\n[Switching to thread 1 (Thread 0x7f2411f28740 (LWP ${lwp('abba')}))]\n#0  0x00007f2411fb0f16 in ?? () from /lib/x86_64-linux-gnu/libc.so.6\n(gdb) p lock_b\n$1 = ${mutexPrint(lwp('abba-ba'))}\n`);
  assert.deepEqual(a.facts, []);
  assert.match(a.unlinkedOwners?.[0]?.reason ?? '', /thread 1, where it was printed, waits for no mutex/);
});
