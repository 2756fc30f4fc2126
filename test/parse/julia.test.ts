/**
 * Julia's own dumps (src/parse/julia.ts): signal blocks, jl_print_task_backtraces, frame lines,
 * the process line, and the published Julia dumps of ../shared/corpus (041, 042, 043), each
 * parsed with every line accounted for (skipped when the corpus is absent).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDump } from '../../src/parse/index.js';
import { analyzeText } from '../../src/analyze/index.js';
import { readJuliaFrame } from '../../src/parse/julia.js';
import { exactAccountingProblems, SHAPES_DIR } from './fixtures.js';
import { HAS_SHARED_CORPUS, SHARED_CORPUS } from '../helpers/paths.js';

test('julia: frame lines — location, unknown line (a library), inlined, unknown function, a raw C++ symbol, a cut line', () => {
  const f = (text: string) => readJuliaFrame(text, 0)!;
  assert.deepEqual([f('uv_cond_wait at /workspace/srcdir/libuv/src/unix/thread.c:883').file, f('uv_cond_wait at /workspace/srcdir/libuv/src/unix/thread.c:883').line], ['/workspace/srcdir/libuv/src/unix/thread.c', 883]);
  const lib = f('pthread_cond_wait at /lib/aarch64-linux-gnu/libpthread.so.0 (unknown line)');
  assert.deepEqual([lib.library, lib.file, lib.line], ['/lib/aarch64-linux-gnu/libpthread.so.0', null, null]);
  const inl = f('gc at ./gcutils.jl:129 [inlined]');
  assert.deepEqual([inl.function, inl.inlined, inl.language], ['gc', true, 'julia']);
  assert.equal(f('macro expansion at /home/u/t.jl:209 [inlined]').language, 'julia');
  assert.equal(f('jl_safepoint_wait_gc at /src/safepoint.c:172').language, undefined);
  const unknown = f('unknown function (ip: 0xffffa1e52f4b)');
  assert.deepEqual([unknown.function, unknown.pc, unknown.library], ['??', '0xffffa1e52f4b', null]);
  assert.equal(f('_ZNSt6futureImE3getEv at /usr/lib/julia/libLLVM-15jl.so (unknown line)').function, 'std::future<unsigned long>::get()');
  const cut = f('Lock at /cache/build/usr/include/llvm/ExecutionEngine/Orc/ThreadSafeModule.h');
  assert.deepEqual([cut.function, cut.incomplete], ['Lock', true]);
  assert.equal(readJuliaFrame('no location here', 0), null);
});

test('julia: a Julia frame is read only inside a Julia block; prose elsewhere stays prose', () => {
  const prose = parseDump('The bug is at foo.c:12\nand in bar at baz.jl:3\n');
  assert.equal(prose.backtraces.length, 0);
  assert.equal(prose.ignored.length, 2);
  const block = parseDump('signal (10): User defined signal 1\nf at ./a.jl:1\n#1 at ./threadingconstructs.jl:129\n\nThe bug is at foo.c:12\n');
  assert.deepEqual(block.backtraces[0]!.frames.map((fr) => [fr.level, fr.function]), [[0, 'f'], [1, '#1']]);
  assert.equal(block.ignored.at(-1)?.text, 'The bug is at foo.c:12');
});

test('julia: the signal dump shape — signal line, process line, levels, every line once', () => {
  const text = readFileSync(join(SHAPES_DIR, 'julia-signal-dump.txt'), 'utf8');
  const d = parseDump(text);
  assert.deepEqual(exactAccountingProblems(d, text), []);
  assert.deepEqual(d.signals?.map((s) => [s.signal, s.description, s.thread]), [['SIGUSR1', 'User defined signal 1', null]]);
  assert.deepEqual(d.process, { command: '/usr/local/bin/julia', pid: 4242, running: 1, threads: 2, sourceLine: 4 });
  const frames = d.backtraces[0]!.frames;
  assert.deepEqual(frames.map((f) => f.level), frames.map((_, i) => i));
  assert.equal(d.backtraces[0]!.thread, null);
  // `Allocations: …` ends the block as a marker of it; the prose after is prose.
  assert.ok(d.backtraces[0]!.markerLines?.includes(21));
});

test('julia: jl_print_task_backtraces — a running task is its thread, a parked one is not, empty tasks and markers accounted', () => {
  const text = readFileSync(join(SHAPES_DIR, 'julia-task-backtraces.txt'), 'utf8');
  const d = parseDump(text);
  assert.deepEqual(exactAccountingProblems(d, text), []);
  assert.deepEqual(d.backtraces.map((b) => [b.thread?.gdbId, b.task?.running, b.frames.length]), [['1', true, 4], ['1.task-2', false, 5], ['1.task-3', false, 0]]);
  assert.equal(d.backtraces[0]!.frames[3]!.language, 'julia', 'top-level scope at REPL[3]:1');
  const a = analyzeText(text);
  assert.deepEqual(a.threads.map((t) => [t.key, t.state]), [['1', 'running'], ['1.task-2', 'task-parked'], ['1.task-3', 'task-parked']]);
});

test('julia: a fatal signal in Julia\'s own dump is a crash of the thread it prints', () => {
  // The shape of JuliaLang/julia#38773 (a segfault in LLVM while emitting code).
  const text = [
    '',
    'signal (11): Segmentation fault',
    'in expression starting at /home/pkgeval/.julia/packages/Feather/test/runtests.jl:17',
    '_ZN4llvm3orc19MaterializationTask3runEv at /opt/julia/bin/../lib/julia/libLLVM-11jl.so (unknown line)',
    'jl_compile_codeinst at /buildworker/julia/src/jitlayers.cpp:120',
    'start_task at /buildworker/julia/src/task.c:834',
    'Allocations: 4201 (Pool: 4190; Big: 11); GC: 0',
    '',
  ].join('\n');
  const a = analyzeText(text);
  assert.equal(a.verdict, 'crash');
  assert.equal(a.crash?.signal, 'SIGSEGV');
  assert.equal(a.crash?.thread, a.threads[0]?.key);
  assert.equal(a.crash?.site?.function, 'llvm::orc::MaterializationTask::run()');
  // SIGUSR1 is a request for this dump, not a crash.
  assert.equal(analyzeText(text.replace('signal (11): Segmentation fault', 'signal (10): User defined signal 1')).crash, undefined);
});

const skip = HAS_SHARED_CORPUS ? false : 'the shared corpus is not beside this checkout';
const corpus = (prefix: string): string => {
  const file = readdirSync(SHARED_CORPUS).find((f) => f.startsWith(prefix) && f.endsWith('.txt'));
  assert.ok(file, prefix);
  return readFileSync(join(SHARED_CORPUS, file), 'utf8');
};

test('corpus: 041, 042 and 043 (Julia\'s own dumps) parse with every line accounted for', { skip }, () => {
  for (const [prefix, frames, last] of [
    ['041-', 11, '??'],
    ['042-', 14, 't'],
    ['043-', 8, 'Lock'],
  ] as const) {
    const text = corpus(prefix);
    const d = parseDump(text);
    assert.deepEqual(exactAccountingProblems(d, text), [], prefix);
    assert.equal(d.backtraces.length, 1, prefix);
    assert.equal(d.stats.frames, frames, prefix);
    assert.equal(d.backtraces[0]!.frames.at(-1)!.function, last, prefix);
    assert.equal(d.signals?.[0]?.signal, 'SIGUSR1', prefix);
  }
  // 041: the closure `#1 at ./threadingconstructs.jl:129` is a Julia frame, not gdb's frame #1.
  const d041 = parseDump(corpus('041-'));
  const closure = d041.backtraces[0]!.frames.find((f) => f.function === '#1');
  assert.deepEqual([closure?.file, closure?.line, closure?.language], ['./threadingconstructs.jl', 129, 'julia']);
  assert.deepEqual([d041.process?.pid, d041.process?.running, d041.process?.threads], [9614, 2, 5]);
  // 042 and 043 stop in the middle of a frame line: the backtrace is cut.
  assert.equal(parseDump(corpus('042-')).backtraces[0]!.truncated, true);
  assert.equal(parseDump(corpus('043-')).backtraces[0]!.truncated, true);
});

test('corpus: 043\'s thread in pthread_mutex_lock under Lock at …ThreadSafeModule.h waits for an LLVM ORC context lock', { skip }, () => {
  const a = analyzeText(corpus('043-'));
  const t = a.threads[0]!;
  assert.ok(t.rules.includes('orc.context-lock'), t.rules.join(','));
  assert.equal(t.state, 'orc-context-lock-wait');
  assert.deepEqual(t.waitsFor, ['orc:context-lock']);
});

test('corpus: no dump is refused while it holds frames of a dialect (gdb, LLDB or Julia)', { skip }, () => {
  // A frame of any dialect, as a person would spot it: gdb `#N  `, LLDB `frame #N:`, Julia `f at x.jl:N`.
  const FRAMEISH = /^\s*(?:#\d+\s+\S|\*?\s*frame #\d+:|\S.* at \S+:\d+(?: \[inlined\])?$|\S.* at \S+ \(unknown line\)|unknown function \(ip: 0x)/m;
  for (const file of readdirSync(SHARED_CORPUS).filter((f) => f.endsWith('.txt'))) {
    const text = readFileSync(join(SHARED_CORPUS, file), 'utf8');
    const d = parseDump(text);
    if (FRAMEISH.test(text)) assert.ok(d.backtraces.length > 0, `${file} holds frames but is read as none`);
  }
});
