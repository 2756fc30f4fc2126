/**
 * A thread no rule explains, waiting in a function gdb could not name. gdb prints it as `?? ()`,
 * and GDB 13 under GLib's frame filter as `in  ()` (an empty name, then `at LIB`): the thread list
 * read "wait in  (no rule explains this wait)", a gap where the name should be.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText } from '../../src/analyze/index.js';
import { FIXTURES } from '../helpers/paths.js';
import { Chalk } from 'chalk';
import { renderText } from '../../src/report/index.js';

// GDB 13.1, GLib 2.74 without debug info, GLib's frame filter loaded (real capture on Debian 12;
// the GStreamer frame between GLib and the program is left out). A nameless libglib frame over
// syscall is GMutex's slow path (glib.mutex.lock-nodebug), so the frame is moved to a library no
// rule knows: then no rule explains the wait.
const GLIB_FRAME = 'in  () at /lib/x86_64-linux-gnu/libglib-2.0.so.0';
const FILTERED = `Thread 4 (Thread 0x7f3e180936c0 (LWP 24563) "waiter"):
#0  syscall () at ../sysdeps/unix/sysv/linux/x86_64/syscall.S:38
#1  0x00007f3e195f599c in  () at /usr/lib/x86_64-linux-gnu/libwhatever.so.3
#3  0x000055e8fbac92f9 in waiter (u=0x0) at gz.c:17
#4  0x00007f3e193f41f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442
#5  0x00007f3e194748ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81
`;

test('a wait in an unnamed frame (`in  ()`) is named as such, not as an empty gap', () => {
  const a = analyzeText(FILTERED);
  const t = a.threads.find((x) => x.id === 4);
  assert.equal(t?.acquireSite?.function, '', 'the model keeps what gdb printed');
  assert.equal(t?.stateText, 'waits in a function gdb could not name (no rule explains this wait)');
  const text = renderText(a, { chalk: new Chalk({ level: 0 }) });
  assert.doesNotMatch(text, /wait in {2}\(|waits in {2}\(/);
  assert.match(text, /thread 4: waits in a function gdb could not name \(no rule explains this wait\)/);
});

test('`?? ()` reads the same', () => {
  const a = analyzeText(FILTERED.replace('in  () at /usr/lib/x86_64-linux-gnu/libwhatever.so.3', 'in ?? () from /usr/lib/x86_64-linux-gnu/libwhatever.so.3'));
  assert.equal(a.threads.find((x) => x.id === 4)?.stateText, 'waits in a function gdb could not name (no rule explains this wait)');
});

test('the same nameless frame in libglib is a GMutex wait, and the thread waits at the program\'s line', () => {
  for (const frame of [GLIB_FRAME, 'in ?? () from /lib/x86_64-linux-gnu/libglib-2.0.so.0']) {
    const a = analyzeText(FILTERED.replace('in  () at /usr/lib/x86_64-linux-gnu/libwhatever.so.3', frame));
    const t = a.threads.find((x) => x.id === 4);
    assert.deepEqual(t?.rules, ['glib.mutex.lock-nodebug'], frame);
    assert.equal(t?.stateText, 'waits for a GMutex (address not shown)');
    const text = renderText(a, { chalk: new Chalk({ level: 0 }) });
    assert.match(text, /Thread 4 \(LWP 24563\) waits for a GMutex whose address gdb did not print/);
    assert.match(text, /\n {6}at waiter at gz\.c:17\n/, 'where it waits: the program, not the nameless frame');
  }
});

test('rules see a frame filter\'s unnamed frame (`in ??? ()`, GDB 14) as `??`: the libc syscall over ppoll is a wait, not running code', () => {
  // A published GTK paste (sfwbar issue 441) under GLib's frame filter.
  const a = analyzeText(readFileSync(join(FIXTURES, 'parse', 'shapes', 'frame-filter-library.txt'), 'utf8'));
  const t = a.threads.find((x) => x.id === 1);
  assert.equal(t?.state, 'io-wait');
  assert.equal(a.verdict, 'ok');
});
