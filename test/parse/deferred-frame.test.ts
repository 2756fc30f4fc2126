/**
 * keepFrames false: the frames handed to onBacktrace split their argument lists and read their
 * ` at …` / ` from …` tails only when read (DeferredFrame). They must read, and serialise, exactly
 * as the plain frames of a parse that keeps its frames — over every shape fixture and the founding dump (pc flags, wrapped frames,
 * `bt full` locals, LLDB frames, `info threads` rows).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import type { Backtrace } from '../../src/model/dump.js';
import { DeferredFrame } from '../../src/parse/frame-body.js';
import { DumpParser, parseDump } from '../../src/parse/index.js';
import { FOUNDING, shapeFixtures } from './fixtures.js';

const texts = [{ name: 'founding', text: readFileSync(FOUNDING, 'utf8') }, ...shapeFixtures().map((f) => ({ name: f.name, text: readFileSync(f.txt, 'utf8') }))];

/** What onBacktrace sees with keepFrames false: each backtrace's JSON, and its frames' fields read one by one. */
function dropping(text: string, order: number[]): { json: string[]; read: unknown[]; deferred: number } {
  const json: string[] = [];
  const read: unknown[] = [];
  let deferred = 0;
  const parser = new DumpParser({
    keepFrames: false,
    onBacktrace: (bt: Backtrace) => {
      // Serialised before anything read the arguments: toJSON must split them itself. Held
      // partial views (`info threads` rows) arrive late: put every backtrace at its Dump index.
      json[order.indexOf(bt.startLine)] = JSON.stringify(bt);
      for (const f of bt.frames) {
        if (f instanceof DeferredFrame) deferred++;
        read.push([f.level, f.pc, f.function, f.args, f.file, f.line, f.library, f.inlined, f.kind, f.incomplete, f.sourceLine, f.pcFlags, f.continuationLines, f.locals]);
      }
    },
  });
  parser.push(text);
  parser.end();
  return { json, read, deferred };
}

test('deferred frame: frames handed out with keepFrames false read and serialise as the plain frames', () => {
  let deferred = 0;
  for (const { name, text } of texts) {
    const kept = parseDump(text);
    const lean = dropping(
      text,
      kept.backtraces.map((bt) => bt.startLine),
    );
    deferred += lean.deferred;
    assert.deepEqual(lean.json, kept.backtraces.map((bt) => JSON.stringify(bt)), name);
    lean.read.sort((a, b) => (a as number[])[10]! - (b as number[])[10]!);
    const read = kept.backtraces.flatMap((bt) =>
      bt.frames.map((f) => [f.level, f.pc, f.function, f.args, f.file, f.line, f.library, f.inlined, f.kind, f.incomplete, f.sourceLine, f.pcFlags, f.continuationLines, f.locals]),
    );
    read.sort((a, b) => (a[10] as number) - (b[10] as number));
    assert.deepEqual(lean.read, read, name);
  }
  // The comparison above is only worth something if the deferred path ran.
  assert.ok(deferred > 100, `only ${deferred} deferred frames`);
});

test('deferred frame: arguments split once, on first read; the tail read on first use; writes replace them', () => {
  const seen: Backtrace[] = [];
  const parser = new DumpParser({ keepFrames: false, onBacktrace: (bt) => seen.push({ ...bt, frames: [...bt.frames] }) });
  parser.push('Thread 1 (Thread 0x7f (LWP 9)):\n#0  0x00007f3c2e891e9b in pthread_mutex_lock (mutex=0x55d0 <m>, n=n@entry=2) at m.c:9\n');
  parser.end();
  const frame = seen[0]!.frames[0]!;
  assert.ok(frame instanceof DeferredFrame);
  const args = frame.args;
  assert.deepEqual(args, [
    { name: 'mutex', value: '0x55d0 <m>' },
    { name: 'n', value: '2', entry: 'equal' },
  ]);
  assert.equal(frame.args, args, 'the second read returns the same list');
  frame.args = [];
  assert.deepEqual(frame.args, []);
  assert.deepEqual([frame.file, frame.line, frame.library], ['m.c', 9, null]);
  frame.library = 'libx.so';
  assert.deepEqual([frame.file, frame.line, frame.library], ['m.c', 9, 'libx.so']);
  frame.library = null;
  // A write before any read keeps the rest of the tail.
  const unread = new DeferredFrame();
  unread.deferTail(' at m.c:9', 0);
  unread.file = 'x.c';
  assert.deepEqual([unread.file, unread.line, unread.library], ['x.c', 9, null]);
  assert.equal(JSON.stringify(frame), JSON.stringify({ ...parseDump('#0  0x00007f3c2e891e9b in pthread_mutex_lock (mutex=0x55d0 <m>, n=n@entry=2) at m.c:9\n').backtraces[0]!.frames[0]!, args: [], sourceLine: 2 }));
});
