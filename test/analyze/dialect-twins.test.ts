/**
 * Twin fixtures (fixtures/dialects/): the same stacks in Julia's own dump format, in LLDB's, and
 * as gdb prints them. The rules must fire on each exactly as on its gdb twin: the same states,
 * waits, holds and deadlocks, and the founding deadlock {7, 8, 9} as in the founding gdb text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText } from '../../src/analyze/index.js';
import type { Analysis } from '../../src/model/analysis.js';
import { FIXTURES, FOUNDING } from '../helpers/paths.js';

const DIR = join(FIXTURES, 'dialects');
const analyse = (name: string): Analysis => analyzeText(readFileSync(join(DIR, name), 'utf8'));

/**
 * What the rules concluded, per thread and per deadlock, without line numbers or frame levels: a
 * backtrace with no thread (`bt@LINE`) is named by its place among those (`bt#1`).
 */
function facts(a: Analysis): string[] {
  const headerless = a.threads.filter((t) => t.key.startsWith('bt@')).map((t) => t.key);
  const key = (k: string): string => (k.startsWith('bt@') ? `bt#${headerless.indexOf(k) + 1}` : k);
  const out: string[] = [];
  for (const t of a.threads) {
    out.push(`thread ${key(t.key)} state ${t.state} rules ${[...t.rules].sort().join(',')}`);
    for (const w of [...t.waitsFor].sort()) out.push(`thread ${key(t.key)} waits ${w.replace(/@bt@\d+$/, '@bt')}`);
    for (const h of [...t.holds].sort()) out.push(`thread ${key(t.key)} holds ${h}`);
  }
  for (const d of a.deadlocks) out.push(`deadlock ${d.threads.map(key).join(',')} ${d.title} ${d.signature} ${d.rules.join(',')}`);
  out.push(`verdict ${a.verdict}`);
  return out.sort();
}

const TWINS: Array<[string, string]> = [
  ['enzyme-deferred.julia.txt', 'enzyme-deferred.gdb.txt'],
  ['enzyme-deferred.lldb.txt', 'enzyme-deferred.gdb.txt'],
  ['orc-context-lock.julia.txt', 'orc-context-lock.gdb.txt'],
];

for (const [dialect, gdb] of TWINS) {
  test(`twins: ${dialect} gives the same facts as its gdb twin ${gdb}`, { skip: existsSync(join(DIR, dialect)) ? false : `${dialect} is not there yet` }, () => {
    const a = analyse(dialect);
    const b = analyse(gdb);
    // Not vacuous: the rules fired.
    assert.ok(a.threads.some((t) => t.rules.length > 0), `${dialect}: no rule fired`);
    // Parked Julia tasks are no threads of the gdb twin: compared apart.
    const threadsOnly = (lines: string[]) => lines.filter((l) => !/^thread \d+\.task-/.test(l));
    assert.deepEqual(threadsOnly(facts(a)), facts(b));
  });
}

test('twins: the Julia and LLDB fixtures of the founding threads give the founding deadlock {7, 8, 9}', () => {
  const founding = analyzeText(readFileSync(FOUNDING, 'utf8')).deadlocks;
  assert.equal(founding.length, 1);
  for (const name of ['enzyme-deferred.julia.txt', 'enzyme-deferred.lldb.txt']) {
    if (!existsSync(join(DIR, name))) continue;
    const a = analyse(name);
    assert.equal(a.verdict, 'deadlock', name);
    assert.deepEqual(a.deadlocks.map((d) => d.threads), [['7', '8', '9']], name);
    // The same kind of deadlock, by the same acquire sites: the signature is the founding one's.
    assert.equal(a.deadlocks[0]!.signature, founding[0]!.signature, name);
    assert.deepEqual(a.deadlocks[0]!.rules, founding[0]!.rules, name);
  }
});

test('twins: a parked Julia task is no thread and never running', () => {
  const a = analyse('enzyme-deferred.julia.txt');
  const parked = a.threads.find((t) => t.key === '7.task-root');
  assert.equal(parked?.state, 'task-parked');
  // The task that ran on thread 7 is thread 7.
  assert.equal(a.threads.find((t) => t.key === '7')?.state, 'gc-unsafe');
  assert.ok(a.threads.every((t) => t.state !== 'running'));
});
