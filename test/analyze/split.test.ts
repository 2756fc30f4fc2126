/**
 * A split input (analyze/parallel.ts: the text after a seam parsed and summarised by a worker,
 * appended to the main thread's part) must give exactly the analysis one pass gives, whatever the
 * seam. Here the worker's part runs in-process and goes through structuredClone, as postMessage
 * sends it; the seam is forced at every line of every fixture that starts with `Thread N (`, and
 * at other lines (not seams: the main thread then parses the rest itself). Inputs built to make
 * the seam dirty — held `info threads` rows, an echoed frame waiting for its backtrace, a limit
 * note in the second part — must take the fallback and still agree.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { analyzeText } from '../../src/analyze.js';
import { analyzeSplit, type SplitOutcome } from '../../src/analyze/parallel.js';
import { analyzePart } from '../../src/analyze/split-part.js';
import { isRecordSeamLine } from '../../src/parse/seam.js';
import { renderJson } from '../../src/report/json.js';
import { loadBuiltinRules } from '../../src/rules/builtin.js';
import { FIXTURES } from '../helpers/paths.js';
import { renderDump } from '../bench/generate.js';

const rules = loadBuiltinRules();

async function* chunksOf(text: string, size = 4096): AsyncGenerator<string> {
  for (let i = 0; i < text.length; i += size) yield text.slice(i, i + size);
}

/** The text cut before physical line `index` (0-based), both analyses, and which way the split went. */
async function splitAt(text: string, index: number): Promise<{ outcome: SplitOutcome; split: string; whole: string; json: [string, string] }> {
  const lines = text.split('\n');
  const head = lines.slice(0, index).join('\n') + '\n';
  const tail = lines.slice(index).join('\n');
  let outcome: SplitOutcome | null = null;
  let released = 0;
  const analysis = await analyzeSplit(
    {
      head: chunksOf(head),
      seamLine: lines[index] as string,
      // What postMessage delivers: a structured clone.
      part: analyzePart(chunksOf(tail), rules).then((part) => structuredClone(part)),
      tail: () => chunksOf(tail, 1000),
      release: () => void released++,
    },
    { rules },
    (how) => (outcome = how),
  );
  assert.equal(released, 1, 'the worker is released once');
  const whole = analyzeText(text, { rules, keepFrames: false });
  return { outcome: outcome as unknown as SplitOutcome, split: JSON.stringify(analysis), whole: JSON.stringify(whole), json: [renderJson(analysis), renderJson(whole)] };
}

async function assertSame(text: string, index: number, name: string): Promise<SplitOutcome> {
  const r = await splitAt(text, index);
  assert.equal(r.split, r.whole, `${name}, split before line ${index + 1} (${r.outcome}): the analysis (dump included) is the one-pass analysis`);
  assert.equal(r.json[0], r.json[1], `${name}, split before line ${index + 1}: the JSON report`);
  return r.outcome;
}

function dumpFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...dumpFiles(path));
    else if (name.endsWith('.txt')) out.push(path);
  }
  return out;
}

test('a split at every seam of every fixture gives the one-pass analysis', async () => {
  const outcomes = { appended: 0, 'parsed-here': 0 };
  let seams = 0;
  for (const file of dumpFiles(FIXTURES)) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    for (let i = 1; i < lines.length; i++) {
      if (!isRecordSeamLine(lines[i] as string)) continue;
      seams++;
      outcomes[await assertSame(text, i, relative(FIXTURES, file))]++;
    }
  }
  assert.ok(seams > 200, `fixtures hold seams (${seams})`);
  // Most seams are clean; some sit after held rows or echoes.
  assert.ok(outcomes.appended > seams / 2, `most seams append the worker's part (${JSON.stringify(outcomes)})`);
});

test('a split at a line that is no seam falls back to one parse, same analysis', async () => {
  for (const file of dumpFiles(FIXTURES)) {
    const text = readFileSync(file, 'utf8');
    const lines = text.split('\n');
    // A handful of lines spread over the file (frames, prose, blank lines).
    for (const i of [1, Math.floor(lines.length / 3), Math.floor(lines.length / 2), lines.length - 1]) {
      if (i < 1 || i >= lines.length || isRecordSeamLine(lines[i] as string)) continue;
      assert.equal(await assertSame(text, i, relative(FIXTURES, file)), 'parsed-here');
    }
  }
});

const header = (n: number, lwp = 1000 + n): string => `Thread ${n} (Thread 0x7f00000${n.toString(16).padStart(5, '0')} (LWP ${lwp}) "w${n}"):`;
const stack = (fn: string): string[] => [
  `#0  0x00007ffff7e3e3b7 in ${fn} () from /lib/x86_64-linux-gnu/libc.so.6`,
  '#1  0x00007ffff7e3e40b in pthread_cond_wait@@GLIBC_2.3.2 (cond=0x5555555580a0 <cv>, mutex=0x555555558060 <m>) at ./nptl/pthread_cond_wait.c:627',
  '#2  0x0000555555555239 in worker (arg=0x0) at app.c:12',
  '#3  0x00007ffff7e3fac3 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442',
];
const thread = (n: number, fn = '__futex_abstimed_wait_common64'): string[] => [header(n), ...stack(fn), ''];

