/**
 * `waitgraph core` on a core written by gcore from a hung program, and the one-line errors (exit 2)
 * of attach and core: gdb missing, a pid that does not exist, a pid that cannot be traced (another
 * tracer holds it), a core without its binary, a file that is not a core. Plus the injection test:
 * thread names, symbols and string arguments that look like gdb commands never run.
 */
import { after, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import type { JsonReport } from '../../src/report/json.js';
import { GdbSession } from '../../src/live/gdb-session.js';
import { HOSTILE_NAMES } from './programs.js';
import { buildPrograms, LIVE_TEST_TIMEOUT_MS, liveSkipReason, livePids, withProgram } from './harness.js';
import { runWaitgraphAsync } from './cli.js';

const run = promisify(execFile);
const skip = (await liveSkipReason()) ?? false;
/** hostile-names.c has a function whose symbol is `"shell touch /tmp/waitgraph-pwned-symbol"`. */
const SYMBOL_MARKER = '/tmp/waitgraph-pwned-symbol';
const scratch = mkdtempSync(join(tmpdir(), 'waitgraph-core-test-'));
after(() => rmSync(scratch, { recursive: true, force: true }));

function oneErrorLine(stderr: string, pattern: RegExp): void {
  const lines = stderr.trimEnd().split('\n');
  assert.equal(lines.length, 1, `one line on stderr, got: ${stderr}`);
  assert.match(lines[0]!, pattern);
}

/** gcore of a hung program; returns the core path and the binary. */
async function coreOf(name: string): Promise<{ core: string; exe: string }> {
  const dir = await buildPrograms();
  return withProgram(name, async (p) => {
    const prefix = join(scratch, name);
    await run('gcore', ['-o', prefix, String(p.pid)], { timeout: 60_000 });
    return { core: `${prefix}.${p.pid}`, exe: join(dir, name) };
  });
}

describe('core mode', { concurrency: 1 }, () => {
  let abba: { core: string; exe: string } | null = null;
  const abbaCore = async (): Promise<{ core: string; exe: string }> => (abba ??= await coreOf('abba'));

  test('a gcore core of the ABBA program: deadlock proven from the core’s memory, with --exe and without', { skip, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    const { core, exe } = await abbaCore();
    for (const args of [['core', core, '--exe', exe, '--format', 'json'], ['core', core, '--format', 'json']]) {
      const r = await runWaitgraphAsync(args);
      assert.equal(r.stderr, '');
      assert.equal(r.code, 1);
      const report = JSON.parse(r.stdout) as JsonReport;
      assert.equal(report.verdict, 'deadlock');
      // A core keeps no thread names; the two workers are the cycle and main (thread 1, joining) is behind it.
      assert.equal(report.deadlocks[0]?.threads.length, 2);
      assert.ok(!report.deadlocks[0]?.threads.includes(1));
      assert.deepEqual(report.deadlocks[0]?.blockedBehind, [1]);
      assert.equal(report.deadlocks[0]?.evidence, 'proven');
      assert.equal(report.facts.length, 2);
    }
  });

  test('a core whose recorded binary is gone needs --exe: one line, exit 2', { skip, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    const { core, exe } = await abbaCore();
    const copy = join(scratch, 'abba-copy');
    copyFileSync(exe, copy);
    const r0 = await runWaitgraphAsync(['core', core, '--exe', copy, '--format', 'json']);
    assert.equal(r0.code, 1, 'a copy of the right binary works');
    // The core records the path its program was started from: start a copy, core it, delete the copy.
    const gone = join(scratch, 'gone-binary');
    copyFileSync(exe, gone);
    const { core: orphanCore } = await (async () => {
      const { spawn } = await import('node:child_process');
      const child = spawn(gone, [], { stdio: ['ignore', 'pipe', 'ignore'] });
      try {
        await new Promise<void>((resolve, reject) => {
          child.stdout.on('data', (d: Buffer) => (/READY/.test(d.toString()) ? resolve() : undefined));
          child.once('exit', () => reject(new Error('exited early')));
        });
        const prefix = join(scratch, 'orphan');
        await run('gcore', ['-o', prefix, String(child.pid)], { timeout: 60_000 });
        return { core: `${prefix}.${child.pid}` };
      } finally {
        child.kill('SIGKILL');
      }
    })();
    rmSync(gone);
    const r = await runWaitgraphAsync(['core', orphanCore]);
    assert.equal(r.code, 2);
    oneErrorLine(r.stderr, /executable .*gone-binary.* is not available; pass --exe BINARY/);
  });

  test('a core of a program started by a relative path: found from the working directory, then from the core\'s folder', { skip, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    const { exe } = await abbaCore();
    const build = join(scratch, 'rel-build');
    mkdirSync(build, { recursive: true });
    copyFileSync(exe, join(build, 'abba'));
    const { spawn } = await import('node:child_process');
    // Started as `./abba` from its folder: the core records the relative name `./abba`.
    const child = spawn('./abba', [], { cwd: build, stdio: ['ignore', 'pipe', 'ignore'] });
    let core: string;
    try {
      await new Promise<void>((resolve, reject) => {
        child.stdout.on('data', (d: Buffer) => (/READY/.test(d.toString()) ? resolve() : undefined));
        child.once('exit', () => reject(new Error('exited early')));
      });
      await run('gcore', ['-o', join(build, 'rel'), String(child.pid)], { timeout: 60_000 });
      core = join(build, `rel.${child.pid}`);
    } finally {
      child.kill('SIGKILL');
    }
    const fromItsFolder = await runWaitgraphAsync(['core', core], {}, 120_000, build);
    assert.equal(fromItsFolder.code, 1, fromItsFolder.stderr);
    // From elsewhere, ./abba is not in the working directory but beside the core.
    const fromElsewhere = await runWaitgraphAsync(['core', core], {}, 120_000, scratch);
    assert.equal(fromElsewhere.code, 1, fromElsewhere.stderr);
    rmSync(join(build, 'abba'));
    const gone = await runWaitgraphAsync(['core', core], {}, 120_000, scratch);
    assert.equal(gone.code, 2);
    oneErrorLine(gone.stderr, /executable \(\.\/abba, looked for .*rel-build\/abba\) is not available; pass --exe BINARY/);
  });

  test('not a core, a missing core, a missing --exe, a mismatched --exe: one line, exit 2', { skip, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    const { core, exe } = await abbaCore();
    const text = join(scratch, 'notes.txt');
    writeFileSync(text, 'not a core\n');
    const cases: Array<[string[], RegExp]> = [
      [['core', exe], /not a core file/],
      [['core', text], /not a core file/],
      [['core', join(scratch, 'missing.core')], /core file not found/],
      [['core', core, '--exe', join(scratch, 'missing-binary')], /executable not found/],
      [['core', core, '--exe', join(await buildPrograms(), 'self-deadlock')], /does not match the executable/],
    ];
    for (const [args, pattern] of cases) {
      const r = await runWaitgraphAsync(args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      oneErrorLine(r.stderr, pattern);
    }
  });
});

describe('attach errors', () => {
  test('gdb missing (WAITGRAPH_GDB points nowhere): one line, exit 2', async () => {
    const r = await runWaitgraphAsync(['attach', '1'], { WAITGRAPH_GDB: '/nonexistent/gdb' });
    assert.equal(r.code, 2);
    oneErrorLine(r.stderr, /gdb not found/);
  });

  test('gdb missing from PATH: one line, exit 2', async () => {
    const r = await runWaitgraphAsync(['attach', '1'], { PATH: '/nonexistent' });
    assert.equal(r.code, 2);
    oneErrorLine(r.stderr, /gdb not found/);
  });

  test('a pid that does not exist, and text that is no pid: one line, exit 2', async () => {
    const r = await runWaitgraphAsync(['attach', '4194303']);
    assert.equal(r.code, 2);
    oneErrorLine(r.stderr, /no process with pid 4194303/);
    const bad = await runWaitgraphAsync(['attach', '12; id']);
    assert.equal(bad.code, 2);
    oneErrorLine(bad.stderr, /not a process id/);
  });

  test('a pid that cannot be traced (another debugger holds it): one line, exit 2', { skip, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    await withProgram('healthy-sleepers', async (p) => {
      const holder = await GdbSession.start({ gdbPath: 'gdb', commandTimeoutMs: 60_000 });
      try {
        const attached = await holder.command(`-target-attach ${p.pid}`);
        assert.ok(attached.ok, `the first debugger attaches: ${attached.error}`);
        const r = await runWaitgraphAsync(['attach', String(p.pid)]);
        assert.equal(r.code, 2, `exit code (stderr: ${r.stderr}; stdout: ${r.stdout.slice(0, 300)})`);
        oneErrorLine(r.stderr, /cannot attach to pid \d+: .*Operation not permitted/);
      } finally {
        await holder.close();
      }
    });
  });
});

describe('attach text report and --save-dump', () => {
  test('the text report names the proven owners; --save-dump keeps gdb’s backtrace text and its answers', { skip, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    const saved = join(scratch, 'abba-saved.txt');
    await withProgram('abba', async (p) => {
      const r = await runWaitgraphAsync(['attach', String(p.pid), '--save-dump', saved]);
      assert.equal(r.code, 1);
      assert.match(r.stdout, /^Deadlock: /m);
      // What gdb was asked, and its answer (an LWP of one of the cycle's threads). The text report
      // wraps long lines at spaces, where depends on the pid's digits: compare with spaces folded.
      const flat = r.stdout.replace(/\s+/g, ' ');
      assert.match(flat, /print \(\(pthread_mutex_t \*\) 0x[0-9a-f]+\)->__data\.__owner/);
      const lwps = [...flat.matchAll(/Thread [23] \(LWP (\d+)\)/g)].map((m) => m[1]);
      assert.ok(lwps.length > 0 && lwps.some((l) => flat.includes(`__owner → owner LWP ${l}`) || flat.includes(`__owner = ${l}`)), 'gdb’s answer is shown');
      assert.match(r.stdout, /evidence: proven/);
    });
    const text = readFileSync(saved, 'utf8');
    assert.match(text, /^Thread 2 \(Thread 0x[0-9a-f]+ \(LWP \d+\) "abba-ab"\):$/m);
    // The questions and gdb's answers follow the backtraces as a session transcript: the saved
    // text alone proves the same cycle (test/live/owner-loop.test.ts compares the two reports).
    assert.match(text, /^\(gdb\) print \(\(pthread_mutex_t \*\) 0x[0-9a-f]+\)->__data\.__owner\n\$\d+ = \d+$/m);
    const again = await runWaitgraphAsync([saved]);
    assert.equal(again.code, 1, 'the saved text alone: not ok');
    assert.match(again.stdout, /^Deadlock: /m);
    assert.match(again.stdout, /evidence: proven/);
  });
});

describe('no injection through the dump', () => {
  test('thread names, symbols and strings that look like gdb commands stay text', { skip, timeout: LIVE_TEST_TIMEOUT_MS }, async () => {
    const marker = join(scratch, 'pwned');
    rmSync(SYMBOL_MARKER, { force: true });
    await withProgram(
      HOSTILE_NAMES,
      async (p) => {
        const r = await runWaitgraphAsync(['attach', String(p.pid), '--format', 'json']);
        assert.equal(r.code, 1, r.stderr);
        const report = JSON.parse(r.stdout) as JsonReport;
        assert.equal(report.verdict, 'deadlock');
        assert.equal(report.deadlocks[0]?.evidence, 'proven');
        const names = report.threads.map((t) => t.name);
        assert.ok(names.includes('x"; shell touch'), `the hostile thread name is read as a name: ${JSON.stringify(names)}`);
        // gdb prints the symbol quoted; it is a frame of thread 3's stack, not a command.
        assert.match(r.stdout, /shell touch \/tmp\/waitgraph-pwned-symbol/);
        for (const fact of report.facts) assert.match(fact.query ?? '', /^print \(\(pthread_mutex_t \*\) 0x[0-9a-f]+\)->__data\.__owner$/);
      },
      { args: [marker] },
    );
    assert.equal(existsSync(marker), false, 'no command from the dump ran');
    assert.equal(existsSync('/tmp/pwned'), false);
    assert.equal(existsSync(SYMBOL_MARKER), false, 'a function named like a gdb command did not run');
  });
});

after(() => {
  assert.deepEqual(livePids(), [], 'every started program was killed');
});
