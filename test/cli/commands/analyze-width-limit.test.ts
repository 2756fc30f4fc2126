/**
 * The text report on big dumps and narrow terminals (issue 15), through the real CLI: the width
 * follows COLUMNS (the terminal's own width when stdout is one), the Rules line wraps too; waiters
 * of one resource are one entry; the headline counts threads beyond a few; `--limit N` caps the
 * thread numbers listed per group while the JSON stays complete.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FIXTURES, FOUNDING } from '../../helpers/paths.js';
import { runWaitgraph } from '../../helpers/run-cli.js';

/** The two threads of a real capture (a mutex waiter, a future waiter) repeated `copies` times, renumbered. */
function repeatedDump(copies: number): string {
  const source = readFileSync(join(FIXTURES, 'live', 'cxx-future-under-lock.txt'), 'utf8');
  const [head = '', ...threads] = source.split(/^(?=Thread \d+ )/m);
  const out = [head];
  let n = 0;
  for (let copy = 0; copy < copies; copy++) {
    for (const block of threads) {
      n += 1;
      out.push(block.replace(/^Thread \d+ \(Thread 0x[0-9a-f]+ \(LWP \d+\)/, `Thread ${n} (Thread 0x${(0x7f0000000000 + n * 4096).toString(16)} (LWP ${100000 + n})`));
    }
  }
  return out.join('');
}

test('COLUMNS sets the text width: prose and the Rules line wrap to it; no COLUMNS is 100', () => {
  const narrow = runWaitgraph([FOUNDING], { env: { COLUMNS: '60' } });
  assert.equal(narrow.code, 1);
  const lines = narrow.stdout.split('\n');
  // The headline stays one line; a site (`at function at file:line`) is one unbreakable name.
  const wrapped = lines.slice(1).filter((line) => !/^\s+at \S/.test(line));
  for (const line of wrapped) assert.ok(line.length <= 60 || !line.trim().includes(' '), `wider than 60: ${line}`);
  assert.match(narrow.stdout, /^Rules: .*,\n {7}\S/m, 'the Rules line wraps with its own indent');
  const wide = runWaitgraph([FOUNDING], { env: { COLUMNS: '200' } });
  assert.match(wide.stdout, /^Rules: [^\n]*orc\.reenter-wait$/m, 'at 200 columns the Rules line is one line');
  assert.equal(runWaitgraph([FOUNDING], { env: { COLUMNS: 'wide' } }).stdout, runWaitgraph([FOUNDING]).stdout, 'a COLUMNS that is not a number is ignored');
});

test('a big dump: waiters of one lock are one entry, the headline counts, --limit caps the lists, JSON stays complete', () => {
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-big-'));
  try {
    const dump = join(dir, 'big.txt');
    const text = repeatedDump(300);
    writeFileSync(dump, text);
    const r = runWaitgraph([dump]);
    assert.equal(r.code, 1, r.stderr);
    const headline = r.stdout.split('\n')[0]!;
    assert.match(headline, /^Hang: .*300 threads \(1 group\) wait/);
    assert.ok(headline.length < 200, headline);
    // The waits of one lock are one entry in each section (the list wraps over lines): the hang
    // reasons, which differ only by naming their own thread as a possible holder ("the waiter
    // itself"), and the unresolved waits settled by one command.
    assert.equal(r.stdout.match(/^ {2}300 threads \(1, 3, 5, /gm)?.length, 2);
    assert.match(r.stdout, /any of 599 other threads could hold it, or the waiter itself/);
    assert.equal(r.stdout.match(/599\) each waits for the mutex config_lock \(mutex:/g)?.length, 1);
    assert.ok(r.stdout.length < text.length * 2, 'the report is at most twice the dump');

    const limited = runWaitgraph(['--limit', '3', dump]);
    assert.match(limited.stdout, /300 threads \(1, 3, 5, … and 297 more\) each waits for the mutex config_lock \(mutex:/);
    assert.match(limited.stdout, /300 threads wait for a std::future: 2, 4, 6, … and 297 more/);
    const json = JSON.parse(runWaitgraph(['--limit', '3', '-f', 'json', dump]).stdout) as { hung: number[] };
    assert.equal(json.hung.length, 300, 'JSON lists every thread whatever --limit says');
    const bad = runWaitgraph(['--limit', '0', dump]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^waitgraph: --limit takes a number of threads \(1 or more\), not "0"\n$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
