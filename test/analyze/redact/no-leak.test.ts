/**
 * A planted secret never leaves a redacted dump: a fast-check property writes dumps (a mutex
 * cycle, with or without owner prints, and other threads) with one secret word planted in the
 * places a dump names people, machines and code — a home directory's user (and where that user
 * recurs: a thread name, a /tmp path), a prompt's user or host, a banner's host, string arguments
 * of the user's and of runtime frames, `bt full` locals, print answers, the dump's own path and,
 * for `--redact all`, function, file and library names and function pointers — then looks for it
 * in the redacted text, its parsed model and every report format. The same redaction the CLI runs
 * (redactText, then analyzeText on its text, then each reporter).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { analyzeText } from '../../../src/analyze/index.js';
import { redactText, type RedactLevel } from '../../../src/analyze/redact/index.js';
import { parseDump } from '../../../src/parse/index.js';
import { createChalk, FORMATS, reporters } from '../../../src/report/index.js';
import { loadBuiltinRules } from '../../../src/rules/builtin.js';

const rules = loadBuiltinRules();
const chalk = createChalk({ isTTY: false, env: {} });

/** Where the secret goes; each place is on or off. */
interface Plant {
  homeUser: boolean;
  promptUser: boolean;
  promptHost: boolean;
  banner: 0 | 1 | 2 | 3 | 4 | 5;
  userArg: boolean;
  runtimeArg: boolean;
  local: boolean;
  print: boolean;
  dumpPath: boolean;
  /** `--redact all` only: */
  functionName: boolean;
  fileName: boolean;
  libraryName: boolean;
  functionPointer: boolean;
  owners: boolean;
  sleepers: number;
}

const LIBC = './nptl/pthread_mutex_lock.c';

function mutexWait(n: number, lwp: number, lock: string, name: string, fn: string, file: string, args: string, lib: string | null): string[] {
  return [
    `Thread ${n} (Thread 0x7f61${n}f0a16c0 (LWP ${lwp}) "${name}"):`,
    `#0  futex_wait (private=0, expected=2, futex_word=${lock} <lock_${n}>) at ../sysdeps/nptl/futex-internal.h:146`,
    `#1  __GI___lll_lock_wait (futex=futex@entry=${lock} <lock_${n}>, private=0) at ./nptl/lowlevellock.c:49`,
    `#2  0x00007f611f932482 in lll_mutex_lock_optimized (mutex=${lock} <lock_${n}>) at ${LIBC}:48`,
    `#3  ___pthread_mutex_lock (mutex=${lock} <lock_${n}>) at ${LIBC}:93`,
    `#4  0x0000561c67ba232a in ${fn} (${args}) at ${file}:${20 + n}`,
    ...(lib !== null ? [`#5  0x0000561c67ba2400 in ?? () from ${lib}`] : []),
    `#6  0x00007f611f92f1f5 in start_thread (arg=<optimized out>) at ./nptl/pthread_create.c:442`,
    `#7  0x00007f611f9af8ec in clone3 () at ../sysdeps/unix/sysv/linux/x86_64/clone3.S:81`,
    '',
  ];
}

function plantedDump(s: string, p: Plant, level: RedactLevel): { text: string; path: string } {
  const all = level === 'all';
  const user = p.homeUser ? s : 'carol';
  const home = `/home/${user}`;
  const fn = (base: string): string => (all && p.functionName ? `${s}_${base}` : base);
  const file = (base: string): string => `${home}/proj/src/${all && p.fileName ? `${s}_${base}` : base}.c`;
  const lib = all && p.libraryName ? `/opt/corp/lib${s}.so` : p.homeUser ? `${home}/lib/libplug.so` : null;
  const arg = (name: string): string => (p.userArg ? `${name}=0x561c68e012a0 "token ${s} here"` : `${name}=0x0`);
  const lines: string[] = [];
  if (p.promptUser || p.promptHost) lines.push(`${p.promptUser ? s : 'dave'}@${p.promptHost ? s : 'osprey'}:~/proj$ gdb -q -p 6169`);
  const banners = [
    `      Hostname: ${s}`,
    `Linux ${s} 6.1.0-13-amd64 #1 SMP PREEMPT_DYNAMIC Debian 6.1.55-1 x86_64 GNU/Linux`,
    `Dec 02 01:02:03 ${s} systemd-coredump[6170]: Process 6169 (app) of user 1000 dumped core.`,
    `Remote debugging from host ${s}, port 40000`,
    `ssh erin@${s}.corp.example`,
  ];
  if (p.banner > 0) lines.push(banners[p.banner - 1] as string);
  if (p.homeUser) lines.push(`[New Thread 0x7f61 (LWP 6172)] build log in /tmp/${s}-build/out.txt`);
  lines.push('(gdb) thread apply all bt', '');
  const poolName = p.homeUser ? `${s}-pool` : 'pool';
  lines.push(...mutexWait(3, 6171, '0x561c67ba50a0', poolName, fn('take_b_then_a'), file('sync'), arg('db'), lib));
  lines.push(...mutexWait(2, 6170, '0x561c67ba50e0', 'index', fn('take_a_then_b'), file('index'), arg('key'), null));
  if (p.local || p.runtimeArg || p.functionPointer) {
    lines.push(`Thread 4 (Thread 0x7f614f0a16c0 (LWP 6173) "setter"):`);
    lines.push(`#0  0x00007f611f9a1234 in __pthread_setname_np (th=1, name=0x561c68e01400 "${p.runtimeArg ? s : 'setter'}") at ./nptl/pthread_setname.c:40`);
    lines.push(`#1  0x0000561c67ba2500 in std::__invoke_impl<void, void (*)()> (__f=@0x561cc1c1e008: 0x561c8643b398 <${all && p.functionPointer ? `${s}_entry` : 'entry'}()>) at /usr/include/c++/12/bits/invoke.h:61`);
    lines.push(`#2  0x0000561c67ba2600 in ${fn('setter_main')} () at ${file('setter')}:9`);
    if (p.local) lines.push(`        secret = 0x561c68e01500 "${s}"`, '        count = 3');
    lines.push('');
  }
  for (let i = 0; i < p.sleepers; i++) {
    lines.push(`Thread ${5 + i} (Thread 0x7f61${5 + i}00000 (LWP ${6174 + i}) "sleeper"):`);
    lines.push(`#0  0x00007f611f9e0f45 in __GI___clock_nanosleep (clock_id=0, flags=0, req=0x7f61a0, rem=0x7f61b0) at ../sysdeps/unix/sysv/linux/clock_nanosleep.c:48`);
    lines.push(`#1  0x00007f611f9e5a53 in __GI___nanosleep (req=<optimized out>, rem=<optimized out>) at ../sysdeps/unix/sysv/linux/nanosleep.c:25`);
    lines.push(`#2  0x0000561c67ba2700 in ${fn('idle')} () at ${file('idle')}:5`, '');
  }
  if (p.owners) {
    for (const [n, addr, owner] of [[1, '0x561c67ba50a0', 6170], [2, '0x561c67ba50e0', 6171]] as const) {
      lines.push(`(gdb) p *(pthread_mutex_t *) ${addr}`);
      lines.push(`$${n} = {__data = {__lock = 2, __count = 0, __owner = ${owner}, __nusers = 1, __kind = 0, __spins = 0, __elision = 0, __list = {__prev = 0x0, __next = 0x0}}, __size = "\\002\\000", '\\000' <repeats 29 times>, __align = 2}`);
    }
  }
  if (p.print) lines.push('(gdb) p config->name', `$9 = 0x561c68e01600 "${s}"`);
  return { text: `${lines.join('\n')}\n`, path: p.dumpPath ? `/home/${s}/dumps/hang.txt` : 'dumps/hang.txt' };
}

