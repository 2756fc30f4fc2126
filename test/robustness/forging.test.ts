/**
 * Forging: text a stranger controls — a thread name, a string argument, a symbol — must not create
 * a thread, a frame, an LWP or a lock owner that is not in the dump. Each case is a dump whose
 * hostile part is shaped like gdb's own output; the parsed model and the analysis must show only
 * what gdb printed.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { parseDump } from '../../src/parse/index.js';
import { analyzeText } from '../../src/analyze/index.js';

interface Expect {
  /** gdb thread ids of the backtraces, in order. */
  threads: number[];
  /** Function names of each backtrace's frames. */
  functions: string[][];
  lwps?: Array<number | null>;
  names?: Array<string | null>;
  ownerHints?: number;
}

function check(label: string, text: string, expected: Expect): void {
  const dump = parseDump(text);
  assert.deepEqual(dump.backtraces.map((b) => b.thread?.id ?? null), expected.threads, `${label}: threads`);
  assert.deepEqual(dump.backtraces.map((b) => b.frames.map((f) => f.function)), expected.functions, `${label}: frames`);
  if (expected.lwps) assert.deepEqual(dump.backtraces.map((b) => b.thread?.lwp ?? null), expected.lwps, `${label}: LWPs`);
  if (expected.names) assert.deepEqual(dump.backtraces.map((b) => b.thread?.name ?? null), expected.names, `${label}: names`);
  assert.equal(dump.ownerHints.length, expected.ownerHints ?? 0, `${label}: owner hints`);
  const analysis = analyzeText(text);
  assert.deepEqual(analysis.threads.map((t) => t.id).sort((a, b) => (a ?? 0) - (b ?? 0)), [...expected.threads].sort((a, b) => a - b), `${label}: analysed threads`);
}

test('a thread name holding `"):` and a second header cannot end the header early or add a thread', () => {
  check('name with "):', 'Thread 2 (Thread 0x7f00 (LWP 6) "evil\\"): Thread 3 (LWP 7)"):\n#0  0x1 in f () at a.c:1\n', {
    threads: [2],
    functions: [['f']],
    lwps: [6],
  });
});

test('a thread name holding `(LWP 1234)` does not change the thread\'s LWP', () => {
  check('name with LWP', 'Thread 2 (Thread 0x7f00 (LWP 6) "x (LWP 1234)"):\n#0  0x1 in f () at a.c:1\n', { threads: [2], functions: [['f']], lwps: [6] });
  check('name with process', 'Thread 2 (Thread 0x7f00 (LWP 6) "process 99"):\n#0  0x1 in f () at a.c:1\n', { threads: [2], functions: [['f']], lwps: [6] });
});

test('a thread name with quotes and parentheses is read as the name', () => {
  check('parens', 'Thread 4 (Thread 0x7f00 (LWP 8) "a) (b"):\n#0  0x1 in f () at a.c:1\n', { threads: [4], functions: [['f']], lwps: [8] });
});

test('a string argument holding a whole frame makes no frame', () => {
  check('frame in a string', 'Thread 1 (LWP 7):\n#0  0x1 in log_line (s=0x2 "#1  0x3 in pthread_mutex_lock (mutex=0x9) at m.c:1") at l.c:3\n#1  0x4 in main () at m.c:9\n', {
    threads: [1],
    functions: [['log_line', 'main']],
  });
  check('frame after = in a string', 'Thread 1 (LWP 7):\n#0  0x1 in log_line (s=0x2 "x=#1  0x3 in fake (y=1) at f.c:1") at l.c:3\n', { threads: [1], functions: [['log_line']] });
});

test('a string argument holding a thread header makes no thread', () => {
  check('header in a string', 'Thread 1 (LWP 7):\n#0  0x1 in log_line (s=0x2 "Thread 9 (Thread 0x1 (LWP 9) \\"x\\"):") at l.c:3\n#1  0x4 in main () at m.c:9\n', {
    threads: [1],
    functions: [['log_line', 'main']],
  });
});

test('a symbol or argument holding an owner print makes no owner hint', () => {
  check('owner in a string', 'Thread 1 (LWP 7):\n#0  0x1 in f (s=0x2 "$1 = {__data = {__lock = 2, __owner = 7}}") at l.c:3\n', { threads: [1], functions: [['f']], ownerHints: 0 });
  check('owner in a symbol', 'Thread 1 (LWP 7):\n#0  0x1 in f (m=0x5555 <__owner = 7>) at l.c:3\n', { threads: [1], functions: [['f']], ownerHints: 0 });
});

test('a function name that looks like a frame stays one frame', () => {
  check('frame-like function', 'Thread 1 (LWP 7):\n#0  0x1 in operator() (this=0x2) at a.cc:1\n#1  0x2 in g<#2 0x3 in fake ()> (x=1) at b.cc:2\n', {
    threads: [1],
    functions: [['operator()', 'g<#2 0x3 in fake ()>']],
  });
});
