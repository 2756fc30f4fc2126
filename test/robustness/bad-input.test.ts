/**
 * The README's "Bad input" table, row by row, against the real CLI (bin/waitgraph.js in a child
 * process): each kind of bad input gets its exit code and its one-line message (or, for input
 * that is read anyway, the line of the report that says how it was read), never a stack trace.
 * The test also checks that the README lists every row with the same exit code.
 */
import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { gzipSync } from 'node:zlib';
import { BIN, FIXTURES, FOUNDING, ROOT } from '../helpers/paths.js';
import { runWaitgraph } from '../helpers/run-cli.js';

const dir = mkdtempSync(join(tmpdir(), 'wg-bad-input-'));
after(() => rmSync(dir, { recursive: true, force: true }));

const ABBA = readFileSync(join(FIXTURES, 'live', 'abba.txt'), 'utf8');
const SLEEP_RULE = readFileSync(join(ROOT, 'src', 'rules', 'packs', 'glibc', 'glibc.sleep.yaml'), 'utf8');
const SLEEP_GLOB = /glob: \[[^\]]*\]/;

function file(name: string, content: string | Uint8Array): string {
  const path = join(dir, name);
  writeFileSync(path, content);
  return path;
}

function rule(id: string, edit: (yaml: string) => string): string {
  return file(`${id}.yaml`, edit(SLEEP_RULE.replace('id: glibc.sleep', `id: ${id}`)));
}

/** A process id that is a zombie (exited, not yet reaped): ptrace refuses it, always. */
async function withZombie<T>(body: (pid: number) => Promise<T> | T): Promise<T> {
  const parent = spawn('python3', ['-c', 'import os,sys\npid=os.fork()\nif pid==0: os._exit(0)\nprint(pid,flush=True)\nsys.stdin.read()\nos.waitpid(pid,0)'], { stdio: ['pipe', 'pipe', 'inherit'] });
  try {
    const pid = await new Promise<number>((resolve, reject) => {
      parent.stdout.once('data', (d: Buffer) => resolve(Number(d.toString().trim())));
      parent.once('error', reject);
    });
    for (let i = 0; i < 100 && !/^\d+ \(.*\) Z/.test(readFileSync(`/proc/${pid}/stat`, 'utf8')); i++) await new Promise((r) => setTimeout(r, 20));
    return await body(pid);
  } finally {
    parent.stdin.end();
    parent.kill();
  }
}

interface Row {
  /** The kind of bad input, exactly as in the README table's first column. */
  kind: string;
  exit: 0 | 1 | 2;
  /** Builds the arguments (and stdin / env) for the run. */
  run: () => { args: string[]; input?: string; env?: Record<string, string> } | Promise<{ args: string[]; input?: string; env?: Record<string, string> }>;
  /** For exit 2: the one line on stderr. Otherwise: a line the report prints. */
  message: RegExp;
  /** Overrides the exit check with "exit code decided by the dump's content" (0 or 1). */
  content?: boolean;
  /** For exit 2: the line is on stdout (check's table carries its errors), stderr stays empty. */
  onStdout?: boolean;
  /** Run with stdout to this file (a full disk: /dev/full). */
  stdoutFile?: string;
  /** Run with a terminal on stdin (through script(1)); what the terminal shows is checked. */
  tty?: boolean;
}

const gdbAvailable = spawnSync('gdb', ['--version']).status === 0;
const hasScript = spawnSync('script', ['--version']).status === 0;

/** A folder holding one sample dump with the given sidecar text (or none). */
function checkFolder(name: string, sidecar: string | null): string {
  const folder = join(dir, name);
  mkdirSync(folder, { recursive: true });
  writeFileSync(join(folder, 'abba.txt'), ABBA);
  if (sidecar !== null) writeFileSync(join(folder, 'abba.expect.json'), sidecar);
  return folder;
}

/** A rule folder whose one entry is a link to nothing. */
function danglingRuleFolder(): string {
  const folder = join(dir, 'rules-dangling');
  mkdirSync(folder, { recursive: true });
  symlinkSync(join(dir, 'no-such-rule.yaml'), join(folder, 'gone.yaml'));
  return folder;
}
const hasPython = spawnSync('python3', ['--version']).status === 0;

