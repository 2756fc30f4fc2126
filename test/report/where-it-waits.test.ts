/**
 * "Where it waits" is the waiter's first frame outside lock and runtime libraries in every format
 * (issue 12 §4): `take_a_then_b at abba.c:17`, never the rule's frame inside glibc
 * (`___pthread_mutex_lock at ./nptl/pthread_mutex_lock.c:93`). Input: a real gdb 13 capture of
 * the ABBA program with both owners printed (fixtures/check/abba-with-owners.txt).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { join } from 'node:path';
import { FIXTURES } from '../helpers/paths.js';
import { runWaitgraph } from '../helpers/run-cli.js';

const DUMP = join(FIXTURES, 'check', 'abba-with-owners.txt');
const WHERE = ['take_a_then_b at abba.c:17', 'take_b_then_a at abba.c:28'];
const LOCK_FRAME = /pthread_mutex_lock at|lll_lock_wait at|futex_wait at/;

function report(format: string): string {
  const r = runWaitgraph([DUMP, '--format', format]);
  assert.equal(r.code, 1, r.stderr);
  return r.stdout;
}

test('text: "Where each thread waits" names the program frame', () => {
  const out = report('text');
  const section = out.slice(out.indexOf('Where each thread waits:'), out.indexOf('Why:'));
  for (const where of WHERE) assert.ok(section.includes(`at ${where}`), where);
  assert.doesNotMatch(section, LOCK_FRAME);
});

test('Markdown and HTML: the "where it waits" column names the program frame', () => {
  const rows = report('markdown').split('\n').filter((l) => /^\| \*\*thread \d/.test(l));
  assert.equal(rows.length, 2);
  rows.forEach((row, i) => {
    assert.ok(row.trimEnd().endsWith(`| \`${WHERE[i]}\` |`), row);
    assert.doesNotMatch(row, LOCK_FRAME);
  });
  const cells = [...report('html').matchAll(/<tr class="cycle">.*?<\/tr>/g)].map((m) => m[0]);
  assert.equal(cells.length, 2);
  cells.forEach((row, i) => {
    assert.ok(row.endsWith(`<td><code>${WHERE[i]}</code></td></tr>`), row);
    assert.doesNotMatch(row, LOCK_FRAME);
  });
});

test('JSON and SARIF: the acquire site and the "waits here" location are the program frame', () => {
  const json = JSON.parse(report('json')) as { threads: Array<{ id: number; acquireSite: { function: string; file: string; line: number } | null }> };
  const sites = json.threads.filter((t) => t.id === 2 || t.id === 3).map((t) => `${t.acquireSite?.function} at ${t.acquireSite?.file}:${t.acquireSite?.line}`);
  assert.deepEqual(sites, WHERE);
  const sarif = report('sarif');
  for (const where of WHERE) assert.match(sarif, new RegExp(`waits here: ${where.replace(/\./g, '\\.')}`));
  assert.doesNotMatch(sarif, /waits here: \S*(pthread_mutex_lock|lll_lock_wait|futex_wait)/);
});
