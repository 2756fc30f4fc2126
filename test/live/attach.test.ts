/**
 * Real programs that really deadlock, diagnosed three ways: `waitgraph attach PID` (gdb asked for
 * lock owners: proven cycles), the plain `thread apply all bt` text (the best the text allows,
 * never `ok`), and the same text with libc's debug symbols hidden (still never `ok`). Programs that
 * hang with no cycle (a pure-Python ABBA, a mutex whose owner exited, a lock held across fork())
 * must be `hang` for the right reason in every mode, the owner ones from the owner loop's
 * transcript. Healthy programs (an idle accept() server, a pipe reader, threads trading a mutex, a
 * condition variable fed by a sleeping producer, …) must be `ok` in every mode. Every started program is killed in a `finally`; the last
 * test checks none is left.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { analyze } from '../../src/analyze/index.js';
import { parseDump } from '../../src/parse/index.js';
import type { Analysis } from '../../src/model/analysis.js';
import type { JsonReport, JsonThreadRef } from '../../src/report/json.js';
import { PROGRAMS, type ProgramSpec } from './programs.js';
import { join } from 'node:path';
import { captureProgram, hasPython, LIVE_FIXTURES, LIVE_TEST_TIMEOUT_MS, liveSkipReason, livePids, traceState, withProgram } from './harness.js';
import { sidecarFor } from './capture.js';
import { runWaitgraph } from '../helpers/run-cli.js';
import { runWaitgraphAsync } from './cli.js';

const skipReason = await liveSkipReason();
const noPython = (await hasPython()) ? false : 'python3 not found';

function skipFor(spec: ProgramSpec): string | false {
  if (skipReason) return skipReason;
  return spec.language === 'python' ? noPython : false;
}

/** Thread names of a key list, sorted (names are what the programs set; numbers vary). */
function names(analysis: Pick<Analysis, 'threads'>, keys: string[]): string[] {
  return keys.map((k) => analysis.threads.find((t) => t.key === k)?.name ?? `?${k}`).sort();
}

/** The same, for the JSON report, which names threads by gdb number. */
function reportNames(report: JsonReport, ids: JsonThreadRef[]): string[] {
  return ids.map((id) => report.threads.find((t) => t.id === id)?.name ?? `?${id}`).sort();
}

function textVerdict(text: string): Analysis {
  return analyze(parseDump(text));
}

/** Threads a dump-only report names as stuck: in a cycle, hung, or blocked behind either. */
function stuckNames(a: Analysis): string[] {
  const keys = new Set<string>([...a.hung, ...a.deadlocks.flatMap((d) => [...d.threads, ...d.blockedBehind]), ...(a.hangBlockedBehind ?? [])]);
  return names(a, [...keys]);
}

/** Names of the threads a hang names as hung. */
function hungNames(a: Analysis): string[] {
  return names(a, a.hung);
}

/** What a hang program's report must say: the reason it rests on, the threads it names, and why. */
function assertHang(spec: ProgramSpec, a: Analysis, label: string): void {
  const hang = spec.hang!;
  assert.equal(a.verdict, 'hang', `${label}: ${a.verdictReasons.map((r) => r.text).join(' ')}`);
  assert.equal(a.verdictReasons[0]?.kind, hang.reason, `${label}: the hang rests on ${hang.reason}`);
  for (const n of hang.hung) assert.ok(hungNames(a).includes(n), `${label}: ${n} named as hung (got ${hungNames(a).join(', ')})`);
  const why = a.verdictReasons[0]?.text ?? '';
  if (spec.attachTo === 'child') assert.match(why, /came across fork\(\) held/, `${label}: says the lock was inherited across fork()`);
  else if (hang.reason === 'owner-gone') assert.match(why, /it exited while holding it/, `${label}: says the owner exited`);
  assert.doesNotMatch(why + a.notes.join(' '), /contention, not a hang|can still end/, `${label}: nothing contradicts the verdict`);
}

