/** `waitgraph redact FILE`, `--redact [all]` on analyze and parse, and their bad input, through the real CLI. */
import assert from 'node:assert/strict';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { runWaitgraph } from '../../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'wg-redact-'));
const DUMP = join(dir, 'dump.txt');
writeFileSync(
  DUMP,
  [
    'alice@kestrel:~$ gdb -p 4242',
    'Thread 2 (Thread 0x7f00 (LWP 12) "pool"):',
    '#0  0x00007f0de9c8a482 in __lll_lock_wait (futex=0x5555555580a0 <lock_b>, private=0) at ./nptl/lowlevellock.c:49',
    '#1  0x00007f0de9c8a483 in ___pthread_mutex_lock (mutex=0x5555555580a0 <lock_b>) at ./nptl/pthread_mutex_lock.c:93',
    '#2  0x0000555555555200 in vault_open (key=0x5555556 "hunter2") at /home/alice/vault/vault.c:17',
    '',
    'Thread 1 (Thread 0x7f01 (LWP 11) "app"):',
    '#0  0x00007f0de9c8a482 in __lll_lock_wait (futex=0x5555555580e0 <lock_a>, private=0) at ./nptl/lowlevellock.c:49',
    '#1  0x00007f0de9c8a483 in ___pthread_mutex_lock (mutex=0x5555555580e0 <lock_a>) at ./nptl/pthread_mutex_lock.c:93',
    '#2  0x0000555555555300 in vault_close () at /home/alice/vault/vault.c:27',
    '',
  ].join('\n'),
);
const SECRETS = /alice|kestrel|hunter2/;

test('redact FILE prints the dump redacted line for line, and what it replaced on stderr', () => {
  const r = runWaitgraph(['redact', DUMP]);
  assert.equal(r.code, 0, r.stderr);
  assert.doesNotMatch(r.stdout, SECRETS);
  assert.match(r.stdout, /^<user>@<host>:~\$ gdb -p 4242\n/);
  assert.match(r.stdout, /in vault_open \(key=0x5555556 <str#1>\) at <home>\/vault\/vault\.c:17\n/);
  assert.equal(r.stdout.split('\n').length, 11);
  assert.equal(r.stderr, 'waitgraph: redacted 1 home directory, 1 user name, 1 host name, 1 string\n');
  const all = runWaitgraph(['redact', '--all', DUMP]);
  assert.equal(all.code, 0, all.stderr);
  assert.match(all.stdout, /in <fn#1> \(key=0x5555556 <str#1>\) at <file#1>:17\n/);
  assert.doesNotMatch(all.stdout, /vault/);
  // Standard input too; the redacted dump analyses to the original's verdict.
  const piped = runWaitgraph(['redact'], { input: r.stdout });
  assert.equal(piped.stdout, r.stdout, 'redacting a redacted dump changes nothing');
  assert.equal(runWaitgraph([DUMP]).code, runWaitgraph(['-'], { input: r.stdout }).code);
});

test('--redact on every format and on parse: the report of the redacted dump, the same exit code', () => {
  const plain = runWaitgraph(['--format', 'json', DUMP]);
  for (const format of ['text', 'json', 'markdown', 'mermaid', 'dot', 'svg', 'sarif', 'html', 'github']) {
    for (const level of [[], ['all']]) {
      const r = runWaitgraph(['--redact', ...level, '--format', format, DUMP]);
      assert.equal(r.code, plain.code, `${format} ${level.join('')}: ${r.stderr}`);
      assert.doesNotMatch(r.stdout, SECRETS, `${format} ${level.join('')}`);
    }
  }
  // `--redact FILE`: the word after --redact is the file when it is not `all`.
  const first = runWaitgraph(['--redact', DUMP, '--format', 'json']);
  assert.equal(first.code, plain.code, first.stderr);
  assert.equal(JSON.parse(first.stdout).verdict, JSON.parse(plain.stdout).verdict);
  const parsed = runWaitgraph(['parse', '--redact', DUMP]);
  assert.equal(parsed.code, 0, parsed.stderr);
  assert.doesNotMatch(parsed.stdout, SECRETS);
  assert.equal(JSON.parse(parsed.stdout).stats.backtraces, 2);
  assert.match(runWaitgraph(['parse', '--redact', 'all', DUMP]).stdout, /"function": "<fn#1>"/);
});

test('bad input: one line, exit 2', () => {
  const prose = join(dir, 'prose.txt');
  writeFileSync(prose, 'alice wrote: it hangs\n');
  const empty = join(dir, 'empty.txt');
  writeFileSync(empty, '');
  const cases: Array<[string[], RegExp]> = [
    [['redact', prose], /^waitgraph: no gdb backtrace found in .*prose\.txt \(expected lines like/],
    [['redact', join(dir, 'missing.txt')], /^waitgraph: no such file: /],
    [['redact', empty], /^waitgraph: empty input: /],
    [['redact', dir], /^waitgraph: .* is a directory, not a gdb dump/],
    [['--redact', prose], /^waitgraph: no gdb backtrace found in /],
    [['parse', '--redact', prose], /^waitgraph: no gdb backtrace found in /],
    [['parse', DUMP, '--redact', DUMP], /^waitgraph: parse reads one dump/],
  ];
  for (const [args, message] of cases) {
    const r = runWaitgraph(args);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message, args.join(' '));
    assert.equal(r.stderr.trim().split('\n').length, 1, args.join(' '));
    assert.equal(r.stdout, '');
  }
});

test('the README\'s redact example is what `waitgraph redact --all` prints for fixtures/redact/private.bt', async () => {
  const { readFileSync } = await import('node:fs');
  const { FIXTURES, ROOT } = await import('../../helpers/paths.js');
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Sharing a dump in public'), readme.indexOf('## `waitgraph check`'));
  const fixture = join(FIXTURES, 'redact', 'private.bt');
  const original = readFileSync(fixture, 'utf8').split('\n');
  const all = runWaitgraph(['redact', '--all', fixture]);
  const basic = runWaitgraph(['redact', fixture]);
  const console = /```console\n\$ waitgraph redact --all fixtures\/redact\/private\.bt > public\.txt\n(.*)\n```/.exec(section);
  assert.ok(console, 'the console block');
  assert.equal(`${console[1]}\n`, all.stderr);
  const diff = /```diff\n([\s\S]*?)```/.exec(section)?.[1]?.trim().split('\n') ?? [];
  assert.ok(diff.length >= 6);
  for (const line of diff) {
    if (line.startsWith('-')) assert.ok(original.includes(line.slice(1)), `not a line of the fixture: ${line}`);
    else assert.ok(all.stdout.split('\n').includes(line.slice(1)), `not a line of the redacted dump: ${line}`);
  }
  assert.match(basic.stdout, /in sync_customers \(db=0x561c68e012a0 <str#1>\) at <home>\/vault\/src\/sync\.c:41\n/);
  for (const text of [all.stdout, basic.stdout]) assert.match(runWaitgraph(['-'], { input: text }).stdout, /^Deadlock: pthread mutex cycle \(threads 2, 3\)\n/);
});
