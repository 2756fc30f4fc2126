import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { runCli } from '../../../src/cli/program.js';
import type { CliIO } from '../../../src/cli/io.js';
import { FIXTURES, FOUNDING } from '../../helpers/paths.js';
import { runWaitgraph } from '../../helpers/run-cli.js';

/** A temp folder with three dumps of three verdicts: a deadlock, another deadlock, a hang. */
function sampleFolder(): string {
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-check-'));
  copyFileSync(FOUNDING, join(dir, 'founding.txt'));
  copyFileSync(join(FIXTURES, 'check', 'abba-with-owners.txt'), join(dir, 'abba.bt'));
  // The same ABBA without the owner prints: gdb's text alone cannot prove who holds the locks.
  const abba = readFileSync(join(FIXTURES, 'check', 'abba-with-owners.txt'), 'utf8');
  writeFileSync(join(dir, 'abba-no-owners.log'), abba.slice(0, abba.indexOf('(gdb) p *')));
  // Not dumps: goldens, sidecar-like and other files.
  mkdirSync(join(dir, 'golden'));
  writeFileSync(join(dir, 'golden', 'founding.txt'), 'a golden report, not a dump\n');
  writeFileSync(join(dir, 'expected.txt'), 'a golden report, not a dump\n');
  writeFileSync(join(dir, 'notes.md'), '# notes\n');
  return dir;
}

const sidecars = (dir: string): string[] => readdirSync(dir).filter((n) => n.endsWith('.expect.json')).sort();

