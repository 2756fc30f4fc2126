/**
 * The owner loop on real deadlocking programs, as a user runs it: `waitgraph dump.txt
 * --gdb-commands cmds.gdb` (the dump alone: a hang with open owner questions), `gdb -p PID -batch
 * -x cmds.gdb >> dump.txt`, `waitgraph dump.txt` (the proven cycle). With libc's debug info the
 * questions are the owners at the frames' addresses; without it, `$rdi` in each waiting thread.
 * `attach --save-dump` writes the backtraces plus its questions and gdb's answers, and that file
 * alone re-analyses to the same proven cycle. A path that cannot be written is one line, exit 2.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { appendFileSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { JsonReport } from '../../src/report/json.js';
import { captureBacktraces, LIVE_TEST_TIMEOUT_MS, liveSkipReason, livePids, withProgram } from './harness.js';
import { runWaitgraphAsync } from './cli.js';

const run = promisify(execFile);
const skipReason = await liveSkipReason();
const dir = mkdtempSync(join(tmpdir(), 'waitgraph-owner-loop-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function cycleNames(report: JsonReport): Array<[string[], string]> {
  const name = (id: number | string) => report.threads.find((t) => t.id === id)?.name ?? `?${id}`;
  return report.deadlocks.map((d) => [d.threads.map(name).sort(), d.evidence]);
}

describe('live: the owner loop', { concurrency: 1 }, () => {
  for (const variant of [
    { name: 'abba', hideLibcDebug: false, asks: /^print \(\(pthread_mutex_t \*\) 0x[0-9a-f]+\)->__data\.__owner$/m },
    { name: 'abba', hideLibcDebug: true, asks: /waitgraph_ask\(\["thread apply \d+ print \*\(pthread_mutex_t \*\) \$rdi"\]\)/ },
    { name: 'cxx-lock-guard-abba', hideLibcDebug: false, asks: /^print \(\(pthread_mutex_t \*\) 0x[0-9a-f]+\)->__data\.__owner$/m },
  ]) {
    const label = `${variant.name}${variant.hideLibcDebug ? ' (libc without debug info)' : ''}`;
    test(`${label}: text → --gdb-commands → gdb -batch -x → appended answers → proven cycle`, { skip: skipReason ?? false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
      await withProgram(variant.name, async (p) => {
        const dump = join(dir, `${label.replace(/\W+/g, '-')}.txt`);
        const commands = `${dump}.gdb`;
        writeFileSync(dump, await captureBacktraces(p.pid, { hideLibcDebug: variant.hideLibcDebug }));
        const first = await runWaitgraphAsync([dump, '--gdb-commands', commands]);
        assert.equal(first.code, 1, first.stderr);
        assert.doesNotMatch(first.stdout, /evidence: proven/, 'the dump alone proves no cycle');
        const file = readFileSync(commands, 'utf8');
        assert.match(file, variant.asks);
        // Every question the text report shows is in the file.
        for (const m of first.stdout.matchAll(/ask gdb: (.+)$/gm)) assert.ok(file.includes(m[1] as string), `${m[1]} in the command file`);
        const hide = variant.hideLibcDebug ? ['-iex', 'set debug-file-directory /nonexistent'] : [];
        const { stdout } = await run('gdb', ['-p', String(p.pid), '-batch', '-nx', ...hide, '-x', commands], { timeout: 60_000 });
        appendFileSync(dump, stdout);
        const second = await runWaitgraphAsync([dump, '--format', 'json']);
        assert.equal(second.code, 1, second.stderr);
        const report = JSON.parse(second.stdout) as JsonReport;
        assert.deepEqual(cycleNames(report), [[variant.name === 'abba' ? ['abba-ab', 'abba-ba'] : ['audit', 'transfer'], 'proven']]);
        assert.ok(report.edges.some((e) => e.kind === 'holds' && e.basis === 'owner-print'));
        assert.equal(report.unlinkedOwners, undefined);
      });
    });
  }

  test('attach --save-dump: the saved backtraces, questions and answers re-analyse to the same proven cycle', { skip: skipReason ?? false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    await withProgram('abba', async (p) => {
      const saved = join(dir, 'saved.txt');
      const live = await runWaitgraphAsync(['attach', String(p.pid), '--format', 'json', '--save-dump', saved]);
      assert.equal(live.code, 1, live.stderr);
      const text = readFileSync(saved, 'utf8');
      assert.match(text, /^\(gdb\) print \(\(pthread_mutex_t \*\) 0x[0-9a-f]+\)->__data\.__owner\n\$1 = \d+$/m);
      const again = await runWaitgraphAsync([saved, '--format', 'json']);
      const [a, b] = [JSON.parse(live.stdout) as JsonReport, JSON.parse(again.stdout) as JsonReport];
      assert.deepEqual(cycleNames(b), cycleNames(a));
      assert.deepEqual(cycleNames(b), [[['abba-ab', 'abba-ba'], 'proven']]);
      assert.deepEqual(b.deadlocks[0]?.resources, a.deadlocks[0]?.resources);
    });
  });

  test('an unwritable --save-dump or --gdb-commands is one line and exit 2, before gdb runs', { skip: skipReason ?? false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    await withProgram('abba', async (p) => {
      for (const args of [
        ['attach', String(p.pid), '--save-dump', '/nonexistent-dir/saved.txt'],
        ['attach', String(p.pid), '--save-dump', dir],
        ['fixtures/live/abba.txt', '--gdb-commands', '/nonexistent-dir/cmds.gdb'],
        ['fixtures/live/abba.txt', '--gdb-commands', '/proc/version'],
      ]) {
        const r = await runWaitgraphAsync(args);
        assert.equal(r.code, 2, args.join(' '));
        assert.equal(r.stderr.trim().split('\n').length, 1, r.stderr);
        assert.match(r.stderr, /^waitgraph: cannot write /, r.stderr);
        assert.equal(r.stdout, '', 'no report when its files cannot be written');
      }
    });
  });

  test('no program is left running', () => {
    assert.deepEqual(livePids(), []);
  });
});
