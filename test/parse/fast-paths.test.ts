/**
 * The parser's shortcuts must not change its answer: FrameRun tokens (runs of frame lines handed
 * to the grammar as one token), the `indexOf` split of plain argument lists and the one-match
 * read of the usual thread header. Each is compared with the general path it stands in for, on every
 * fixture, on the shared corpus when present, and on generated frame lines.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { DumpParser } from '../../src/parse/index.js';
import { scanFrameBody, splitArgs } from '../../src/parse/frame-body.js';
import { parseThreadHeader } from '../../src/parse/thread-header.js';
import { HAS_SHARED_CORPUS, SHARED_CORPUS } from '../helpers/paths.js';
import { FOUNDING, goldenText, shapeFixtures } from './fixtures.js';

function parse(text: string, frameRuns: boolean, chunk = text.length || 1): string {
  const parser = new DumpParser({ frameRuns });
  for (let i = 0; i < text.length; i += chunk) parser.push(text.slice(i, i + chunk));
  return goldenText(parser.end());
}

function assertRunsChangeNothing(text: string, what: string): void {
  assert.equal(parse(text, true), parse(text, false), `${what}: FrameRun tokens changed the Dump`);
}

test('fast paths: FrameRun tokens give the same Dump on every fixture', () => {
  for (const { name, txt } of shapeFixtures()) assertRunsChangeNothing(readFileSync(txt, 'utf8'), name);
  assertRunsChangeNothing(readFileSync(FOUNDING, 'utf8'), 'founding report');
});

test('fast paths: FrameRun tokens give the same Dump at run edges (cap, level drops, locals, elisions, record seams)', () => {
  const frame = (level: number) => `#${level}  0x0000000000401136 in f${level} (x=${level}) at a.c:${level + 1}\n`;
  const long = Array.from({ length: 600 }, (_, i) => frame(i)).join(''); // longer than a run and a record
  const text = [
    'Thread 2 (Thread 0x7f (LWP 2)):\n',
    long,
    frame(3), // a level drop: a plain `bt` starts
    frame(4),
    frame(5),
    '        i = 0\n', // `bt full` local of frame #5, the last of a run
    'No locals.\n',
    frame(6),
    '...\n',
    frame(40),
    frame(41),
    '(More stack frames follow...)\n',
    frame(0),
    frame(0), // same level twice: two backtraces
    frame(1),
    '\n',
    'Thread 1 (LWP 1):\n',
    frame(0),
    frame(2),
  ].join('');
  assertRunsChangeNothing(text, 'run edges');
  assert.equal(parse(text, true, 7), parse(text, false), 'chunked with runs');
  const big = Array.from({ length: 5000 }, (_, i) => frame(i)).join(''); // record seams every 2,048 lines
  assertRunsChangeNothing(big, 'record seams');
});

test('fast paths: FrameRun tokens give the same Dump on the shared corpus', { skip: HAS_SHARED_CORPUS ? false : `no ${SHARED_CORPUS}` }, () => {
  for (const file of readdirSync(SHARED_CORPUS).filter((f) => f.endsWith('.txt'))) {
    assertRunsChangeNothing(readFileSync(join(SHARED_CORPUS, file), 'utf8'), file);
  }
});

const pieces = [
  'f', 'std::vector<int>::push_back', 'operator()', '(anonymous namespace)::run', 'g [clone .cold]', '??', ' ', ' (', '(', ')', ', ',
  'x=1', 'y=y@entry=2', 'z@entry=3', 'this=0x5555', '<optimized out>', '"a, b=c"', "'('", '{a = 1}', '[0]', '...', '@entry', '=',
  ' at ', '/src/a.c:12', 'C:\\x\\y.c:3', ' from ', '/lib/libc.so.6', '0x00007f3c2e891e9b in ', '0x00007F3C2E891E9B in ', '0x1 [PAC] in ',
];
const frameBody = fc.array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 4 })), { maxLength: 14 }).map((p) => p.join(''));

test('fast paths: a plain argument list is plain, and its indexOf split agrees with the general split', () => {
  fc.assert(
    fc.property(frameBody, (body) => {
      const holder = { argsText: null as string | null, argsPlain: false };
      scanFrameBody(`#1  ${body}`, 4, holder);
      if (holder.argsText === null) return;
      if (holder.argsPlain) assert.doesNotMatch(holder.argsText, /["'(){}[\]]/);
      assert.deepEqual(splitArgs(holder.argsText, holder.argsPlain), splitArgs(holder.argsText, false));
    }),
    { numRuns: 3000, seed: 20261130 },
  );
  // The common shapes themselves, so the plain split is known to be taken.
  for (const line of [
    '#0  __futex_abstimed_wait_common64 (private=0, cancel=true, abstime=0x0, op=393, expected=0, futex_word=0x55d0c92cbc10) at ./nptl/futex-internal.c:57',
    '#1  0x00007f3c2e891e9b in __GI___futex_abstimed_wait_cancelable64 (futex_word=futex_word@entry=0x55d0c92cbc10, expected=expected@entry=0) at ./nptl/futex-internal.c:139',
    '#8  0x000055d0c6aef402 in std::vector<int>::push_back (this=0x55d0c915cf20, x=<optimized out>) at /src/a.cpp:1659',
    '#10 0x00007f3c2d03ad74 in uv__io_poll () from /usr/lib/x86_64-linux-gnu/libuv.so.1',
  ]) {
    const holder = { argsText: null as string | null, argsPlain: false };
    scanFrameBody(line, line.indexOf(' ') + line.slice(line.indexOf(' ')).search(/\S/), holder);
    assert.equal(holder.argsPlain, true, `plain: ${line}`);
    assert.deepEqual(splitArgs(holder.argsText!, true), splitArgs(holder.argsText!, false), line);
  }
  for (const line of ['#2  f (s=0x1 "a, b=c", v={x = 1}) at a.c:3', '#2  f (s=0x1 "a, b=c") at a.c:3', "#2  f (c=40 '(') at a.c:3", '#2  f (v={x = 1, y = 2})']) {
    const holder = { argsText: null as string | null, argsPlain: false };
    scanFrameBody(line, 4, holder);
    assert.equal(holder.argsPlain, false, line);
    assert.deepEqual(splitArgs(holder.argsText!, holder.argsPlain), splitArgs(holder.argsText!, false), line);
  }
});

const headerPieces = ['Thread ', '12', '2.4', ' (', 'Thread ', '0x7f28a4b2f640', '0x7F28', ' (LWP ', '13999', ')', ' "', 'timer-1', '"', '"):', ' (Exiting)', '):', ':', ' ', 'LWP 5', 'process 7'];
const headerLine = fc.array(fc.oneof(fc.constantFrom(...headerPieces), fc.string({ maxLength: 3 })), { maxLength: 14 }).map((p) => p.join(''));

test('fast paths: the one-match thread header read agrees with the general one', () => {
  fc.assert(
    fc.property(headerLine, (line) => {
      assert.deepEqual(parseThreadHeader(line), parseThreadHeader(line, false));
    }),
    { numRuns: 3000, seed: 11 },
  );
  for (const line of [
    'Thread 10000 (Thread 0x7f28a4b2f640 (LWP 13999) "timer-10000"):',
    'Thread 3 (Thread 0x7f28a4b2f640 (LWP 13999)):',
    'Thread 4 (Thread 0x7f12a4dff640 (LWP 4242) ""):',
  ]) {
    assert.deepEqual(parseThreadHeader(line), parseThreadHeader(line, false), line);
    assert.equal(JSON.stringify(parseThreadHeader(line)), JSON.stringify(parseThreadHeader(line, false)), `key order: ${line}`);
  }
});

test('fast paths: the per-chunk clean check sees quoted-printable escapes wherever a chunk ends', () => {
  const qpPieces = ['=3D', '=C3=B6', '=E2=80=A6', '=', '3D', 'C3', '=C', '=C3=', '#0  f (x=3D1) at a.c:1', '#1  g (s=3D"=C3=A9") at b.c:2', '\n', 'x', ' ', '=\n'];
  const qpText = fc.array(fc.constantFrom(...qpPieces), { maxLength: 30 }).map((p) => p.join(''));
  fc.assert(
    fc.property(qpText, fc.integer({ min: 1, max: 9 }), (text, size) => {
      assert.equal(parse(text, true, size), parse(text, true), `chunks of ${size}`);
    }),
    { numRuns: 1500, seed: 3 },
  );
});
