/**
 * The benchmark's dump generator: deterministic, the right shape and size, and its planned join
 * cycles really are provable from the text (each joiner's `threadid=` is its target's header
 * pthread_t, and following the joins goes round the cycle).
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { ensureDump, renderDump } from './generate-dump.js';

interface ParsedThread {
  id: number;
  ptid: string;
  lwp: number;
  levels: number[];
  joins: string | null;
  mutex: string | null;
}

/** A deliberately independent reading of the generated text (regexes, not the real parser). */
function readThreads(text: string): ParsedThread[] {
  const threads: ParsedThread[] = [];
  let current: ParsedThread | null = null;
  for (const line of text.split('\n')) {
    const header = /^Thread (\d+) \(Thread (0x[0-9a-f]+) \(LWP (\d+)\) "[^"]*"\):$/.exec(line);
    if (header !== null) {
      current = { id: Number(header[1]), ptid: header[2] as string, lwp: Number(header[3]), levels: [], joins: null, mutex: null };
      threads.push(current);
      continue;
    }
    const frame = /^#(\d+) +/.exec(line);
    if (frame !== null && current !== null) {
      current.levels.push(Number(frame[1]));
      const join = /__pthread_clockjoin_ex \(threadid=(\d+),/.exec(line);
      if (join !== null) current.joins = `0x${Number(join[1]).toString(16)}`;
      const mutex = /___pthread_mutex_lock \(mutex=(0x[0-9a-f]+)\)/.exec(line);
      if (mutex !== null) current.mutex = mutex[1] as string;
    }
  }
  return threads;
}

test('the same spec gives the same bytes; another seed gives other bytes', () => {
  const a = renderDump({ threads: 300, seed: 7 });
  const b = renderDump({ threads: 300, seed: 7 });
  const c = renderDump({ threads: 300, seed: 8 });
  assert.equal(a.text, b.text);
  assert.deepEqual(a.plan, b.plan);
  assert.notEqual(a.text, c.text);
});

test('N threads, gdb order (highest first), 24 frames each with levels 0..23, about 3 KB a thread', () => {
  const n = 1000;
  const { text } = renderDump({ threads: n });
  const threads = readThreads(text);
  assert.equal(threads.length, n);
  assert.deepEqual(
    threads.map((t) => t.id),
    Array.from({ length: n }, (_, i) => n - i),
  );
  for (const t of threads) assert.deepEqual(t.levels, Array.from({ length: 24 }, (_, i) => i), `thread ${t.id}`);
  assert.equal(new Set(threads.map((t) => t.ptid)).size, n, 'pthread_t values are unique');
  assert.equal(new Set(threads.map((t) => t.lwp)).size, n, 'LWPs are unique');
  const perThread = Buffer.byteLength(text) / n;
  assert.ok(perThread > 2600 && perThread < 3400, `${perThread} bytes a thread`);
});

test('every planned cycle is a ring of joins the text proves; blocked threads join a cycle member', () => {
  const { text, plan } = renderDump({ threads: 4000, seed: 3 });
  const threads = readThreads(text);
  const byPtid = new Map(threads.map((t) => [t.ptid, t]));
  const byId = new Map(threads.map((t) => [String(t.id), t]));
  assert.equal(plan.cycles.length, 10);
  const target = (id: string): string => {
    const t = byId.get(id);
    assert.ok(t?.joins, `thread ${id} joins someone`);
    const joined = byPtid.get(t.joins);
    assert.ok(joined, `thread ${id} joins ${t.joins}, a thread of the dump`);
    return String(joined.id);
  };
  for (const cycle of plan.cycles) {
    const seen: string[] = [];
    let at = cycle[0] as string;
    do {
      seen.push(at);
      at = target(at);
    } while (at !== cycle[0] && seen.length <= cycle.length);
    assert.deepEqual([...seen].sort((a, b) => Number(a) - Number(b)), cycle, 'following the joins goes round exactly the cycle');
  }
  const inCycles = new Set(plan.cycles.flat());
  for (const behind of plan.blockedBehind) assert.ok(inCycles.has(target(behind)), `thread ${behind} joins a cycle member`);
  // Nothing else closes a join cycle: the only other joiner is the main thread, joining an idle thread.
  const joiners = threads.filter((t) => t.joins !== null).map((t) => String(t.id));
  assert.deepEqual(new Set(joiners), new Set([...inCycles, ...plan.blockedBehind, '1']));
  assert.equal(threads.filter((t) => t.mutex !== null).length, plan.mutexWaiters);
});

test('ensureDump streams the same text to a file and reuses it', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-gen-'));
  try {
    const first = await ensureDump({ threads: 500, seed: 5 }, dir);
    assert.equal(first.reused, false);
    const text = readFileSync(first.path, 'utf8');
    assert.equal(text, renderDump({ threads: 500, seed: 5 }).text);
    assert.equal(first.bytes, Buffer.byteLength(text));
    assert.equal(first.lines, text.split('\n').length - 1);
    const second = await ensureDump({ threads: 500, seed: 5 }, dir);
    assert.equal(second.reused, true);
    assert.deepEqual(second.plan, first.plan);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