test('matching sidecars exit 0; a changed verdict exits 1; --update restores exit 0', () => {
  const dir = sampleFolder();
  try {
    const update = runWaitgraph(['check', '--update', dir]);
    assert.equal(update.code, 0, update.stderr);
    assert.deepEqual(sidecars(dir), ['abba-no-owners.expect.json', 'abba.expect.json', 'founding.expect.json']);
    assert.equal(readFileSync(join(dir, 'founding.expect.json'), 'utf8'), '{"verdict": "deadlock", "cycles": [[7, 8, 9]]}\n');
    assert.equal(readFileSync(join(dir, 'abba.expect.json'), 'utf8'), '{"verdict": "deadlock", "cycles": [[2, 3]]}\n');
    // A hang's sidecar names the hung threads (--update writes them; a hand-written one may leave them out).
    assert.equal(readFileSync(join(dir, 'abba-no-owners.expect.json'), 'utf8'), '{"verdict": "hang", "cycles": [], "hung": [2, 3]}\n');

    const ok = runWaitgraph(['check', dir]);
    assert.equal(ok.code, 0, ok.stdout + ok.stderr);
    const lines = ok.stdout.trimEnd().split('\n');
    assert.match(lines[0]!, /^file\s+expected\s+got\s+match$/);
    assert.equal(lines.filter((l) => / ok$/.test(l)).length, 3);
    assert.doesNotMatch(ok.stdout, /golden|expected\.txt|notes\.md/);
    assert.match(ok.stdout, /3 matched, 0 mismatched, 0 unchecked/);

    writeFileSync(join(dir, 'founding.expect.json'), '{"verdict": "ok", "cycles": []}\n');
    const bad = runWaitgraph(['check', dir]);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /founding\.txt\s+ok\s+deadlock \{7,8,9\}\s+MISMATCH/);

    writeFileSync(join(dir, 'abba.expect.json'), '{"verdict": "deadlock", "cycles": [[3, 2]]}\n');
    writeFileSync(join(dir, 'founding.expect.json'), '{"verdict": "deadlock", "cycles": [[9, 7, 8]]}\n');
    assert.equal(runWaitgraph(['check', dir]).code, 0, 'cycle order does not matter');
    writeFileSync(join(dir, 'founding.expect.json'), '{"verdict": "deadlock", "cycles": [[7, 9]]}\n');
    assert.equal(runWaitgraph(['check', dir]).code, 1, 'a different thread set is a mismatch');

    for (const name of sidecars(dir)) rmSync(join(dir, name));
    const unchecked = runWaitgraph(['check', dir]);
    assert.equal(unchecked.code, 0, 'unchecked dumps are not failures by default');
    assert.match(unchecked.stdout, /0 matched, 0 mismatched, 3 unchecked \(no sidecar; --verbose lists them\)/);
    assert.doesNotMatch(unchecked.stdout, /founding\.txt/, 'unchecked rows are not listed by default');
    assert.match(runWaitgraph(['check', '--verbose', dir]).stdout, /founding\.txt\s+-\s+-\s+unchecked/);
    assert.match(unchecked.stdout, /nothing was checked: none of the 3 dumps has a sidecar/);
    // --strict promises something was checked: a run that checked nothing is an input error.
    const strict = runWaitgraph(['check', '--strict', dir]);
    assert.equal(strict.code, 2);
    assert.match(strict.stdout, /founding\.txt\s+-\s+-\s+unchecked/, '--strict lists what fails');
    assert.match(strict.stdout, /nothing was checked: .*an error with --strict/);
    writeFileSync(join(dir, 'abba.expect.json'), '{"verdict": "deadlock", "cycles": [[2, 3]]}\n');
    assert.equal(runWaitgraph(['check', '--strict', dir]).code, 1, 'one checked, two unchecked: the unchecked fail --strict');
    rmSync(join(dir, 'abba.expect.json'));

    const first = runWaitgraph(['check', '--update', dir]);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    assert.equal(runWaitgraph(['check', '--strict', dir]).code, 0);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('unreadable input exits 2: a binary dump, a broken sidecar, a missing path', () => {
  const dir = sampleFolder();
  try {
    const first = runWaitgraph(['check', '--update', dir]);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    writeFileSync(join(dir, 'abba.expect.json'), '{"verdict": "deadlock", ');
    const broken = runWaitgraph(['check', dir]);
    assert.equal(broken.code, 2);
    assert.match(broken.stdout, /abba\.bt .*ERROR/);
    assert.match(broken.stdout, /error: .*abba\.bt: .*abba\.expect\.json: not valid JSON/);

    writeFileSync(join(dir, 'abba.expect.json'), '{"verdict": "stuck"}');
    assert.equal(runWaitgraph(['check', dir]).code, 2, 'a sidecar with an unknown verdict');

    rmSync(join(dir, 'abba.expect.json'));
    writeFileSync(join(dir, 'core.txt'), Buffer.from([0x7f, 0x45, 0x4c, 0x46, 0, 0, 0, 1, 2, 3]));
    writeFileSync(join(dir, 'core.expect.json'), '{"verdict": "ok", "cycles": []}');
    const binary = runWaitgraph(['check', dir]);
    assert.equal(binary.code, 2);
    assert.match(binary.stdout, /binary/);

    const missing = runWaitgraph(['check', join(dir, 'nope.txt')]);
    assert.equal(missing.code, 2);
    assert.match(missing.stderr, /^waitgraph: no such file or folder: /);
    assert.doesNotMatch(missing.stderr, /at .*\.js:\d+/, 'no stack trace');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('globs pick the files they name; --format json prints the table as JSON', () => {
  const dir = sampleFolder();
  try {
    const first = runWaitgraph(['check', '--update', dir]);
    assert.equal(first.code, 0, first.stdout + first.stderr);
    const result = runWaitgraph(['check', '--format', 'json', `${dir}/*.bt`]);
    assert.equal(result.code, 0, result.stderr);
    const report = JSON.parse(result.stdout) as { files: Array<{ file: string; match: string; got: unknown }>; summary: Record<string, number>; exitCode: number };
    assert.deepEqual(report.files.map((f) => f.file.replace(/^.*\//, '')), ['abba.bt']);
    assert.equal(report.files[0]!.match, 'match');
    assert.deepEqual(report.files[0]!.got, { verdict: 'deadlock', cycles: [[2, 3]] });
    assert.deepEqual(report.summary, { match: 1, mismatch: 0, unchecked: 0, updated: 0, error: 0 });
    assert.equal(report.exitCode, 0);
    assert.equal(result.stderr, '', 'no progress bar when stderr is not a terminal');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

function fakeIO(cwd: string, stderrIsTTY: boolean): CliIO & { stdout: string; stderr: string } {
  const io = {
    stdout: '',
    stderr: '',
    out(text: string) {
      io.stdout += text;
    },
    err(text: string) {
      io.stderr += text;
    },
    stdin: (async function* () {})(),
    stdoutIsTTY: false,
    stderrIsTTY,
    env: {},
    cwd,
  };
  return io;
}

test('a progress bar on stderr only when stderr is a terminal', async () => {
  const dir = sampleFolder();
  try {
    const tty = fakeIO(dir, true);
    assert.equal(await runCli(['check', '--update', '.'], tty, '0.0.0'), 0);
    assert.match(tty.stderr, /\r\u001b\[K\[#*\.*\] 1\/3 abba-no-owners\.log/);
    assert.ok(tty.stderr.endsWith('\r\u001b[K'), 'the bar is cleared at the end');
    assert.doesNotMatch(tty.stdout, /\r/);
    const pipe = fakeIO(dir, false);
    assert.equal(await runCli(['check', '.'], pipe, '0.0.0'), 0);
    assert.equal(pipe.stderr, '');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the project\'s own fixtures pass `waitgraph check fixtures/`', () => {
  const result = runWaitgraph(['check', 'fixtures/']);
  assert.equal(result.code, 0, result.stdout + result.stderr);
  assert.match(result.stdout, /fixtures\/enzyme-autodiff-deferred\.txt\s+deadlock \{7,8,9\}\s+deadlock \{7,8,9\}\s+ok/);
  assert.match(result.stdout, /fixtures\/check\/abba-with-owners\.txt\s+deadlock \{2,3\}\s+deadlock \{2,3\}\s+ok/);
  assert.doesNotMatch(result.stdout, /fixtures\/golden\//);
});

test('a sidecar with an unknown key (a typo) is an error, exit 2, naming the key and the likely one', () => {
  const dir = sampleFolder();
  try {
    writeFileSync(join(dir, 'founding.expect.json'), '{"verdict": "deadlock", "cycle": [[7, 8, 9]]}\n');
    const r = runWaitgraph(['check', dir]);
    assert.equal(r.code, 2);
    assert.match(r.stdout, /founding\.txt .*ERROR/);
    assert.match(r.stdout, /error: .*founding\.expect\.json: unknown key "cycle" \(did you mean "cycles"\?\); a sidecar has verdict, cycles, hung/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('a hang sidecar may name the hung threads: the same set matches, another does not', () => {
  const dir = sampleFolder();
  try {
    const hangDump = 'abba-no-owners.log';
    const sidecar = join(dir, 'abba-no-owners.expect.json');
    const only = join(dir, hangDump);
    writeFileSync(sidecar, '{"verdict": "hang", "hung": [3, 2]}\n');
    assert.equal(runWaitgraph(['check', only]).code, 0, 'order does not matter');
    writeFileSync(sidecar, '{"verdict": "hang"}\n');
    assert.equal(runWaitgraph(['check', only]).code, 0, 'without hung only the verdict is checked');
    writeFileSync(sidecar, '{"verdict": "hang", "hung": [2]}\n');
    const bad = runWaitgraph(['check', only]);
    assert.equal(bad.code, 1);
    assert.match(bad.stdout, /hang \[2\]\s+hang \[2,3\]\s+MISMATCH/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('--jobs N analyses in worker threads with the same table, SARIF and exit code as one job', () => {
  const dir = sampleFolder();
  try {
    for (let i = 0; i < 6; i++) copyFileSync(FOUNDING, join(dir, `copy-${i}.txt`));
    writeFileSync(join(dir, 'broken.txt'), 'no backtrace here\n');
    writeFileSync(join(dir, 'broken.expect.json'), '{"verdict": "ok"}\n');
    assert.equal(runWaitgraph(['check', '--update', dir]).code, 2, 'the dump without a backtrace is an error row');
    const one = runWaitgraph(['check', '--sarif', join(dir, 'one.sarif'), dir]);
    const three = runWaitgraph(['check', '--jobs', '3', '--sarif', join(dir, 'three.sarif'), dir]);
    assert.equal(three.code, one.code);
    assert.equal(three.stdout, one.stdout);
    assert.match(three.stdout, /9 matched, 0 mismatched, 0 unchecked, 1 unreadable/);
    assert.equal(readFileSync(join(dir, 'three.sarif'), 'utf8'), readFileSync(join(dir, 'one.sarif'), 'utf8'));
    writeFileSync(join(dir, 'founding.expect.json'), '{"verdict": "ok"}\n');
    const mismatch = runWaitgraph(['check', '-j', '2', dir]);
    assert.match(mismatch.stdout, /founding\.txt\s+ok\s+deadlock \{7,8,9\}\s+MISMATCH/);
    const bad = runWaitgraph(['check', '--jobs', '0', dir]);
    assert.equal(bad.code, 2);
    assert.match(bad.stderr, /^waitgraph: --jobs takes a number of worker threads \(1–999\), not "0"\n$/);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});