/** Lines of `text` (0-based) that are seams. */
function seamsOf(text: string): number[] {
  return text
    .split('\n')
    .map((line, i) => (i > 0 && isRecordSeamLine(line) ? i : -1))
    .filter((i) => i > 0);
}

async function outcomesAtEverySeam(text: string, name: string): Promise<SplitOutcome[]> {
  const out: SplitOutcome[] = [];
  for (const i of seamsOf(text)) out.push(await assertSame(text, i, name));
  return out;
}

test('a thread seen on both sides of the seam is one thread, as in one pass ("appears again")', async () => {
  const text = [...thread(1), ...thread(2), ...thread(3), ...thread(2, 'nanosleep'), ...thread(4)].join('\n');
  const outcomes = await outcomesAtEverySeam(text, 'repeated thread');
  assert.ok(outcomes.every((o) => o === 'appended'), outcomes.join());
  assert.match((await splitAt(text, seamsOf(text)[2] as number)).json[0], /Thread 2 appears again/);
});

test('a headerless bt after the seam merges into a thread before it, as in one pass', async () => {
  const text = [...thread(1, 'nanosleep'), ...thread(2), ...thread(3), '(gdb) bt', ...stack('nanosleep'), ''].join('\n');
  const outcomes = await outcomesAtEverySeam(text, 'headerless bt');
  assert.ok(outcomes.every((o) => o === 'appended'), outcomes.join());
});

test('`info threads` rows before or after the seam: the main thread parses the rest itself', async () => {
  const rows = ['(gdb) info threads', '  Id   Target Id                                   Frame ', '* 1    Thread 0x7f0000000001 (LWP 1001) "w1" 0x00007ffff7e3e3b7 in nanosleep () from /lib/x86_64-linux-gnu/libc.so.6', '  9    Thread 0x7f0000000009 (LWP 1009) "w9" 0x00007ffff7e3e3b7 in poll () from /lib/x86_64-linux-gnu/libc.so.6', ''];
  const before = [...rows, ...thread(1), ...thread(2), ...thread(3)].join('\n');
  assert.ok((await outcomesAtEverySeam(before, 'rows before the seam')).every((o) => o === 'parsed-here'));
  const after = [...thread(1), ...thread(2), ...rows, ...thread(3)].join('\n');
  const outcomes = await outcomesAtEverySeam(after, 'rows after the seam');
  // Seams before the rows leave them to the worker's part; the seam after them leaves them held here.
  assert.ok(outcomes.every((o) => o === 'parsed-here'), outcomes.join());
});

test('a frame gdb echoed on `thread N`, held for its backtrace across the seam: parsed here', async () => {
  const echo = ['(gdb) thread 3', '[Switching to thread 3 (Thread 0x7f0000000003 (LWP 1003))]', '#0  0x00007ffff7e3e3b7 in __futex_abstimed_wait_common64 () from /lib/x86_64-linux-gnu/libc.so.6', ''];
  const text = [...thread(1), ...echo, ...thread(2), ...thread(3), ...thread(4)].join('\n');
  const outcomes = await outcomesAtEverySeam(text, 'echo');
  // The seams after the echo and before thread 3's backtrace hold it; the others are clean.
  assert.deepEqual(outcomes, ['parsed-here', 'parsed-here', 'appended'], outcomes.join());
});

test('a pager quit, a pager-cut line and CRLF line ends before the seam: same analysis', async () => {
  const quit = [...thread(1).slice(0, 3), '--Type <RET> for more, q to quit, c to continue without paging--q', 'Quit', ''];
  const cut = [header(5), '#0  0x00007ffff7e3e3b7 in __futex_abstimed_wait_common64 (private=0, cancel=true, --Type <RET> for more, q to quit, c to continue without paging--', 'abstime=0x0) at ./nptl/futex-internal.c:57', ''];
  const text = [...quit, ...thread(2), ...cut, ...thread(3), ...thread(4)].join('\n');
  await outcomesAtEverySeam(text, 'pager');
  await outcomesAtEverySeam(text.replaceAll('\n', '\r\n'), 'pager, CRLF');
});

test('a limit note in the part after the seam (its sentence names a line): parsed here', async () => {
  const wrapped = [header(2), '#0  0x00007ffff7e3e3b7 in f (', ...Array.from({ length: 300 }, (_, i) => `    a${i}=0x1,`), ''];
  const text = [...thread(1), ...wrapped, ...thread(3)].join('\n');
  const outcomes = await outcomesAtEverySeam(text, 'cap after the seam');
  assert.equal(outcomes[0], 'parsed-here', 'the part holding the cap is not appended');
  // And a frame at its join limit just before the seam (the header line adds the note): parsed here.
  const atLimit = [header(2), '#0  0x00007ffff7e3e3b7 in f (', ...Array.from({ length: 256 }, (_, i) => `    a${i}=0x1,`), ...thread(3)].join('\n');
  assert.deepEqual(await outcomesAtEverySeam(atLimit, 'frame at its join limit'), ['parsed-here']);
});

test('a generated dump split near its middle appends the worker part and reports the same', async () => {
  const { text } = renderDump({ threads: 400, seed: 5 });
  const seams = seamsOf(text);
  for (const i of [seams[1], seams[Math.floor(seams.length / 2)], seams[seams.length - 1]]) {
    assert.equal(await assertSame(text, i as number, 'generated dump'), 'appended');
  }
});
