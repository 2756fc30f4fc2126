/**
 * fast-check arbitraries for hostile dumps, shared by the property tests and `npm run fuzz`:
 * arbitrary strings, gdb-shaped noise built from the pieces real dumps are made of, and mutations
 * of every fixture (lines deleted, duplicated, cut, shuffled; random bytes, NUL, CRLF, pager
 * prompts anywhere, forged thread headers and frames, deep nesting, long templates).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { FIXTURES, ruleFixtureFiles } from '../helpers/paths.js';

/** Every `*.txt` under fixtures/ (dumps, captured live dumps, shape fixtures, golden text reports). */
export function fixtureTexts(): Array<{ name: string; text: string }> {
  const out: Array<{ name: string; text: string }> = [];
  const walk = (dir: string): void => {
    for (const entry of readdirSync(dir).sort()) {
      const path = join(dir, entry);
      if (statSync(path).isDirectory()) walk(path);
      else if (entry.endsWith('.txt')) out.push({ name: path.slice(FIXTURES.length + 1), text: readFileSync(path, 'utf8') });
    }
  };
  walk(FIXTURES);
  return out;
}

/** A Julia signal or task dump, or LLDB's `bt all`: text of the parser's other dialects. */
const DIALECT = /^(?:signal \(\d+\): |\[\d+\] signal \d+|==== Thread \d+ created|[ \t]*\*?[ \t]*frame #\d+: )/m;

/**
 * The Julia and LLDB fixtures (fixtures/ and the rule packs' own fixtures), the seeds the
 * dialect mutations start from, so the fuzzer spends its cases on those readers too and not only
 * where they make up a few of the fixtures.
 */
export function dialectFixtureTexts(): Array<{ name: string; text: string }> {
  const fromPacks = ruleFixtureFiles().map((path) => ({ name: path, text: readFileSync(path, 'utf8') }));
  return [...fixtureTexts(), ...fromPacks].filter((f) => DIALECT.test(f.text));
}

const PAGER_PROMPTS = [
  '--Type <RET> for more, q to quit, c to continue without paging--',
  '--Type <RET> for more, q to quit, c to continue without paging--q',
  '--Type <RET> for more, q to quit, c to continue without paging--c',
  '---Type <return> to continue, or q <return> to quit---',
  '---Type <return> to continue, or q <return> to quit---q',
];

/** Pieces gdb output is made of, and the pieces pastes add. */
const PIECES = [
  '#0  ', '#1  ', '#12 ', '#', '0x00007ffff7e2a117', '0x0', ' in ', 'pthread_mutex_lock', '__lll_lock_wait', 'std::future<void>::get',
  'f', '(', ')', ' (', '()', '(...)', ' ()', '=', ', ', 'mutex=0x5555555580a0 <lock_a>', '<', '>', '<optimized out>', '"', "'", '\\',
  ' at ', 'file.c:12', ' from ', '/lib/x86_64-linux-gnu/libc.so.6', ':', 'Thread ', '1', '2', '9', '1.4', ' (Thread 0x7ffff7d8a640 (LWP 1234)', ' (LWP 42)',
  ' "name"', '):', ')', '[New Thread 0x7f (LWP 1)]', '(gdb) ', 'bt', 'thread apply all bt', 'bt full', '(More stack frames follow...)',
  'Backtrace stopped: previous frame inner to this frame (corrupt stack?)', 'No locals.', '        i = 0', '        s = {a = 1, b = {', '}',
  '...', '$1 = {__data = {__lock = 2, __count = 0, __owner = 1234, __nusers = 1}}', 'p *(pthread_mutex_t *) 0x5555555580a0',
  '<signal handler called>', '<function called from gdb>', 'Quit', '[Switching to thread 2 (Thread 0x7f (LWP 5))]', 'Thread 3 "x" received signal SIGINT, Interrupt.',
  ...PAGER_PROMPTS, ' ', '  ', '\t', '\n', '\n', '\n', '\r\n', '\r', '\u0000', '\u001b[31m', '\u001b[m', '\u001b]8;;http://x\u001b\\', '\u0007', '\b',
  '\u202e', '\u2028', '\ufeff', '\u200b', '&lt;', '&gt;', '<p>', '> ', '```', 'é', '日本', '\ud83d\ude00', '\ud800', '\udfff', '{', '[', ']', '@entry=', '@plt',
  '.constprop.0', '::', 'operator()', 'std::vector<std::pair<int, char>>', 'Task ID 1:', '(lldb) ', '* thread #1, name = \'x\', stop reason = signal SIGSTOP',
  '  frame #0: 0x00007fff in libsystem_kernel.dylib`__psynch_mutexwait + 8',
  // Julia's own dumps (src/parse/julia.ts)
  'signal (10): User defined signal 1', '[9614] signal 11 (1): Segmentation fault', 'signal (6): Aborted', 'cmd: /usr/bin/julia 9614 running 2 of 5',
  ' at ./task.jl:921', ' at /cache/build/src/safepoint.c:172', ' [inlined]', ' (unknown line)', 'unknown function (ip: 0x7c1c1496f10e)',
  'unknown function (ip: (nil))', '==== Thread 7 created 2 live tasks', '     ---- Root task (0x7840e8010010)', '     ---- Task 1 (0x7840e4010400)',
  '          (sticky: 1, started: 1, state: 0, tid: 7)', '     ---- End root task', '     ---- End task 1', '==== End thread 7', '==== Done',
  'jl_safepoint_wait_gc', 'macro expansion', '#251#threadsfor_fun', 'in expression starting at REPL[4]:1', 'no backtrace recorded',
  'Allocations: 7431022 (Pool: 7429470; Big: 1552); GC: 11', '_ZNSt6futureImE3getEv', ' at /usr/lib/libc.so.6',
  // LLDB's `bt all` (src/parse/lldb.ts)
  "thread #2: tid = 18364, 0x00007fff8e5e1f06 libsystem_kernel.dylib`__pthread_kill + 10, queue = 'com.apple.main-thread', stop reason = signal SIGABRT",
  '  thread #7, name = \'julia\', stop reason = signal SIGSTOP', '    frame #3: ', '  * frame #0: ', '`', ' + 29', ':4:6', ' [opt]', ' [artificial]', ' [inlined] ',
  'stop reason = EXC_BAD_ACCESS (code=1, address=0x0)', '___lldb_unnamed_symbol3105$$libc.so.6', 'JIT(0x7840e4a01000)`', 'libsystem_platform.dylib`_sigtramp',
];

/** gdb-shaped text: a sequence of real pieces and arbitrary strings. */
export const gdbNoise: fc.Arbitrary<string> = fc
  .array(fc.oneof({ weight: 6, arbitrary: fc.constantFrom(...PIECES) }, { weight: 1, arbitrary: fc.string({ unit: 'binary', maxLength: 12 }) }), { maxLength: 80 })
  .map((parts) => parts.join(''));

/** Arbitrary strings of any unit: grapheme, full Unicode (lone surrogates included), binary. */
export const anyString: fc.Arbitrary<string> = fc.oneof(
  fc.string({ maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc.string({ unit: 'grapheme', maxLength: 60 }),
  fc.string({ unit: fc.constantFrom('#', '0', ' ', '(', ')', '"', '\n', 'T', '<', '>', '=', ','), maxLength: 300 }),
);

/** A forged header or frame line, shaped to look real. */
const forgedLine: fc.Arbitrary<string> = fc.oneof(
  fc.tuple(fc.nat(999), fc.string({ maxLength: 20 })).map(([n, name]) => `Thread ${n} (Thread 0x7f00 (LWP ${n}) "${name}"):`),
  fc.tuple(fc.nat(99), fc.string({ maxLength: 20 })).map(([n, f]) => `#${n}  0x0000000000401136 in ${f} (x=1) at f.c:${n}`),
  fc.constantFrom('Thread 1 (Thread 0x1 (LWP 1) "a\\"):"):', '#1  0x1 in fake () at x.c:1', 'Thread 2 (LWP 2):', '#0  f (a="#1  0x2 in forged ()") at a.c:1'),
  fc.tuple(fc.string({ maxLength: 20 }), fc.string({ maxLength: 20 }), fc.nat(9999), fc.boolean()).map(([f, file, n, inlined]) => `${f} at ${file}:${n}${inlined ? ' [inlined]' : ''}`),
  fc.tuple(fc.nat(99), fc.string({ maxLength: 20 })).map(([n, name]) => `signal (${n}): ${name}`),
  fc.tuple(fc.nat(999), fc.string({ maxLength: 20 })).map(([n, name]) => `  thread #${n}, name = '${name}', stop reason = signal SIGSTOP`),
  fc.tuple(fc.nat(99), fc.string({ maxLength: 12 }), fc.string({ maxLength: 20 }), fc.nat(9999)).map(([n, lib, f, line]) => `    frame #${n}: 0x00000001000012f0 ${lib}\`${f} at w.c:${line}:3`),
);

/** Deep nesting of parentheses, braces or templates, possibly unbalanced. */
const nested: fc.Arbitrary<string> = fc
  .tuple(fc.integer({ min: 1, max: 3000 }), fc.constantFrom(['(', ')'], ['<', '>'], ['{', '}'], ['[', ']'], ['"', '"']), fc.boolean())
  .map(([depth, [open, close], balanced]) => `#0  0x1 in f (x=${open!.repeat(depth)}y${balanced ? close!.repeat(depth) : ''}) at a.c:1`);

type Mutation = (lines: string[]) => string[];

const mutation: fc.Arbitrary<Mutation> = fc.oneof(
  fc.nat().map((i): Mutation => (lines) => lines.filter((_, j) => j !== i % Math.max(1, lines.length))),
  fc.nat().map((i): Mutation => (lines) => (lines.length === 0 ? lines : [...lines.slice(0, (i % lines.length) + 1), ...lines.slice(i % lines.length)])),
  fc.tuple(fc.nat(), fc.nat()).map(([i, at]): Mutation => (lines) => {
    if (lines.length === 0) return lines;
    const k = i % lines.length;
    const copy = lines.slice();
    copy[k] = copy[k]!.slice(0, at % (copy[k]!.length + 1));
    return copy;
  }),
  fc.tuple(fc.nat(), fc.nat()).map(([i, j]): Mutation => (lines) => {
    if (lines.length < 2) return lines;
    const copy = lines.slice();
    const a = i % lines.length;
    const b = j % lines.length;
    [copy[a], copy[b]] = [copy[b]!, copy[a]!];
    return copy;
  }),
  fc.tuple(fc.nat(), fc.nat(), fc.oneof(fc.string({ unit: 'binary', maxLength: 16 }), fc.constantFrom(...PIECES), forgedLine)).map(
    ([i, at, piece]): Mutation =>
      (lines) => {
        if (lines.length === 0) return [piece];
        const copy = lines.slice();
        const k = i % copy.length;
        const line = copy[k]!;
        const pos = at % (line.length + 1);
        copy[k] = line.slice(0, pos) + piece + line.slice(pos);
        return copy;
      },
  ),
  fc.tuple(fc.nat(), fc.oneof(forgedLine, nested, fc.constantFrom(...PAGER_PROMPTS), gdbNoise)).map(([i, line]): Mutation => (lines) => {
    const copy = lines.slice();
    copy.splice(i % (copy.length + 1), 0, line);
    return copy;
  }),
  fc.constant<Mutation>((lines) => lines.map((l) => `${l}\r`)),
  fc.constant<Mutation>((lines) => lines.slice().reverse()),
  fc.nat().map((n): Mutation => (lines) => lines.slice(0, n % (lines.length + 1))),
);

/** A fixture (or a window of it) with 1–6 mutations. */
export function mutatedFixture(fixtures: ReadonlyArray<{ text: string }>, options: { window?: number } = {}): fc.Arbitrary<string> {
  return fc
    .tuple(fc.nat(fixtures.length - 1), fc.nat(), fc.array(mutation, { minLength: 1, maxLength: 6 }), fc.boolean())
    .map(([f, start, mutations, finalNewline]) => {
      let lines = fixtures[f]!.text.split('\n');
      if (options.window !== undefined && lines.length > options.window) {
        const s = start % (lines.length - options.window);
        lines = lines.slice(s, s + options.window);
      }
      for (const m of mutations) lines = m(lines);
      const text = lines.join('\n');
      return finalNewline ? text : text.replace(/\n$/, '');
    });
}

/**
 * Everything at once, weighted toward dump-shaped text; with `dialects` (dialectFixtureTexts),
 * mutations of the Julia and LLDB fixtures get a share of their own.
 */
export function hostileText(fixtures: ReadonlyArray<{ text: string }>, options: { window?: number; dialects?: ReadonlyArray<{ text: string }> } = {}): fc.Arbitrary<string> {
  const dialects = options.dialects ?? [];
  return fc.oneof(
    { weight: 2, arbitrary: anyString },
    { weight: 3, arbitrary: gdbNoise },
    { weight: 1, arbitrary: fc.array(fc.oneof(forgedLine, nested, gdbNoise), { maxLength: 8 }).map((l) => l.join('\n')) },
    { weight: 5, arbitrary: mutatedFixture(fixtures, options) },
    ...(dialects.length > 0 ? [{ weight: 2, arbitrary: mutatedFixture(dialects, options) }] : []),
  );
}

/** Bytes for the Buffer path: a fixture's bytes with invalid UTF-8 sequences and NULs spliced in. */
export function hostileBytes(fixtures: ReadonlyArray<{ text: string }>): fc.Arbitrary<Buffer> {
  const bad = fc.constantFrom(
    [0xff],
    [0xc0, 0xaf],
    [0xe2, 0x82],
    [0xed, 0xa0, 0x80],
    [0xf4, 0x90, 0x80, 0x80],
    [0x80],
    [0x00],
    [0xe2, 0x80, 0xae],
    [0x1b, 0x5b, 0x33, 0x31, 0x6d],
  );
  return fc.tuple(mutatedFixture(fixtures, { window: 40 }), fc.array(fc.tuple(fc.nat(), bad), { maxLength: 10 }), fc.uint8Array({ maxLength: 32 })).map(([text, inserts, tail]) => {
    let bytes = Buffer.from(text, 'utf8');
    for (const [at, seq] of inserts) {
      const pos = bytes.length === 0 ? 0 : at % bytes.length;
      bytes = Buffer.concat([bytes.subarray(0, pos), Buffer.from(seq), bytes.subarray(pos)]);
    }
    return Buffer.concat([bytes, Buffer.from(tail)]);
  });
}
