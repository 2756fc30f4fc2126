/** What `--redact` replaces and what it keeps, line by line (analyze/redact/). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { redactText, type RedactLevel } from '../../../src/analyze/redact/index.js';
import { loadBuiltinRules } from '../../../src/rules/builtin.js';

const rules = loadBuiltinRules();
const redact = (text: string, level: RedactLevel = 'basic'): string => redactText(text, { level, rules }).text;

const ABBA = [
  'alice@zebra-7:~/proj$ gdb -p 4242 -batch -ex "thread apply all bt"',
  'Thread 2 (Thread 0x7f00 (LWP 12) "alice-pool"):',
  '#0  0x00007f0de9c8a482 in __lll_lock_wait (futex=0x5555555580a0 <lock_b>, private=0) at ./nptl/lowlevellock.c:49',
  '#1  0x00007f0de9c8a483 in ___pthread_mutex_lock (mutex=0x5555555580a0 <lock_b>) at ./nptl/pthread_mutex_lock.c:93',
  '#2  0x0000555555555200 in take_a_then_b (name=0x5555556 "open sesame", path=0x5555557 "/home/alice/x.db", c=97 \'"\') at /home/alice/proj/vault.c:17',
  '#3  0x00007f0de9c871f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442',
  '',
  'Thread 1 (Thread 0x7f01 (LWP 11) "app"):',
  '#0  0x00007f0de9c8a482 in __lll_lock_wait (futex=0x5555555580e0 <lock_a>, private=0) at ./nptl/lowlevellock.c:49',
  '#1  0x00007f0de9c8a483 in ___pthread_mutex_lock (mutex=0x5555555580e0 <lock_a>) at ./nptl/pthread_mutex_lock.c:93',
  '#2  0x0000555555555300 in take_b_then_a (name=0x5555556 "open sesame") at /home/alice/proj/vault.c:27',
  '#3  0x0000555555555400 in main () at /home/alice/proj/vault.c:40',
  '',
].join('\n');

test('home directories, the user names in them and prompt hosts become placeholders; addresses stay', () => {
  const out = redact(ABBA).split('\n');
  assert.equal(out[0], '<user>@<host>:~/proj$ gdb -p 4242 -batch -ex <str#1>');
  assert.equal(out[1], 'Thread 2 (Thread 0x7f00 (LWP 12) "<user>-pool"):', 'a thread name stays a string, the user in it is hidden');
  assert.equal(out[4], '#2  0x0000555555555200 in take_a_then_b (name=0x5555556 <str#2>, path=0x5555557 <str#3>, c=97 \'"\') at <home>/proj/vault.c:17');
  assert.equal(out[10], '#2  0x0000555555555300 in take_b_then_a (name=0x5555556 <str#2>) at <home>/proj/vault.c:27', 'the same string, the same placeholder');
  assert.equal(out[2], '#0  0x00007f0de9c8a482 in __lll_lock_wait (futex=0x5555555580a0 <lock_b>, private=0) at ./nptl/lowlevellock.c:49', 'runtime frames are kept');
  assert.equal(out.length, ABBA.split('\n').length);
});

test('--redact all: the functions, files and libraries of the user\'s own code too, wherever they recur', () => {
  const text = `${ABBA}#4  0x0000555555555500 in helper (f=0x555555555200 <take_a_then_b>) from /opt/corp/libvault.so\n`;
  const out = redact(text, 'all').split('\n');
  assert.equal(out[4], '#2  0x0000555555555200 in <fn#1> (name=0x5555556 <str#2>, path=0x5555557 <str#3>, c=97 \'"\') at <file#1>:17');
  assert.equal(out[11], '#3  0x0000555555555400 in main () at <file#1>:40', 'main is no secret; its file is');
  assert.equal(out[12], '#4  0x0000555555555500 in <fn#3> (f=0x555555555200 <fn#1>) from <lib#1>', 'a function pointer names its placeholder');
  assert.match(out[3] as string, /in ___pthread_mutex_lock \(mutex=0x5555555580a0 <lock_b>\) at \.\/nptl\/pthread_mutex_lock\.c:93$/);
});

test('the same input gives the same placeholders, numbered in order of first appearance', () => {
  const a = redactText(ABBA, { level: 'all', rules });
  const b = redactText(ABBA, { level: 'all', rules });
  assert.equal(a.text, b.text);
  assert.deepEqual(a.counts, { home: 1, user: 1, host: 1, str: 3, fn: 2, file: 1, lib: 0 });
  assert.deepEqual(redactText(ABBA, { level: 'basic', rules }).counts, { home: 1, user: 1, host: 1, str: 3, fn: 0, file: 0, lib: 0 });
});

test('home directory shapes: /home, /Users, /root, cluster and Windows homes; two users get two placeholders', () => {
  const text = [
    '#0  0x1 in f () at /home/alice/a.c:1',
    '#1  0x2 in g () from /Users/bob/lib/libg.dylib',
    '#2  0x3 in h () at /root/src/h.c:3',
    '#3  0x4 in i () at /nfs/home/carol/i.c:4',
    '#4  0x5 in j () at C:\\Users\\dave\\src\\j.c:5',
    '#5  0x6 in k () at /opt/xhome/k.c:6',
    '[New Thread 0x7f (LWP 9)] bob said: see /tmp/bob-build/log',
  ].join('\n');
  assert.deepEqual(redact(text).split('\n'), [
    '#0  0x1 in f () at <home>/a.c:1',
    '#1  0x2 in g () from <home#2>/lib/libg.dylib',
    '#2  0x3 in h () at <home#3>/src/h.c:3',
    '#3  0x4 in i () at <home#4>/i.c:4',
    '#4  0x5 in j () at <home#5>\\src\\j.c:5',
    '#5  0x6 in k () at /opt/xhome/k.c:6',
    '[New Thread 0x7f (LWP 9)] <user#2> said: see /tmp/<user#2>-build/log',
  ]);
});

test('generic account names keep their word where it recurs; their home is still hidden', () => {
  const out = redact('#0  0x1 in runner_loop () at /home/runner/work/app/main.c:1\n#1  0x2 in build () at build.c:3\n');
  assert.equal(out, '#0  0x1 in runner_loop () at <home>/work/app/main.c:1\n#1  0x2 in build () at build.c:3\n');
});

test('host names in banners: coredumpctl, uname, syslog, gdbserver, ssh', () => {
  const text = [
    '      Hostname: kestrel',
    'Linux falcon.corp.example 6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 x86_64 GNU/Linux',
    'Dec 02 01:02:03 osprey systemd-coredump[4242]: Process 4241 (app) of user 1000 dumped core.',
    'Remote debugging from host 10.1.2.3, port 40000',
    'ssh erin@heron.lab.example',
    '#0  0x1 in f () at kestrel-falcon-osprey.c:1',
    'falcon says hi; localhost stays',
  ].join('\n');
  assert.deepEqual(redact(text).split('\n'), [
    '      Hostname: <host>',
    'Linux <host#2> 6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 x86_64 GNU/Linux',
    'Dec 02 01:02:03 <host#4> systemd-coredump[4242]: Process 4241 (app) of user 1000 dumped core.',
    'Remote debugging from host <host#5>, port 40000',
    'ssh <user>@<host#6>',
    '#0  0x1 in f () at <host>-<host#3>-<host#4>.c:1',
    '<host#3> says hi; localhost stays',
  ]);
});

test('strings: escapes, a cut string, locals and prints; thread names and char literals stay; line ends kept', () => {
  const text = [
    'Thread 3 (Thread 0x7f02 (LWP 13) "reader"):',
    '#0  0x1 in f (s=0x2 "a \\"quoted\\" word", t=0x3 "cut off',
    '        buf = "secret\\000", \'\\000\' <repeats 10 times>',
    '$1 = 0x4 "answer"',
    'Thread 3 "reader" received signal SIGSEGV, Segmentation fault.',
  ].join('\r\n');
  assert.deepEqual(redact(text).split('\r\n'), [
    'Thread 3 (Thread 0x7f02 (LWP 13) "reader"):',
    '#0  0x1 in f (s=0x2 <str#1>, t=0x3 <str#2>',
    '        buf = <str#3>, \'\\000\' <repeats 10 times>',
    '$1 = 0x4 <str#4>',
    'Thread 3 "reader" received signal SIGSEGV, Segmentation fault.',
  ]);
});

test('Julia and LLDB dumps: mangled C++ names and module`function frames', () => {
  const julia = [
    '==== Thread 1 created 1 live tasks',
    '     ---- Root task (0x784101a40010)',
    '          (sticky: 1, started: 1, state: 0, tid: 1)',
    'secret_kernel at /home/alice/Vault.jl/src/Vault.jl:12',
    '_ZN5vault6Engine3runEv at /home/alice/build/libvault.so (unknown line)',
    'jl_apply at /cache/build/julia/src/julia.h:1982 [inlined]',
    'wait at ./task.jl:995',
  ].join('\n');
  assert.deepEqual(redact(julia, 'all').split('\n').slice(3), [
    '<fn#1> at <file#1>:12',
    '<fn#2> at <lib#1> (unknown line)',
    'jl_apply at /cache/build/julia/src/julia.h:1982 [inlined]',
    'wait at ./task.jl:995',
  ]);
  const lldb = [
    '* thread #1, queue = \'com.apple.main-thread\', stop reason = signal SIGSTOP',
    '  * frame #0: 0x00000001800f1234 libsystem_kernel.dylib`__psynch_mutexwait + 8',
    '    frame #1: 0x0000000100003f00 vault`unlock_vault(name="hunter2") + 32 at /Users/alice/vault/main.c:12:5',
  ].join('\n');
  const out = redact(lldb, 'all').split('\n');
  assert.equal(out[1], '  * frame #0: 0x00000001800f1234 libsystem_kernel.dylib`__psynch_mutexwait + 8');
  assert.doesNotMatch(out[2] as string, /alice|unlock_vault|hunter2|main\.c/);
  assert.match(out[2] as string, /^ {4}frame #1: 0x0000000100003f00 /);
});

test('odd input: empty text, no newline at the end, CR-only line ends, binary-ish bytes', () => {
  assert.equal(redact(''), '');
  assert.equal(redact('#0  0x1 in f () at /home/alice/a.c:1'), '#0  0x1 in f () at <home>/a.c:1');
  assert.equal(redact('#0  0x1 in f () at /home/alice/a.c:1\r#1  0x2 in g () at /home/alice/b.c:2\r'), '#0  0x1 in f () at <home>/a.c:1\r#1  0x2 in g () at <home>/b.c:2\r');
  assert.equal(redact('\u0000\u001b[31m#0\u001b[0m /home/alice'), '\u0000\u001b[31m#0\u001b[0m <home>');
});