describe('live: attach and text on real programs', { concurrency: 2 }, () => {
  for (const spec of PROGRAMS) {
    const what = spec.expect === 'deadlock' ? 'proves the cycle' : spec.expect === 'hang' ? `reports the hang (${spec.hang?.reason})` : 'reports ok';
    test(`${spec.name}: attach ${what}; text and no-debug text agree`, { skip: skipFor(spec), timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
      await withProgram(spec.name, async (p) => {
        const live = await runWaitgraphAsync(['attach', String(p.pid), '--format', 'json']);
        const text = await captureProgram(spec, p.pid);
        const bare = await captureProgram(spec, p.pid, { hideLibcDebug: true });
        assert.equal(live.stderr, '', 'attach printed nothing on stderr');
        // gdb detached: nobody traces the program and it is not left stopped.
        const after = traceState(p.pid);
        assert.equal(after?.tracerPid, 0, 'no tracer after attach');
        assert.ok(after && !['t', 'T'].includes(after.state), `not stopped after attach (state ${after?.state})`);
        const report = JSON.parse(live.stdout) as JsonReport;
        const fromText = textVerdict(text);
        const fromBare = textVerdict(bare);
        if (spec.expect === 'healthy') {
          assert.equal(report.verdict, 'ok', `attach: ${JSON.stringify(report.hung)} ${JSON.stringify(report.deadlocks.map((d) => d.threads))}`);
          assert.equal(live.code, 0);
          assert.equal(fromText.verdict, 'ok', `text: ${fromText.verdictReasons.map((r) => r.text).join(' ')}\n${text}`);
          assert.equal(fromBare.verdict, 'ok', `text without libc debug info: ${fromBare.verdictReasons.map((r) => r.text).join(' ')}\n${bare}`);
          return;
        }
        if (spec.expect === 'hang') {
          assert.equal(live.code, 1, 'exit 1: a hang was found');
          assert.equal(report.verdict, 'hang');
          assert.equal(report.verdictReasons[0]?.kind, spec.hang?.reason);
          assert.deepEqual(report.deadlocks, [], 'no cycle is claimed');
          assertHang(spec, fromText, 'text');
          assertHang(spec, fromBare, 'text without libc debug info');
          return;
        }
        assert.equal(live.code, 1, 'exit 1: a deadlock was found');
        assert.equal(report.verdict, 'deadlock');
        assert.equal(report.deadlocks.length, 1, 'one cycle');
        const deadlock = report.deadlocks[0]!;
        assert.deepEqual(reportNames(report, deadlock.threads), [...spec.cycle].sort(), 'exactly the cycle threads');
        assert.equal(deadlock.evidence, spec.provable ? 'proven' : 'inferred');
        // The report says what gdb was asked and what it answered.
        assert.ok(report.facts.length > 0, 'owner facts from gdb');
        for (const fact of report.facts) {
          assert.equal(fact.origin, 'gdb');
          assert.match(fact.query ?? '', /^print /);
          assert.match(fact.answer ?? '', /^\d+$/);
        }
        assert.notEqual(fromText.verdict, 'ok', 'text: never ok');
        for (const n of spec.cycle) assert.ok(stuckNames(fromText).includes(n), `text names ${n} as stuck (got ${stuckNames(fromText).join(', ')})`);
        assert.notEqual(fromBare.verdict, 'ok', 'text without libc debug info: never ok');
      });
    });
  }
});

describe('live: captured dumps (run where gdb cannot attach)', () => {
  for (const spec of PROGRAMS) {
    for (const variant of ['txt', 'nodebug.txt']) {
      test(`fixtures/live/${spec.name}.${variant}`, () => {
        const a = textVerdict(readFileSync(join(LIVE_FIXTURES, `${spec.name}.${variant}`), 'utf8'));
        assert.equal(a.verdict, spec.textVerdict, a.verdictReasons.map((r) => r.text).join(' '));
        if (spec.expect === 'healthy') return;
        if (spec.expect === 'hang') {
          assertHang(spec, a, variant);
          return;
        }
        const stuck = stuckNames(a);
        if (variant === 'txt') {
          for (const n of spec.cycle) assert.ok(stuck.includes(n), `${n} named as stuck (got ${stuck.join(', ')})`);
        } else {
          // Without libc debug info some waits are invisible (pthread_join is two `?? ()` frames), but
          // the threads blocked in a visible lock call are still named.
          assert.ok(spec.cycle.some((n) => stuck.includes(n)), `a cycle thread is named as stuck (got ${stuck.join(', ')})`);
        }
      });
    }
  }

  test('each sidecar says what the catalogue says the text gets, and `waitgraph check fixtures/live` holds every one', () => {
    for (const spec of PROGRAMS) {
      for (const variant of ['', '.nodebug']) {
        assert.equal(readFileSync(join(LIVE_FIXTURES, `${spec.name}${variant}.expect.json`), 'utf8'), sidecarFor(spec), `${spec.name}${variant}.expect.json`);
      }
    }
    const check = runWaitgraph(['check', LIVE_FIXTURES]);
    assert.equal(check.code, 0, check.stdout + check.stderr);
    // Every sidecar in the folder: the catalogue's programs twice each, plus captures made another way (bt full).
    const sidecars = readdirSync(LIVE_FIXTURES).filter((name) => name.endsWith('.expect.json')).length;
    assert.ok(sidecars >= PROGRAMS.length * 2);
    assert.match(check.stdout, new RegExp(`\\b${sidecars} matched, 0 mismatched\\b`));
  });
});

after(() => {
  assert.deepEqual(livePids(), [], 'every started program was killed');
});
