/**
 * Owner answers in pasted gdb transcripts, linked to the waits they answer (src/analyze/owner-links.ts):
 * by address, by symbol, by the selected frame's argument or source line, by register, by the
 * selected thread alone; answers that cannot be linked are reported with why and the gdb command
 * that would link them. Backtraces are real gdb 13 captures (fixtures/live); the transcript lines
 * are in the shapes gdb 13 prints them (checked against real sessions, see fixtures/live/*.transcript*.txt)
 * and those of the shared corpus (032, 033, 048).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText } from '../../src/analyze/index.js';
import type { Analysis, Edge } from '../../src/model/analysis.js';
import { FIXTURES, HAS_SHARED_CORPUS, SHARED_CORPUS } from '../helpers/paths.js';

const live = (name: string): string => readFileSync(join(FIXTURES, 'live', name), 'utf8');
const corpus = (prefix: string): string => {
  const file = readdirSync(SHARED_CORPUS).find((f) => f.startsWith(prefix) && f.endsWith('.txt'));
  assert.ok(file, `corpus dump ${prefix}`);
  return readFileSync(join(SHARED_CORPUS, file), 'utf8');
};
const skip = HAS_SHARED_CORPUS ? false : 'the shared corpus is not beside this checkout';

const mutexPrint = (owner: number, lock = 2): string =>
  `{__data = {__lock = ${lock}, __count = 0, __owner = ${owner}, __nusers = 1, __kind = 0, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\\002", '\\000' <repeats 38 times>, __align = 2}`;

function holds(a: Analysis, resource: string): Edge[] {
  return a.edges.filter((e) => e.kind === 'holds' && e.from === `res:${resource}`);
}

test('corpus 048: `p qemu_global_mutex` links by symbol, the join by threadid: a proven deadlock {1, 13}', { skip }, () => {
  const a = analyzeText(corpus('048-'));
  assert.equal(a.verdict, 'deadlock');
  assert.deepEqual(a.deadlocks.map((d) => [d.threads, d.evidence]), [[['1', '13'], 'proven']]);
  const hold = holds(a, 'mutex:0x56340218ffa0');
  assert.deepEqual(hold.map((e) => [e.to, e.evidence, e.basis]), [['thread:1', 'proven', 'owner-print']]);
  assert.match(hold[0]!.description, /by the symbol <qemu_global_mutex>/);
  assert.equal(a.unlinkedOwners, undefined);
});

test('corpus 032 + 033 pasted together: thread 5 waits for the mutex LWP 428 (thread 30) holds, proven', { skip }, () => {
  const a = analyzeText(corpus('032-') + corpus('033-'));
  const wait = a.edges.find((e) => e.kind === 'waits' && e.from === 'thread:5');
  assert.equal(wait?.to, 'res:mutex:0x7f8529449278', 'the print in thread 5 frame 1 names the mutex its frames do not show');
  assert.equal(wait?.basis, 'owner-print');
  assert.deepEqual(holds(a, 'mutex:0x7f8529449278').map((e) => [e.to, e.evidence, e.basis]), [['thread:30', 'proven', 'owner-print']]);
  // Alone, 033 still links the answer (thread 30 is not in it: the owner is named, not found).
  const alone = analyzeText(corpus('033-'));
  assert.deepEqual(alone.facts.map((f) => [f.resource, f.holder.lwp]), [['mutex:0x7f8529449278', 428]]);
});

test('a scalar answer to `print ((pthread_mutex_t *) A)->__data.__owner` links by address', () => {
  const text = `${live('abba.txt')}(gdb) print ((pthread_mutex_t *) 0x556cc90550a0)->__data.__owner\n$1 = 20594\n(gdb) print ((pthread_mutex_t *) 0x556cc90550e0)->__data.__owner\n$2 = 20595\n`;
  const a = analyzeText(text);
  assert.deepEqual(a.deadlocks.map((d) => [d.threads, d.evidence]), [[['2', '3'], 'proven']]);
  assert.ok(a.facts.every((f) => f.origin === 'text' && f.link === 'by its address'));
});

test('indented and `> `-quoted answers are answers, not bt full locals', () => {
  const indented = `${live('abba.txt')}        (gdb) p lock_a\n        $1 = ${mutexPrint(20594)}\n> (gdb) p lock_b\n> $2 = ${mutexPrint(20595)}\n`;
  const a = analyzeText(indented);
  assert.deepEqual(a.facts.map((f) => [f.resource, f.holder.lwp, f.link]), [
    ['mutex:0x556cc90550a0', 20594, 'by the symbol <lock_a>'],
    ['mutex:0x556cc90550e0', 20595, 'by the symbol <lock_b>'],
  ]);
  assert.equal(a.deadlocks[0]?.evidence, 'proven');
});

test('`p *mutex` after `frame 3` reads the address from the selected frame’s argument', () => {
  const text = `${live('abba.txt')}(gdb) thread 3\n[Switching to thread 3 (Thread 0x7f24117266c0 (LWP 20595))]\n#0  futex_wait (private=0, expected=2, futex_word=0x556cc90550a0 <lock_a>) at ../sysdeps/nptl/futex-internal.h:146\n146\t../sysdeps/nptl/futex-internal.h: No such file or directory.\n(gdb) frame 3\n#3  ___pthread_mutex_lock (mutex=0x556cc90550a0 <lock_a>) at ./nptl/pthread_mutex_lock.c:93\n93\t./nptl/pthread_mutex_lock.c: No such file or directory.\n(gdb) p *mutex\n$1 = ${mutexPrint(20594)}\n`;
  const a = analyzeText(text);
  assert.deepEqual(a.dump.ownerHints.map((h) => [h.address, h.addressFrom, h.context?.thread, h.context?.frame]), [['0x556cc90550a0', 'frame-arg', '3', 3]]);
  assert.deepEqual(holds(a, 'mutex:0x556cc90550a0').map((e) => e.to), ['thread:2']);
});

/** gdb 13 on the ABBA program with libc's debug info hidden: `thread N`, `frame 2` and its source line. */
const nodebugSelect = (thread: number, lwp: number, line: number, source: string): string =>
  `(gdb) thread ${thread}\n[Switching to thread ${thread} (Thread 0x7f24117266c0 (LWP ${lwp}))]\n#0  0x00007f2411fb112b in ?? () from /lib/x86_64-linux-gnu/libc.so.6\n(gdb) frame 2\n#2  0x0000556cc9052355 in take (unused=0x0) at abba.c:${line}\n${line}\t  ${source}\n`;