const plant: fc.Arbitrary<Plant> = fc.record({
  homeUser: fc.boolean(),
  promptUser: fc.boolean(),
  promptHost: fc.boolean(),
  banner: fc.constantFrom(0, 1, 2, 3, 4, 5),
  userArg: fc.boolean(),
  runtimeArg: fc.boolean(),
  local: fc.boolean(),
  print: fc.boolean(),
  dumpPath: fc.boolean(),
  functionName: fc.boolean(),
  fileName: fc.boolean(),
  libraryName: fc.boolean(),
  functionPointer: fc.boolean(),
  owners: fc.boolean(),
  sleepers: fc.integer({ min: 0, max: 2 }),
});

/** A word no template holds: `zq` and a few letters and digits. */
const secret = fc.stringMatching(/^[a-z][a-z0-9]{4,8}$/).map((w) => `zq${w}`);

async function leaks(s: string, p: Plant, level: RedactLevel): Promise<string[]> {
  const { text, path } = plantedDump(s, p, level);
  fc.pre(text.includes(s) || path.includes(s));
  const redacted = redactText(text, { level, rules });
  const analysis = analyzeText(redacted.text, { rules });
  const input = redacted.label(path);
  const outputs: Array<[string, string]> = [
    ['redacted text', redacted.text],
    ['parse', JSON.stringify(parseDump(redacted.text))],
  ];
  for (const format of FORMATS) outputs.push([format, await reporters[format](analysis, { chalk, input })]);
  return outputs.filter(([, out]) => out.toLowerCase().includes(s)).map(([name]) => name);
}

for (const level of ['basic', 'all'] as const) {
  test(`--redact${level === 'all' ? ' all' : ''}: a planted secret shows in no format (text, json, markdown, mermaid, dot, svg, sarif, html, github, parse)`, async () => {
    await fc.assert(
      fc.asyncProperty(secret, plant, async (s, p) => {
        assert.deepEqual(await leaks(s, p, level), [], `secret ${s} in ${JSON.stringify(p)}`);
      }),
      { numRuns: 40, seed: level === 'all' ? 1702 : 1701 },
    );
  });
}

test('the property can fail: without redaction the planted secret shows in the formats that print names', async () => {
  const p: Plant = { homeUser: true, promptUser: false, promptHost: false, banner: 0, userArg: false, runtimeArg: false, local: false, print: false, dumpPath: false, functionName: false, fileName: false, libraryName: false, functionPointer: false, owners: true, sleepers: 0 };
  const { text } = plantedDump('zqplanted', p, 'basic');
  const analysis = analyzeText(text, { rules });
  assert.equal(analysis.verdict, 'deadlock');
  const showing: string[] = [];
  for (const format of FORMATS) if ((await reporters[format](analysis, { chalk, input: 'dumps/hang.txt' })).includes('zqplanted')) showing.push(format);
  // Mermaid, DOT and SVG draw thread numbers and resources; GitHub's annotations the cycle's waits.
  for (const format of ['text', 'json', 'markdown', 'sarif', 'html']) assert.ok(showing.includes(format), `${format} shows the thread name and path: ${showing.join(', ')}`);
});
