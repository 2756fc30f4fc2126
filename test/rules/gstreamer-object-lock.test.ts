/**
 * gstreamer.object-lock.wait where GStreamer and GLib have debug info. The rule's fixture comes
 * from a real capture without debug info (no captured arguments), so the shapes that name the
 * object are checked here, on frames written the way gdb prints them with debug info: the GLib
 * lines as in ../shared/corpus/003 (g_mutex_lock_slowpath (mutex=mutex@entry=…) at
 * ../glib/gthread-posix.c:1493), the GStreamer lines as in WebKit/WebKit PR 70222
 * (gst_pad_pause_task (pad=pad@entry=0x…) at ../subprojects/gstreamer/gst/gstpad.c:6428).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { analyzeText } from '../../src/analyze/index.js';
import type { Analysis } from '../../src/model/analysis.js';

const PAD = '0x55d0c0de1000';

function thread(id: number, name: string, frames: string[]): string {
  const body = frames.map((line, level) => `#${level}${level < 10 ? '  ' : ' '}${line}`).join('\n');
  return `Thread ${id} (Thread 0x7f00000${id}0700 (LWP ${1000 + id}) "${name}"):\n${body}\n`;
}

const SYSCALL = 'syscall () at ../sysdeps/unix/sysv/linux/x86_64/syscall.S:38';
const slowpath = (mutex: string): string => `0x00007f00000015dc in g_mutex_lock_slowpath (mutex=mutex@entry=${mutex}) at ../glib/gthread-posix.c:1493`;
const lock = (mutex: string): string => `0x00007f0000002062 in g_mutex_lock (mutex=mutex@entry=${mutex}) at ../glib/gthread-posix.c:1517`;
const caller = (fn: string): string => `0x000055d0c0000454 in ${fn} (u=0x0) at app.c:10`;

function waitsOf(analysis: Analysis, name: string): { rules: string[]; state: string; waits: string[] } {
  const t = analysis.threads.find((x) => x.name === name);
  assert.ok(t, `thread ${name} is in the dump`);
  return { rules: t.rules, state: t.state, waits: t.waitsFor };
}

const dump = [
  // The pad's lock, through both GLib frames.
  thread(2, 'peer', [SYSCALL, slowpath('0x55d0c0de1018'), lock('0x55d0c0de1018'), `0x00007f0000003bfb in gst_pad_get_peer (pad=pad@entry=${PAD} [GstPad|src]) at ../subprojects/gstreamer/gst/gstpad.c:2837`, caller('peer_waiter')]),
  // The same pad's lock, g_mutex_lock's frame gone (its jump to the slow path).
  thread(3, 'linked', [SYSCALL, slowpath('0x55d0c0de1018'), `0x00007f0000003c3b in gst_pad_is_linked (pad=${PAD}) at ../subprojects/gstreamer/gst/gstpad.c:2262`, caller('link_checker')]),
  // Two objects' locks, one after the other: the frame cannot say which.
  thread(4, 'add-pad', [SYSCALL, slowpath('0x55d0c0de2018'), lock('0x55d0c0de2018'), '0x00007f00000049dc in gst_element_add_pad (element=0x55d0c0de2000, pad=0x55d0c0de3000) at ../subprojects/gstreamer/gst/gstelement.c:771', caller('add_pad_self')]),
  // The argument optimised out: the caller's object is not taken for it.
  thread(5, 'set-parent', [SYSCALL, '0x00007f000000599c in  () at /lib/x86_64-linux-gnu/libglib-2.0.so.0', '0x00007f0000005a0b in gst_object_set_parent (object=<optimized out>, parent=0x55d0c0de5000) at ../subprojects/gstreamer/gst/gstobject.c:716', '0x00007f0000005b0b in gst_object_add_control_binding (object=0x55d0c0de4000, binding=0x55d0c0de6000) at ../subprojects/gstreamer/gst/gstobject.c:1308', caller('bind')]),
  // A GMutex of the program's own: still glib.mutex.lock's.
  thread(6, 'own-gmutex', [SYSCALL, slowpath('0x55d0c0007060 <table_lock>'), lock('0x55d0c0007060 <table_lock>'), caller('table_update')]),
].join('\n');

test('a GstObject function with its argument: the wait is keyed by the object, and glib.mutex.lock gives way', () => {
  const analysis = analyzeText(dump);
  for (const name of ['peer', 'linked']) {
    const t = waitsOf(analysis, name);
    assert.ok(t.rules.includes('gstreamer.object-lock.wait'), `${name}: ${t.rules.join(', ')}`);
    assert.ok(!t.rules.includes('glib.mutex.lock'), `${name}: one wait, not a second one on the bare GMutex`);
    assert.equal(t.state, 'blocked');
    // Both waiters of one pad meet in one node.
    assert.deepEqual(t.waits, [`gst-object-lock:${PAD}`], name);
  }
});

test('a function that takes two objects\' locks, or an optimised-out argument, leaves the object unknown', () => {
  const analysis = analyzeText(dump);
  assert.deepEqual(waitsOf(analysis, 'add-pad').waits, ['gst-object-lock:unknown@4'], 'not the element (the pad lock comes first)');
  assert.deepEqual(waitsOf(analysis, 'set-parent').waits, ['gst-object-lock:unknown@5'], 'not the caller\'s object');
});

test('a GMutex wait under the program\'s own function is not a GST_OBJECT_LOCK wait', () => {
  const t = waitsOf(analyzeText(dump), 'own-gmutex');
  assert.ok(!t.rules.includes('gstreamer.object-lock.wait'), t.rules.join(', '));
  assert.deepEqual(t.waits, ['gmutex:0x55d0c0007060']);
});