test('no address in the frames: the selected frame’s source line says which lock `p lock_b` answers', () => {
  const text = `${live('abba.nodebug.txt')}${nodebugSelect(2, 20594, 17, 'pthread_mutex_lock(&lock_b); /* blocks: abba-ba holds lock_b */')}(gdb) p lock_b\n$1 = ${mutexPrint(20595)}\n${nodebugSelect(3, 20595, 28, 'pthread_mutex_lock(&lock_a);')}(gdb) p lock_a\n$2 = ${mutexPrint(20594)}\n`;
  const a = analyzeText(text);
  assert.deepEqual(a.deadlocks.map((d) => [d.threads, d.evidence]), [[['2', '3'], 'proven']]);
  const wait = a.edges.find((e) => e.kind === 'waits' && e.from === 'thread:2');
  assert.match(wait!.description, /the mutex lock_b \(its source line names it/);
  assert.match(a.facts[0]!.link!, /^by the source line "pthread_mutex_lock\(&lock_b\);", printed in thread 2's frame 2$/);
});

test('a print of another lock than the source line takes is not read as the thread’s wait', () => {
  const text = `${live('abba.nodebug.txt')}${nodebugSelect(2, 20594, 17, 'pthread_mutex_lock(&lock_b);')}(gdb) p lock_a\n$1 = ${mutexPrint(20594)}\n`;
  const a = analyzeText(text);
  assert.deepEqual(a.facts, []);
  assert.deepEqual(a.unlinkedOwners?.map((u) => [u.sourceLine, u.answer, u.gdbCommand]), [[a.dump.ownerHints[0]!.sourceLine, '__owner = 20594', 'thread apply 2 frame apply level 2 print &lock_a']]);
  assert.match(a.unlinkedOwners![0]!.reason, /source line "pthread_mutex_lock\(&lock_b\);" takes another lock/);
});

test('`info registers` and `p *(pthread_mutex_t *) $rdi` in a thread without addresses', () => {
  const select = `(gdb) thread 2\n[Switching to thread 2 (Thread 0x7f2411f276c0 (LWP 20594))]\n#0  0x00007f2411fb112b in ?? () from /lib/x86_64-linux-gnu/libc.so.6\n`;
  const text = `${live('abba.nodebug.txt')}${select}(gdb) info registers\nrax            0xfffffffffffffe00  -512\nrdi            0x556cc90550e0      93915223773408\neflags         0x246               [ IF ZF PF ]\n(gdb) p *(pthread_mutex_t *) $rdi\n$1 = ${mutexPrint(20595)}\n`;
  const a = analyzeText(text);
  assert.deepEqual(a.dump.ownerHints.map((h) => [h.address, h.addressFrom]), [['0x556cc90550e0', 'register']]);
  assert.equal(a.edges.find((e) => e.kind === 'waits' && e.from === 'thread:2')?.to, 'res:mutex:0x556cc90550e0');
  assert.deepEqual(holds(a, 'mutex:0x556cc90550e0').map((e) => e.to), ['thread:3']);
});

test('two locks printed in one selection: the selection alone links neither', () => {
  const select = `(gdb) thread 2\n[Switching to thread 2 (Thread 0x7f2411f276c0 (LWP 20594))]\n#0  0x00007f2411fb112b in ?? () from /lib/x86_64-linux-gnu/libc.so.6\n`;
  const a = analyzeText(`${live('abba.nodebug.txt')}${select}(gdb) p *(pthread_mutex_t *) 0x556cc90550e0\n$1 = ${mutexPrint(20595)}\n(gdb) p *(pthread_mutex_t *) 0x556cc90550a0\n$2 = ${mutexPrint(20594)}\n`);
  // Each is still a fact about its own address; neither renames thread 2's wait.
  assert.equal(a.edges.find((e) => e.kind === 'waits' && e.from === 'thread:2')?.to, 'res:mutex:unknown@2');
  assert.deepEqual(a.facts.map((f) => f.resource), ['mutex:0x556cc90550e0', 'mutex:0x556cc90550a0']);
});

test('an unlinked answer says why and which command links it; that command’s answer then links it', () => {
  const text = `${live('abba.nodebug.txt')}(gdb) p lock_b\n$1 = ${mutexPrint(20595)}\n`;
  const a = analyzeText(text);
  assert.deepEqual(a.facts, []);
  const u = a.unlinkedOwners?.[0];
  assert.equal(u?.gdbCommand, 'print &lock_b');
  assert.match(u!.reason, /no frame names <lock_b>, and no thread was selected when it was printed/);
  // The user runs it; gdb's answer, appended, gives the address (still no wait shows it: a fact about that lock).
  const b = analyzeText(`${text}(gdb) print &lock_b\n$2 = (pthread_mutex_t *) 0x556cc90550e0 <lock_b>\n`);
  assert.equal(b.unlinkedOwners, undefined);
  assert.deepEqual(b.facts.map((f) => [f.resource, f.holder.lwp]), [['mutex:0x556cc90550e0', 20595]]);
  // An answer printed without its command: only `print &$N` in the same session can say what it was.
  const c = analyzeText(`${live('abba.nodebug.txt')}$4 = ${mutexPrint(20595)}\n`);
  assert.deepEqual(c.unlinkedOwners?.map((x) => [x.reason, x.gdbCommand]), [['the command that printed it is not in the text', 'print &$4']]);
});

test('owner LWPs map to threads through `info threads` rows when the headers show none', () => {
  const text = [
    '(gdb) info threads',
    '  Id   Target Id                                   Frame ',
    '* 1    Thread 0x7f2411f28740 (LWP 20593) "abba"    0x00007f2411fb0f16 in ?? () from /lib/x86_64-linux-gnu/libc.so.6',
    '  2    Thread 0x7f2411f276c0 (LWP 20594) "abba-ab" futex_wait (private=0, expected=2, futex_word=0x556cc90550e0 <lock_b>) at ../sysdeps/nptl/futex-internal.h:146',
    '(gdb) thread apply all bt',
    '',
    'Thread 2 (Remote target):',
    '#0  futex_wait (private=0, expected=2, futex_word=0x556cc90550e0 <lock_b>) at ../sysdeps/nptl/futex-internal.h:146',
    '#1  __GI___lll_lock_wait (futex=futex@entry=0x556cc90550e0 <lock_b>, private=0) at ./nptl/lowlevellock.c:49',
    '#2  ___pthread_mutex_lock (mutex=0x556cc90550e0 <lock_b>) at ./nptl/pthread_mutex_lock.c:93',
    '#3  0x0000556cc90522e8 in take_a_then_b (unused=0x0) at abba.c:17',
    '',
    'Thread 1 (Remote target):',
    '#0  0x00007f2411fb0f16 in ?? () from /lib/x86_64-linux-gnu/libc.so.6',
    '#1  0x0000556cc90523ff in main () at abba.c:42',
    '(gdb) p lock_b',
    `$1 = ${mutexPrint(20593)}`,
    '',
  ].join('\n');
  const a = analyzeText(text);
  assert.deepEqual(a.threads.map((t) => [t.key, t.lwp]), [['1', 20593], ['2', 20594]]);
  assert.deepEqual(holds(a, 'mutex:0x556cc90550e0').map((e) => [e.to, e.basis]), [['thread:1', 'owner-print']]);
});

test('the GIL holder (the form that checks `locked`) and an rwlock held by readers', () => {
  const text = live('py-gil-vs-mutex.txt');
  const holder = analyzeText(text).threads.find((t) => t.name === 'py-gil-holder');
  assert.ok(holder?.ptid);
  const expr = '_PyRuntime.ceval.gil.locked._value ? ((PyThreadState *) _PyRuntime.ceval.gil.last_holder._value)->thread_id : 0';
  const a = analyzeText(`${text}(gdb) print ${expr}\n$1 = ${BigInt(holder.ptid)}\n`);
  assert.deepEqual(holds(a, 'py:gil').map((e) => [e.to, e.evidence, e.basis]), [[`thread:${holder.key}`, 'proven', 'owner-print']]);
  const rw = analyzeText(`${live('rwlock-writer.txt')}(gdb) p *(pthread_rwlock_t *) 0x1234\n$1 = {__data = {__readers = 11, __writers = 0, __wrphase_futex = 0, __writers_futex = 0, __pad3 = 0, __pad4 = 0, __cur_writer = 0, __shared = 0}}\n`);
  assert.ok(rw.notes.some((n) => /rwlock:0x1234 has __cur_writer = 0, held for reading by 1 thread/.test(n)));
});
