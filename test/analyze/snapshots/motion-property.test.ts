/**
 * Properties of the motion over snapshots, on random series built from a real capture (the
 * founding dump's twelve threads): gdb's thread order and numbering do not matter when LWPs are
 * shown; a thread moves exactly when one of its frames' function, file:line or pc changes; and
 * snapshots never raise a verdict above the last snapshot's own.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import fc from 'fast-check';
import { parseDump } from '../../../src/parse/index.js';
import { createAnalyzer } from '../../../src/analyze/index.js';
import { analyzeSeries, computeMotion, snapshotThreads } from '../../../src/analyze/snapshots/index.js';
import type { Dump } from '../../../src/model/dump.js';
import { FOUNDING } from '../../helpers/paths.js';

const founding = parseDump(readFileSync(FOUNDING, 'utf8'));
const headered = founding.backtraces.filter((bt) => bt.thread !== null && bt.frames.length > 0);

/** A copy of the dump with its headered backtraces in `order`, renumbered 1..N in that order, and frame `change` (thread index, frame index, field) altered. */
function variant(order: number[], change: { thread: number; frame: number; field: 'function' | 'line' | 'pc' } | null): Dump {
  const backtraces = order.map((i, n) => {
    const bt = structuredClone(headered[i] as (typeof headered)[number]);
    const thread = bt.thread as NonNullable<typeof bt.thread>;
    thread.gdbId = String(n + 1);
    thread.id = n + 1;
    if (change !== null && change.thread === i) {
      const f = bt.frames[change.frame % bt.frames.length] as (typeof bt.frames)[number];
      if (change.field === 'function') f.function = `${f.function}_moved`;
      else if (change.field === 'line') f.line = (f.line ?? 0) + 1;
      else f.pc = f.pc === null ? '0x1' : `${f.pc}0`;
    }
    return bt;
  });
  return { ...founding, backtraces };
}

const orders = fc.shuffledSubarray(
  headered.map((_, i) => i),
  { minLength: headered.length, maxLength: headered.length },
);

test('renumbered and reordered, the same frames: every thread stuck, matched by LWP', () => {
  fc.assert(
    fc.property(orders, orders, (a, b) => {
      const m = computeMotion([snapshotThreads(variant(a, null)), snapshotThreads(variant(b, null))]);
      assert.equal(m.matchedBy, 'lwp');
      assert.equal(m.threads.length, headered.length);
      assert.ok(m.threads.every((t) => t.motion === 'stuck'));
    }),
    { numRuns: 60 },
  );
});

test('one frame changed (function, line or pc): exactly that thread moved', () => {
  fc.assert(
    fc.property(orders, fc.nat(headered.length - 1), fc.nat(40), fc.constantFrom('function' as const, 'line' as const, 'pc' as const), (order, thread, frame, field) => {
      const lwp = (headered[thread] as (typeof headered)[number]).thread?.lwp;
      const m = computeMotion([snapshotThreads(variant(order, null)), snapshotThreads(variant(order, { thread, frame, field }))]);
      const moved = m.threads.filter((t) => t.motion === 'moved').map((t) => t.lwp);
      assert.deepEqual(moved, [lwp]);
    }),
    { numRuns: 80 },
  );
});

test('snapshots never raise the verdict: ok stays ok, and a finding stays or becomes ok', () => {
  const analyzer = createAnalyzer();
  const rank = { ok: 0, crash: 0, hang: 1, deadlock: 1 } as const;
  fc.assert(
    fc.property(orders, fc.option(fc.record({ thread: fc.nat(headered.length - 1), frame: fc.nat(40), field: fc.constantFrom('function' as const, 'line' as const, 'pc' as const) })), (order, change) => {
      const dumps = [variant(order, null), variant(order, change)];
      const last = analyzer.analyze(dumps[1] as Dump);
      const over = analyzeSeries(dumps, (d) => analyzer.analyze(d), { times: null, how: 'given' });
      assert.ok(rank[over.verdict] <= rank[last.verdict], `${last.verdict} → ${over.verdict}`);
      if (over.verdict !== last.verdict) assert.equal(over.verdictReasons[0]?.kind, 'moved');
    }),
    { numRuns: 40 },
  );
});
