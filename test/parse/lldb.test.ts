/**
 * LLDB's `bt all` / `thread backtrace all` (src/parse/lldb.ts): thread headers of both LLDB eras,
 * `* thread` / `* frame` markers, frames with library, function, arguments, offset and
 * file:line:column, inlined frames in both spellings, stop reasons (a crash's signal), and the
 * published LLDB paste of ../shared/corpus (044).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { parseDump } from '../../src/parse/index.js';
import { analyzeText } from '../../src/analyze/index.js';
import { exactAccountingProblems } from './fixtures.js';
import { HAS_SHARED_CORPUS, SHARED_CORPUS } from '../helpers/paths.js';

// The old header form (before LLDB 4, `thread-format`) carries the current frame and a queue.
const OLD = `(lldb) thread backtrace all
* thread #1: tid = 0x1c03, 0x00007fff8e5e1f06 libsystem_kernel.dylib\`__pthread_kill + 10, queue = 'com.apple.main-thread', stop reason = signal SIGABRT
  * frame #0: 0x00007fff8e5e1f06 libsystem_kernel.dylib\`__pthread_kill + 10
    frame #1: 0x00007fff8e5c54ec libsystem_pthread.dylib\`pthread_kill + 90
    frame #2: 0x00007fff8a7ac6df libsystem_c.dylib\`abort + 129
    frame #3: 0x0000000100000f2a app\`Store::flush(this=0x0000000100203a10) + 58 at store.cpp:91:5
    frame #4: 0x0000000100000e44 app\`main(argc=1, argv=0x00007fff5fbff6c8) + 36 at main.cpp:12:3
  thread #2: tid = 0x1c0a, 0x00007fff8e5e0c8a libsystem_kernel.dylib\`__psynch_mutexwait + 10, name = 'writer'
    frame #0: 0x00007fff8e5e0c8a libsystem_kernel.dylib\`__psynch_mutexwait + 10
    frame #1: 0x00007fff8e5c5ec4 libsystem_pthread.dylib\`_pthread_mutex_lock_wait + 100
    frame #2: 0x00007fff8e5c35d8 libsystem_pthread.dylib\`pthread_mutex_lock + 88
    frame #3: 0x0000000100000d10 app\`writer(arg=0x0000000000000000) + 32 at main.cpp:7:3
`;

test('lldb: old-style headers — tid, queue, name, stop reason; frames with library, offset, args, file:line:col', () => {
  const d = parseDump(OLD);
  assert.deepEqual(exactAccountingProblems(d, OLD), []);
  const [t1, t2] = d.backtraces;
  assert.deepEqual([t1!.thread?.id, t1!.thread?.lwp, t1!.thread?.stopReason], [1, 0x1c03, 'signal SIGABRT']);
  assert.deepEqual([t2!.thread?.name, t2!.thread?.stopReason], ['writer', undefined]);
  const flush = t1!.frames[3]!;
  assert.deepEqual([flush.library, flush.function, flush.offset, flush.file, flush.line], ['app', 'Store::flush', 58, 'store.cpp', 91]);
  assert.deepEqual(flush.args, [{ name: 'this', value: '0x0000000100203a10' }]);
  assert.deepEqual([t1!.frames[0]!.function, t1!.frames[0]!.offset, t1!.frames[0]!.library], ['__pthread_kill', 10, 'libsystem_kernel.dylib']);
});

test('lldb: the stop reason names a crash — signal SIGABRT, EXC_BAD_ACCESS — and its thread; SIGSTOP does not', () => {
  const abort = analyzeText(OLD);
  assert.equal(abort.verdict, 'crash');
  assert.deepEqual([abort.crash?.thread, abort.crash?.signal, abort.crash?.site?.function], ['1', 'SIGABRT', 'Store::flush']);
  const segv = analyzeText(`* thread #3, queue = 'com.apple.root.default-qos', stop reason = EXC_BAD_ACCESS (code=1, address=0x10)
  * frame #0: 0x0000000100001234 app\`Node::next(this=0x0000000000000000) at list.cpp:20:12
    frame #1: 0x0000000100001300 app\`walk(n=0x0000000000000000) at list.cpp:31:5
`);
  assert.deepEqual([segv.verdict, segv.crash?.thread, segv.crash?.signal, segv.crash?.site?.function], ['crash', '3', 'EXC_BAD_ACCESS', 'Node::next']);
  const stopped = analyzeText(`* thread #1, name = 'app', stop reason = signal SIGSTOP
  * frame #0: 0x00007f4d15bff31e libc.so.6\`__GI___futex_abstimed_wait_cancelable64 at futex-internal.c:74:11
`);
  assert.equal(stopped.crash, undefined);
});

test('lldb: inlined frames in both spellings, an unnamed symbol as ??, a frame with no module', () => {
  const d = parseDump(`* thread #1, stop reason = signal SIGSTOP
    frame #0: 0x0000786a056a9c01 libjulia-internal.so.1.10\`ijl_gc_collect [inlined] jl_gc_wait_for_the_world(gc_n_threads=<unavailable>) at gc.c:241:13
    frame #1: 0x0000786a056a9c01 libjulia-internal.so.1.10\`jl_apply(nargs=1) at julia.h:1982:12 [inlined]
    frame #2: 0x00007f4d15bff31e libc.so.6\`___lldb_unnamed_symbol3105 + 77
    frame #3: 0x000078411e1bb044
`);
  const f = d.backtraces[0]!.frames;
  assert.deepEqual(f.map((x) => [x.function, x.inlined]), [['jl_gc_wait_for_the_world', true], ['jl_apply', true], ['??', false], ['??', false]]);
  assert.deepEqual([f[2]!.library, f[3]!.library, f[3]!.pc], ['libc.so.6', null, '0x000078411e1bb044']);
});

const skip = HAS_SHARED_CORPUS ? false : 'the shared corpus is not beside this checkout';

test('corpus: 044 (LLDB bt all, cut at both ends) parses with every line accounted for, each thread its frames', { skip }, () => {
  const file = readdirSync(SHARED_CORPUS).find((f) => f.startsWith('044-') && f.endsWith('.txt'))!;
  const text = readFileSync(join(SHARED_CORPUS, file), 'utf8');
  const d = parseDump(text);
  assert.deepEqual(exactAccountingProblems(d, text), []);
  const threads = d.backtraces.filter((b) => b.thread !== null);
  assert.equal(threads.length, 8);
  assert.ok(threads.every((b) => b.thread!.stopReason === 'signal SIGSTOP'));
  assert.equal(threads[1]!.frames[0]!.function, 'jl_safepoint_wait_gc');
  // The last `frame #0:` is cut: its backtrace is marked so.
  assert.equal(threads.at(-1)!.truncated, true);
});