const ROWS: Row[] = [
  { kind: 'Empty file', exit: 2, run: () => ({ args: [file('empty.txt', '')] }), message: /^waitgraph: empty input: .*empty\.txt holds no text$/ },
  { kind: 'Empty standard input', exit: 2, run: () => ({ args: [], input: '' }), message: /^waitgraph: empty input: standard input holds no text$/ },
  { kind: 'A binary file (an ELF executable)', exit: 2, run: () => ({ args: [file('prog', readFileSync(process.execPath).subarray(0, 65536))] }), message: /^waitgraph: .*prog looks like a binary file, not gdb text output$/ },
  { kind: 'A gzip-compressed dump', exit: 2, run: () => ({ args: [file('dump.txt.gz', gzipSync(ABBA))] }), message: /looks like a binary file, not gdb text output$/ },
  { kind: 'UTF-16 text (Windows editors)', exit: 2, run: () => ({ args: [file('utf16.txt', Buffer.from(`\ufeff${ABBA}`, 'utf16le'))] }), message: /looks like a binary file, not gdb text output$/ },
  { kind: 'A NUL byte in the first 8 KiB', exit: 2, run: () => ({ args: [file('nul-early.txt', `\u0000${ABBA}`)] }), message: /looks like a binary file, not gdb text output$/ },
  { kind: 'A directory', exit: 2, run: () => ({ args: [(mkdirSync(join(dir, 'a-dir'), { recursive: true }), join(dir, 'a-dir'))] }), message: /^waitgraph: .*a-dir is a directory, not a gdb dump$/ },
  { kind: 'A missing file', exit: 2, run: () => ({ args: [join(dir, 'missing.txt')] }), message: /^waitgraph: no such file: .*missing\.txt$/ },
  { kind: 'Several files, one missing', exit: 2, run: () => ({ args: [file('ok.txt', ABBA), join(dir, 'gone.txt')] }), message: /^waitgraph: no such file: .*gone\.txt$/ },
  {
    kind: '`--snapshots` over dumps of two different processes',
    exit: 2,
    run: () => ({ args: [join(FIXTURES, 'live', 'abba.txt'), join(FIXTURES, 'live', 'abc-cycle.txt'), '--snapshots'] }),
    message: /^waitgraph: --snapshots: .*abba\.txt and .*abc-cycle\.txt are dumps of two different processes \(pid \d+ and pid \d+\); snapshots must be of one process$/,
  },
  { kind: 'A mistyped command (`waitgraph anaylze`)', exit: 2, run: () => ({ args: ['anaylze'] }), message: /^waitgraph: no such file: anaylze$/ },
  { kind: 'No backtrace in the text (prose, a log)', exit: 2, run: () => ({ args: [file('prose.txt', 'The program hangs when I call foo(). Any idea?\n')] }), message: /^waitgraph: no gdb backtrace found in .*prose\.txt \(expected lines like "#0  0x… in func \(…\) at file\.c:12"\)$/ },
  { kind: 'A 2 MB line of prose', exit: 2, run: () => ({ args: [file('long-prose.txt', `${'x'.repeat(2_000_000)}\n`)] }), message: /^waitgraph: no gdb backtrace found in / },
  { kind: 'Unknown `--format`', exit: 2, run: () => ({ args: ['--format', 'xml', file('f.txt', ABBA)] }), message: /^error: option '-f, --format <format>' argument 'xml' is invalid\. Allowed choices are text, json/ },
  { kind: '`--format` without a value', exit: 2, run: () => ({ args: ['-f'] }), message: /^error: option '-f, --format <format>' argument missing$/ },
  { kind: 'Unknown option', exit: 2, run: () => ({ args: ['--frobnicate', file('g.txt', ABBA)] }), message: /^error: unknown option '--frobnicate'$/ },
  { kind: '`redact`: no backtrace in the text', exit: 2, run: () => ({ args: ['redact', file('redact-prose.txt', 'alice wrote: it hangs at /home/alice/app\n')] }), message: /^waitgraph: no gdb backtrace found in .*redact-prose\.txt \(expected lines like "#0  0x… in func \(…\) at file\.c:12"\)$/ },
  { kind: '`redact`: a missing file', exit: 2, run: () => ({ args: ['redact', '--all', join(dir, 'redact-missing.txt')] }), message: /^waitgraph: no such file: .*redact-missing\.txt$/ },
  { kind: '`--redact` followed by a word that is not `all`', exit: 2, run: () => ({ args: ['--redact', 'everything', file('redact-ok.txt', ABBA)] }), message: /^waitgraph: no such file: everything$/ },
  { kind: '`parse --redact` with two dumps', exit: 2, run: () => ({ args: ['parse', file('redact-a.txt', ABBA), '--redact', file('redact-b.txt', ABBA)] }), message: /^waitgraph: parse reads one dump \(got .*redact-b\.txt, .*redact-a\.txt\)$/ },
  { kind: '`--redact` on a binary file', exit: 2, run: () => ({ args: ['--redact', 'all', file('redact-prog', readFileSync(process.execPath).subarray(0, 65536))] }), message: /looks like a binary file, not gdb text output$/ },
  { kind: 'Rule file: unknown field', exit: 2, run: () => ({ args: ['--rules', rule('my.unknown', (y) => y.replace(/^(summary: .*)$/m, '$1\ncolour: red')), file('h.txt', ABBA)] }), message: /^waitgraph: .*my\.unknown\.yaml:\d+: colour: unknown field "colour"$/ },
  { kind: 'Rule file: invalid YAML', exit: 2, run: () => ({ args: ['--rules', file('my.bad.yaml', 'id: [unclosed\n'), file('i.txt', ABBA)] }), message: /^waitgraph: .*my\.bad\.yaml:\d+: invalid YAML: / },
  { kind: 'Rule file: a pattern that could backtrack, `(a+)+b`', exit: 2, run: () => ({ args: ['--rules', rule('my.nested', (y) => y.replace(SLEEP_GLOB, 'regex: "(a+)+b"')), file('j.txt', ABBA)] }), message: /^waitgraph: .*my\.nested\.yaml:\d+: .*regex "\(a\+\)\+b" could take exponential time/ },
  { kind: 'Rule file: stacked ranged repeats, `a{0,1000}a{0,1000}a{0,1000}b`', exit: 2, run: () => ({ args: ['--rules', rule('my.ranges', (y) => y.replace(SLEEP_GLOB, 'regex: "a{0,1000}a{0,1000}a{0,1000}b"')), file('k.txt', ABBA)] }), message: /^waitgraph: .*my\.ranges\.yaml:\d+: .*too many optional or ranged repeats/ },
  { kind: 'Rule file: two unbounded repeats, `.*x.*y`', exit: 2, run: () => ({ args: ['--rules', rule('my.stars', (y) => y.replace(SLEEP_GLOB, 'regex: ".*x.*y"')), file('l.txt', ABBA)] }), message: /^waitgraph: .*my\.stars\.yaml:\d+: .*more than one unbounded quantifier/ },
  { kind: 'Rule file: missing', exit: 2, run: () => ({ args: ['--rules', join(dir, 'nothere.yaml'), file('m.txt', ABBA)] }), message: /^waitgraph: .*nothere\.yaml: rule file not found$/ },
  { kind: 'Rule file: id and file name differ', exit: 2, run: () => ({ args: ['--rules', file('other-name.yaml', SLEEP_RULE.replace('id: glibc.sleep', 'id: my.sleep')), file('n.txt', ABBA)] }), message: /^waitgraph: .*other-name\.yaml:1: id: the id my\.sleep must equal the file name \(other-name\)$/ },
  { kind: '`attach --rules r.yaml PID` (a pid after a rule file)', exit: 2, run: () => ({ args: ['attach', '--rules', rule('my.attach', (y) => y), '4194303'] }), message: /^waitgraph: no process with pid 4194303$/ },
  { kind: '`--save-dump` into a missing folder', exit: 2, run: () => ({ args: ['attach', '--save-dump', join(dir, 'no-folder', 'saved.txt'), '4194303'] }), message: /^waitgraph: cannot write the dump .*no-folder\/saved\.txt: its folder does not exist$/ },
  { kind: 'A rule folder holding a dangling link', exit: 2, run: () => ({ args: ['--rules', danglingRuleFolder(), file('o.txt', ABBA)] }), message: /^waitgraph: .*rules-dangling\/gone\.yaml: cannot read rule file: no such file or directory \(a dangling link\?\) \(ENOENT\)$/ },
  { kind: 'Standard output on a full disk (`> /dev/full`)', exit: 2, stdoutFile: '/dev/full', run: () => ({ args: [file('p.txt', ABBA)] }), message: /^waitgraph: cannot write the report to standard output: no space left on device \(ENOSPC\)$/ },
  { kind: 'A terminal on stdin and no file', exit: 2, tty: true, run: () => ({ args: [] }), message: /^waitgraph: no dump given: pipe gdb into it \(gdb -p PID -batch -ex 'thread apply all bt' \| waitgraph\), name a file, or give - to paste one/ },
  { kind: '`check`: a sidecar with an unknown key (`"cycle"`)', exit: 2, onStdout: true, run: () => ({ args: ['check', checkFolder('typo', '{"verdict": "hang", "cycle": []}\n')] }), message: /^error: .*abba\.txt: .*abba\.expect\.json: unknown key "cycle" \(did you mean "cycles"\?\); a sidecar has verdict, cycles, hung$/ },
  { kind: '`check --strict` where no dump has a sidecar', exit: 2, onStdout: true, run: () => ({ args: ['check', '--strict', checkFolder('bare', null)] }), message: /^nothing was checked: the one dump has no sidecar \(.*\), which is an error with --strict$/ },
  { kind: '`check`: a `hang` sidecar naming other threads than hang', exit: 1, run: () => ({ args: ['check', checkFolder('hung', '{"verdict": "hang", "hung": [2]}\n')] }), message: /abba\.txt\s+hang \[2\]\s+hang \[2,3\]\s+MISMATCH/ },
  { kind: 'A narrow terminal (`COLUMNS=60`)', exit: 1, content: true, run: () => ({ args: [FOUNDING], env: { COLUMNS: '60' } }), message: /^Rules: [a-z., -]+,$/ },
  { kind: '`check --jobs 0`', exit: 2, run: () => ({ args: ['check', '--jobs', '0', checkFolder('jobs', null)] }), message: /^waitgraph: --jobs takes a number of worker threads \(1–999\), not "0"$/ },
  { kind: '`attach`: a pid that does not exist', exit: 2, run: () => ({ args: ['attach', '4194303'] }), message: /^waitgraph: no process with pid 4194303$/ },
  { kind: '`attach`: text that is not a pid', exit: 2, run: () => ({ args: ['attach', '12abc'] }), message: /^waitgraph: not a process id: "12abc"$/ },
  { kind: '`attach`: gdb missing (`WAITGRAPH_GDB=/nonexistent/gdb`)', exit: 2, run: () => ({ args: ['attach', '1'], env: { WAITGRAPH_GDB: '/nonexistent/gdb' } }), message: /^waitgraph: gdb not found \(\/nonexistent\/gdb\); install gdb or set WAITGRAPH_GDB to its path$/ },
  { kind: '`core`: a file that is not a core', exit: 2, run: () => ({ args: ['core', join(ROOT, 'README.md')] }), message: /^waitgraph: not a core file: .*README\.md \(expected an ELF core dump, e.g\. from gcore\)$/ },
  { kind: '`core`: a missing core', exit: 2, run: () => ({ args: ['core', join(dir, 'nothere.core')] }), message: /^waitgraph: core file not found: / },
  { kind: 'LLDB output (`bt all`)', exit: 1, content: true, run: () => ({ args: [file('lldb.txt', "(lldb) bt all\n* thread #1, queue = 'com.apple.main-thread', stop reason = signal SIGSTOP\n  * frame #0: 0x00007fff2045bcde libsystem_kernel.dylib`__psynch_mutexwait + 10\n    frame #1: 0x0000000100003f5a a.out`main + 42\n")] }), message: /^Hang: every thread the dump shows is blocked with no time limit; thread 1 waits/ },
  { kind: 'A dump cut in the middle of a frame', exit: 1, content: true, run: () => ({ args: [file('cut.txt', ABBA.slice(0, ABBA.search(/#2 {2}0x[0-9a-f]+ in lll_mutex_lock_optimized \(mutex=0x/) + 50))] }), message: /waits/ },
  { kind: 'A thread header with no frames', exit: 0, content: true, run: () => ({ args: [file('no-frames.txt', 'Thread 1 (Thread 0x7f (LWP 5) "main"):\nThread 2 (Thread 0x7e (LWP 6) "w"):\n#0  0x1 in f () at a.c:1\n')] }), message: /^ {2}thread 1: no frames shown$/ },
  { kind: 'Duplicated thread ids', exit: 0, content: true, run: () => ({ args: [file('dup.txt', 'Thread 1 (Thread 0x7f (LWP 5) "a"):\n#0  0x1 in f () at a.c:1\n\nThread 1 (Thread 0x7e (LWP 6) "b"):\n#0  0x2 in g () at b.c:2\n')] }), message: /Thread 1 appears again at line 4; both copies are read as one thread's stack\./ },
  { kind: 'Two dumps of the same process in one file', exit: 1, content: true, run: () => ({ args: [file('twice.txt', `${ABBA}\n${ABBA}`)] }), message: /Read as 2 snapshots of one process \(the same LWPs and pthread addresses in each\)/ },
  { kind: 'Invalid UTF-8', exit: 1, content: true, run: () => ({ args: [file('bad-utf8.txt', Buffer.concat([Buffer.from(ABBA.slice(0, 200)), Buffer.from([0xff, 0xfe, 0xc0, 0xaf]), Buffer.from(ABBA.slice(200))]))] }), message: /^Hang: / },
  { kind: 'NUL bytes after the first 8 KiB', exit: 0, content: true, run: () => ({ args: ['--format', 'markdown', file('nul-late.txt', `${ABBA}${'\n'.repeat(9000)}Thread 9 (LWP 9):\n#0  0x1 in f\u0000oo () at a.c:1\n`)] }), message: /f\\x00oo/ },
  { kind: 'A 2 MB single frame line', exit: 0, content: true, run: () => ({ args: [file('long-frame.txt', `#0  0x1 in f (s="${'a'.repeat(2_000_000)}") at x.c:1\n`)] }), message: /^No deadlock or hang found among 1 thread$/ },
  { kind: 'CRLF line ends', exit: 1, content: true, run: () => ({ args: [file('crlf.txt', ABBA.replaceAll('\n', '\r\n'))] }), message: /^Hang: every thread is blocked with no time limit; threads 2, 3 wait/ },
  { kind: 'CR-only line ends (classic Mac)', exit: 1, content: true, run: () => ({ args: [file('cr.txt', ABBA.replaceAll('\n', '\r'))] }), message: /^Hang: every thread is blocked with no time limit; threads 2, 3 wait/ },
  { kind: 'A UTF-8 byte-order mark', exit: 1, content: true, run: () => ({ args: [file('bom.txt', `\ufeff${ABBA}`)] }), message: /^Hang: every thread is blocked with no time limit; threads 2, 3 wait/ },
  { kind: 'Pager prompts, also mid-line', exit: 1, content: true, run: () => ({ args: [file('pager.txt', ABBA.replace(/(#2 {2}0x[0-9a-f]+ in lll_mutex_lock_optimized )/, '--Type <RET> for more, q to quit, c to continue without paging--\n$1').replace('<lock_b>) at', '<lock_b>) --Type <RET> for more, q to quit, c to continue without paging--\nat'))] }), message: /^Hang: every thread is blocked with no time limit; threads 2, 3 wait/ },
  { kind: 'Terminal escapes in thread and function names', exit: 1, content: true, run: () => ({ args: [file('escapes.txt', ABBA.replace('"abba-ba"', '"ba\u0007\u001bz\u202e"').replaceAll('take_b_then_a', 'take_b\u0007\u001bz\u202ethen_a'))] }), message: /at take_b\\x07\\x1bz\\u202ethen_a at / },
  { kind: 'A forged frame inside an argument string', exit: 0, content: true, run: () => ({ args: ['--format', 'json', file('forged-arg.txt', 'Thread 1 (LWP 7):\n#0  0x1 in log_line (s=0x2 "\\n#1  0x3 in pthread_mutex_lock (mutex=0x9)") at l.c:3\n#1  0x4 in main () at m.c:9\n')] }), message: /"threads": \[/ },
];

if (hasPython) {
  ROWS.push({
    kind: '`attach`: a pid that cannot be traced (a zombie)',
    exit: 2,
    run: () => ({ args: ['attach', 'ZOMBIE'] }),
    message: /^waitgraph: cannot attach to pid \d+: .*(zombie|Operation not permitted)/,
  });
}

const ROW_SKIP: Record<string, string | false> = {
  'A terminal on stdin and no file': hasScript ? false : 'script(1) (util-linux) is not installed',
  '`attach`: a pid that cannot be traced (a zombie)': gdbAvailable ? false : 'gdb is not installed',
};

function readmeRows(): Map<string, string> {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const section = readme.slice(readme.indexOf('## Bad input'));
  const rows = new Map<string, string>();
  for (const line of section.split('\n')) {
    const cells = line.split(' | ').map((c) => c.replace(/^\|\s*|\s*\|$/g, '').trim());
    if (line.startsWith('| ') && cells.length >= 3 && !/^-+$/.test(cells[0]!)) rows.set(cells[0]!, cells[1]!);
  }
  return rows;
}

test('the README has a "Bad input" table with a row for every case here, same exit code, at least 30 rows', () => {
  const rows = readmeRows();
  assert.ok(rows.size >= 30, `README table has ${rows.size} rows`);
  const live = [
    { kind: '`core`: a core without its binary', exit: 2 as const, content: false },
    { kind: '`core`: a core whose program was started by a relative path (`./server`)', exit: 0 as const, content: true },
  ];
  for (const row of [...ROWS, ...live]) {
    const cell = rows.get(row.kind);
    assert.ok(cell !== undefined, `README lacks a row for: ${row.kind}`);
    assert.ok(cell.includes(String(row.exit)), `README row "${row.kind}": exit cell ${cell} should say ${row.exit}`);
  }
});

for (const row of ROWS) {
  test(`bad input: ${row.kind} → exit ${row.exit}${row.content === true ? ' (decided by the content)' : ''}`, { skip: ROW_SKIP[row.kind] ?? false }, async () => {
    const spec = await row.run();
    const go = (args: string[]): ReturnType<typeof runWaitgraph> =>
      row.tty === true ? onTerminal(args) : runWaitgraph(args, { ...(spec.input !== undefined ? { input: spec.input } : {}), ...(spec.env ? { env: spec.env } : {}), ...(row.stdoutFile ? { stdoutFile: row.stdoutFile } : {}) });
    const result = spec.args.includes('ZOMBIE') ? await withZombie((pid) => go(spec.args.map((a) => (a === 'ZOMBIE' ? String(pid) : a)))) : go(spec.args);
    assert.equal(result.code, row.exit, `exit code; stderr: ${result.stderr.slice(0, 500)}`);
    assert.doesNotMatch(result.stderr, /^\s+at .*\(.*:\d+:\d+\)$/m, 'no stack trace');
    assert.doesNotMatch(result.stderr, /internal error/);
    if (row.exit === 2 && row.onStdout === true) {
      assert.equal(result.stderr, '', 'the error is in the table, on stdout');
      assert.match(result.stdout, new RegExp(row.message.source, 'm'));
    } else if (row.exit === 2) {
      const lines = result.stderr.trimEnd().split('\n');
      assert.equal(lines.length, 1, `one line on stderr, got: ${result.stderr}`);
      assert.match(lines[0]!, row.message);
      assert.equal(result.stdout, '', 'no report on stdout');
    } else {
      assert.equal(result.stderr, '', 'nothing on stderr');
      assert.match(result.stdout, new RegExp(row.message.source, 'm'));
    }
  });
}

/**
 * The CLI with a terminal on stdin: script(1) gives it a pseudo-terminal and copies what the
 * terminal shows to its stdout (stdout and stderr together, so that is what is checked), and
 * `-e` returns the command's exit code.
 */
function onTerminal(args: string[]): ReturnType<typeof runWaitgraph> {
  const command = [process.execPath, BIN, ...args].map((a) => `'${a.replaceAll("'", "'\\''")}'`).join(' ');
  const r = spawnSync('script', ['-qec', command, '/dev/null'], { encoding: 'utf8', env: { ...process.env, NO_COLOR: '1' }, timeout: 60_000 });
  return { code: r.status ?? -1, stderr: r.stdout.replaceAll('\r\n', '\n'), stdout: '' };
}

test('forging row, checked in detail: the frame inside the string is an argument, not a frame', () => {
  const r = runWaitgraph(['parse', file('forged-arg2.txt', 'Thread 1 (LWP 7):\n#0  0x1 in log_line (s=0x2 "\\n#1  0x3 in pthread_mutex_lock (mutex=0x9)") at l.c:3\n#1  0x4 in main () at m.c:9\n')]);
  assert.equal(r.code, 0, r.stderr);
  const dump = JSON.parse(r.stdout) as { backtraces: Array<{ frames: Array<{ function: string }> }> };
  assert.deepEqual(dump.backtraces.flatMap((b) => b.frames.map((f) => f.function)), ['log_line', 'main']);
});

