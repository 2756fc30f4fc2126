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
    assert.equal(readFileSync(join(dir, 'abba-no-owners.expect.json'), 'utf8'), '{"verdict": "hang", "cycles": []}\n');

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
    const strict = runWaitgraph(['check', '--strict', dir]);
    assert.equal(strict.code, 1);
    assert.match(strict.stdout, /founding\.txt\s+-\s+-\s+unchecked/, '--strict lists what fails');

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
