/**
 * A healthy program whose threads wait on process-shared objects (a mutex a helper process holds,
 * a condition it will signal, in a shared mapping): with libc's debug info, gdb shows their kernel
 * futexes as shared (private=128), the glibc.shared.wait rule reads them as waits on the outside
 * world, and neither `attach` nor the captured text calls the process hung. Without libc's debug
 * info nothing in the text tells a shared mutex from a private one (a limitation, not asserted).
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { JsonReport } from '../../src/report/json.js';
import { captureBacktraces, LIVE_TEST_TIMEOUT_MS, liveSkipReason, livePids, withProgram } from './harness.js';
import { runWaitgraphAsync } from './cli.js';
import { SHARED_WAITS } from './programs.js';

const skipReason = await liveSkipReason();
const dir = mkdtempSync(join(tmpdir(), 'waitgraph-shared-waits-'));
after(() => rmSync(dir, { recursive: true, force: true }));

function stateOf(report: JsonReport, name: string): string | undefined {
  return report.threads.find((t) => t.name === name)?.state;
}

describe('live: waits on process-shared objects', { concurrency: 1 }, () => {
  test('attach and the captured text: ok, exit 0; the shared mutex and condition waits are read as such', { skip: skipReason ?? false, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    await withProgram(SHARED_WAITS, async (p) => {
      const live = await runWaitgraphAsync(['attach', String(p.pid), '--format', 'json']);
      assert.equal(live.code, 0, live.stdout + live.stderr);
      const attached = JSON.parse(live.stdout) as JsonReport;
      assert.equal(attached.verdict, 'ok');
      const text = await captureBacktraces(p.pid);
      assert.match(text, /__lll_lock_wait \(futex=futex@entry=0x[0-9a-f]+, private=128\)/, 'gdb shows the shared futex');
      const dump = join(dir, 'shared-waits.txt');
      writeFileSync(dump, text);
      const fromText = await runWaitgraphAsync([dump, '--format', 'json']);
      assert.equal(fromText.code, 0, fromText.stdout + fromText.stderr);
      const report = JSON.parse(fromText.stdout) as JsonReport;
      assert.equal(report.verdict, 'ok');
      for (const report_ of [attached, report]) {
        assert.equal(stateOf(report_, 'table-user'), 'shared-wait');
        assert.equal(stateOf(report_, 'queue-waiter'), 'shared-wait');
      }
    });
  });

  test('no program is left running', () => {
    assert.deepEqual(livePids(), []);
  });
});
