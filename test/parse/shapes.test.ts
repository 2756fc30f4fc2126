/**
 * Table tests: one row per tricky line shape (gdb-format.md §7 and issue 2), each asserting the
 * intended parse of its fixture in fixtures/parse/shapes/. The golden files catch any change;
 * these rows say which fields matter and why.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Dump, Frame } from '../../src/model/dump.js';
import { parseDump } from '../../src/parse/index.js';
import { SHAPES_DIR } from './fixtures.js';

function load(name: string): Dump {
  return parseDump(readFileSync(join(SHAPES_DIR, `${name}.txt`), 'utf8'));
}
function frames(d: Dump, bt = 0): Frame[] {
  return d.backtraces[bt]!.frames;
}
function pick(f: Frame, ...keys: (keyof Frame)[]): Partial<Frame> {
  return Object.fromEntries(keys.map((k) => [k, f[k]]));
}

const rows: Array<[string, (d: Dump) => void]> = [
  ['frame-pc-args-file', (d) => {
    const [f0, f1, f2] = frames(d);
    assert.deepEqual(pick(f0!, 'level', 'pc', 'function', 'file', 'line'), { level: 0, pc: '0x00007f3a1c2e9e2c', function: '__pthread_kill_implementation', file: './nptl/pthread_kill.c', line: 44 });
    assert.deepEqual(f0!.args, [{ name: 'no_tid', value: '0' }, { name: 'signo', value: '6' }, { name: 'threadid', value: '<optimized out>' }]);
    assert.equal(f1!.pc, null);
    assert.equal(f0!.inlined, true, 'frame #1 has no pc: #0 was inlined into it');
    assert.deepEqual(f2!.args, [{ name: 'sig', value: '6', entry: 'equal' }]);
  }],
  ['entry-values', (d) => {
    assert.deepEqual(frames(d)[1]!.args, [{ name: 'n', value: '3' }, { name: 'n', value: '5', entry: 'only' }]);
    assert.deepEqual(frames(d)[2]!.args, [{ name: 'x', value: '7', entry: 'only' }]);
  }],
  ['unknown-function', (d) => {
    assert.deepEqual(frames(d).map((f) => [f.function, f.library, f.args.length]), [['??', null, 0], ['??', '/lib/x86_64-linux-gnu/libstdc++.so.6', 0], ['??', null, 0]]);
    assert.equal(frames(d)[2]!.pc, '0x0000000000000000');
  }],
  ['special-frames', (d) => {
    assert.deepEqual(frames(d).map((f) => [f.level, f.kind, f.pc]), [[6, 'normal', '0x00005555555551a9'], [7, 'sigtramp', null], [8, 'dummy', null], [9, 'arch', null], [10, 'normal', '0x0000555555555200']]);
    assert.equal(frames(d)[0]!.inlined, false, 'a signal frame without pc is not an inlined caller');
  }],
  ['rust-legacy-32bit', (d) => {
    assert.deepEqual(pick(frames(d)[1]!, 'level', 'pc', 'function'), { level: 104, pc: '0xb7f84cc5', function: 'rt::unwind::begin_unwind_inner::h3c1d2e5f7a9b0c4dQx' });
  }],
  ['cxx-function-operator', (d) => {
    assert.equal(frames(d)[0]!.function, 'std::function<void ()>::operator()');
    assert.deepEqual(frames(d)[0]!.args, [{ name: 'this', value: '0x7ffd2a9e1b40' }]);
    assert.equal(frames(d)[1]!.function, 'std::_Function_handler<void (), (anonymous namespace)::Pool::start()::{lambda()#1}>::_M_invoke(std::_Any_data const&)');
  }],
  ['anonymous-namespace', (d) => assert.equal(frames(d)[0]!.function, '(anonymous namespace)::Worker::run')],
  ['lambda-operator', (d) => {
    assert.equal(frames(d)[0]!.function, 'main::{lambda(int)#1}::operator()(int) const');
    assert.deepEqual(frames(d)[0]!.args.map((a) => a.name), ['__closure', 'n']);
    assert.equal(frames(d)[1]!.function, 'std::__invoke_impl<void, main()::<lambda(int)>, int>(std::__invoke_other, struct {...} &&)');
  }],
  ['minimal-symbol-clone', (d) => {
    assert.deepEqual(frames(d).map((f) => [f.function, f.args.length, f.library]), [
      ['QCoreApplication::exec()', 0, '/usr/lib/libQt5Core.so.5'],
      ['foo(int) [clone .cold]', 0, '/opt/app/libfoo.so'],
      ['pthread_cond_wait@@GLIBC_2.3.2', 0, '/lib/x86_64-linux-gnu/libpthread.so.0'],
      ['malloc@plt', 0, null],
    ]);
  }],
  ['go-function', (d) => {
    assert.equal(frames(d)[0]!.function, 'net/http.(*conn).serve');
    assert.deepEqual(frames(d)[0]!.args[1], { name: 'ctx', value: '...' });
  }],
  ['rust-trait-impl', (d) => assert.equal(frames(d)[0]!.function, '<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop')],
  ['operator-shift-string', (d) => {
    assert.equal(frames(d)[0]!.function, 'std::operator<< <std::char_traits<char> >');
    assert.deepEqual(frames(d)[0]!.args[1], { name: '__s', value: '0x555555556004 "a<b"' });
  }],
  ['presence-mode-arrow', (d) => {
    assert.equal(frames(d)[0]!.function, 'kern::task::{impl#3}::spawn<fn(usize) -> core::option::Option<usize>>');
    assert.deepEqual(frames(d)[0]!.args, []);
    assert.equal(frames(d)[0]!.incomplete, false);
  }],
  ['windows-paths', (d) => {
    assert.deepEqual(pick(frames(d)[0]!, 'function', 'library'), { function: 'KERNEL32!BaseThreadInitThunk', library: 'C:\\Windows\\System32\\kernel32.dll' });
    assert.deepEqual(pick(frames(d)[1]!, 'file', 'line'), { file: 'D:\\agent\\_work\\1\\s\\vcstartup\\src\\startup\\exe_common.inl', line: 288 });
  }],
  ['path-with-spaces', (d) => assert.deepEqual(pick(frames(d)[0]!, 'function', 'file', 'line'), { function: 'main', file: '/home/me/My Project (v2)/src/main.c', line: 12 })],
  ['pac-flag', (d) => assert.deepEqual(pick(frames(d)[0]!, 'pc', 'pcFlags', 'function'), { pc: '0x0000ffffb7e2a6b8', pcFlags: ['PAC'], function: 'handler' })],
  ['char-literal-paren', (d) => {
    assert.deepEqual(frames(d)[0]!.args, [{ name: 'c', value: "40 '('" }, { name: 'fp', value: '0x7ffff7e1a780 <_IO_2_1_stdout_>' }]);
    assert.deepEqual(frames(d)[1]!.args, [{ name: 'q', value: "39 '\\''" }, { name: 'r', value: "41 ')'" }]);
  }],
  ['string-escapes', (d) => assert.deepEqual(frames(d)[0]!.args, [{ name: 'fmt', value: '0x555555556010 "x=(%d) \\"%s\\", y=%d\\n"' }, { name: 'level', value: '2' }])],
  ['repeats-value', (d) => {
    assert.deepEqual(frames(d)[0]!.args, [{ name: 'buf', value: "0x55555555a2a0 'A' <repeats 200 times>..." }, { name: 'n', value: '4096' }]);
    assert.deepEqual(frames(d)[1]!.args.map((a) => a.name), ['s', 'len']);
  }],
  ['error-reading-variable', (d) => assert.deepEqual(frames(d)[0]!.args[1], { name: 'index', value: '<error reading variable: Unhandled dwarf expression opcode 0xf3>' })],
  ['reference-value', (d) => assert.deepEqual(frames(d)[0]!.args, [{ name: 'r', value: '@0x7fffffffe0cc: 42' }, { name: 'v', value: '...' }])],
  ['function-typed-value', (d) => assert.deepEqual(frames(d)[0]!.args, [{ name: 'cb', value: '{int (int, char **)} 0x555555555149 <on_event>' }, { name: 'ud', value: '0x0' }])],
  ['pager-midline', (d) => {
    const f = frames(d)[1]!;
    assert.deepEqual(f.args, [{ name: 'path', value: '0x5555555592a0 "/etc/app.conf"' }, { name: 'strict', value: 'true' }]);
    assert.deepEqual(pick(f, 'file', 'line', 'sourceLine', 'continuationLines'), { file: 'config.c', line: 41, sourceLine: 2, continuationLines: [3] });
  }],
  ['pager-old-quit', (d) => {
    assert.equal(d.backtraces[0]!.truncated, true);
    assert.equal(d.backtraces[0]!.endLine, 5, 'the Quit line belongs to the backtrace');
    assert.deepEqual(d.ignored, [{ line: 4, text: '---Type <return> to continue, or q <return> to quit---q' }]);
  }],
  ['wrapped-args', (d) => {
    const f = frames(d)[1]!;
    assert.equal(f.args.length, 7);
    assert.deepEqual(pick(f, 'file', 'line', 'continuationLines'), { file: 'libc-start.c', line: 287, continuationLines: [3, 4] });
  }],
  ['wrapped-from', (d) => assert.deepEqual(pick(frames(d)[0]!, 'function', 'library', 'continuationLines'), { function: 'pthread_cond_wait@@GLIBC_2.3.2', library: '/lib/x86_64-linux-gnu/libpthread.so.0', continuationLines: [2] })],
  ['wrapped-name-paren', (d) => {
    const f = frames(d)[0]!;
    assert.equal(f.function, '__assert_fail_base');
    assert.deepEqual(f.args.map((a) => a.name), ['fmt', 'assertion', 'line', 'function']);
    assert.equal(f.line, 92);
  }],
  ['wrapped-after-paren', (d) => {
    const f = frames(d)[0]!;
    assert.deepEqual(f.args, [{ name: 'obj', value: '0x555557e42c00 <heap+24224>' }, { name: 'code', value: 'EV_CLICKED' }]);
    assert.deepEqual(pick(f, 'file', 'line', 'continuationLines'), { file: '/src/ui/event.c', line: 74, continuationLines: [2, 3] });
  }],
  ['terminal-hard-wrap', (d) => {
    assert.deepEqual(frames(d)[0]!.args.map((a) => a.name), ['request', 'connection', 'flags']);
    assert.equal(frames(d)[0]!.line, 88);
  }],
  ['pager-own-line-wrap', (d) => {
    assert.deepEqual(frames(d)[0]!.args.map((a) => a.name), ['req', 'conn']);
    assert.deepEqual(frames(d)[0]!.continuationLines, [3]);
    assert.equal(d.ignored[0]!.line, 2);
  }],
  ['midline-new-frame', (d) => {
    assert.deepEqual(frames(d).map((f) => [f.level, f.incomplete, f.sourceLine]), [[5, false, 1], [6, true, 2], [7, false, 2], [8, false, 3]]);
    assert.equal(d.backtraces[0]!.truncated, false, 'a cut frame in the middle does not cut the outer end');
  }],
  ['python-exception-noise', (d) => {
    assert.deepEqual(pick(frames(d)[0]!, 'function', 'line', 'continuationLines'), { function: 'Widget::paint', line: 120, continuationLines: [3] });
    assert.match(d.ignored[0]!.text, /Python Exception/);
  }],
  ['ansi-colour', (d) => {
    assert.deepEqual(pick(frames(d)[0]!, 'pc', 'function', 'file', 'line'), { pc: '0x000055555555513d', function: 'main', file: 't.c', line: 5 });
    assert.deepEqual(frames(d)[1]!.args[0], { name: 'main', value: '0x555555555129 <main>', entry: 'equal' });
  }],
  ['frame-filter-library', (d) => {
    const [f0, f1, f2, f9] = frames(d);
    assert.deepEqual(pick(f0!, 'function', 'file', 'library'), { function: '???', file: null, library: '/usr/lib/libc.so.6' });
    assert.deepEqual(pick(f1!, 'function', 'library'), { function: 'ppoll', library: '/usr/lib/libc.so.6' });
    assert.equal(f2!.function, '<emit signal clicked on instance 0x5555559a0150 [GtkButton]>');
    assert.deepEqual(pick(f9!, 'level', 'function'), { level: 9, function: 'g_closure_invoke' });
  }],
  ['header-names', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.id, b.thread?.name, b.thread?.extra]), [
      [3, 'tokio-runtime-w', null],
      [4, 'ait4(pid=1832)>', null],
      [7, 'pool', 'Exiting'],
      [8, 'say "hi"):', null],
    ]);
  }],
  ['header-targets', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.gdbId, b.thread?.id, b.thread?.ptid, b.thread?.lwp, b.thread?.targetId]), [
      ['1', 1, null, 48210, 'LWP 48210'],
      ['1', 1, null, 31337, 'process 31337'],
      ['2.4', 4, '0x7ffff6ffe640', 9911, 'Thread 0x7ffff6ffe640 (LWP 9911)'],
      ['3', 3, '0xb7d39ba0', 26975, 'Thread -1210868832 (LWP 26975)'],
      ['1', 1, null, null, 'Thread 11080.0x2b0c'],
      ['1', 1, null, 100123, 'LWP 100123 of process 5678'],
    ]);
  }],
  ['header-remote-extra', (d) => {
    assert.deepEqual([d.backtraces[0]!.thread?.name, d.backtraces[0]!.thread?.extra], ['SensorTask', 'Name: SensorTask, prio:1,useropts:0']);
    assert.deepEqual([d.backtraces[1]!.thread?.name, d.backtraces[1]!.thread?.extra], [null, 'CPU#1 [halted ]']);
  }],
  ['bt-full-locals', (d) => {
    const [f0, f1, f2] = frames(d);
    assert.deepEqual(f0!.locals, []);
    assert.deepEqual(f1!.locals!.map((l) => [l.name, l.value, l.sourceLine]), [
      ['cfg', '{\nname = 0x555555556004 "a = b, c",\nflags = {verbose = true, level = 3}\n}', 4],
      ['i', '0', 8],
      ['cnt', '0', 9],
      ['cnt', '<optimized out>', 10],
    ]);
    assert.deepEqual(f1!.locals![0]!.continuationLines, [5, 6, 7]);
    assert.deepEqual(f2!.locals, []);
  }],
  ['old-tab-locals', (d) => assert.deepEqual(frames(d)[0]!.locals!.map((l) => [l.name, l.value]), [['n', '(dlink_node *) 0x0'], ['count', '3']])],
  ['backtrace-stopped', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.stopReason, b.truncated]), [
      ['previous frame identical to this frame (corrupt stack?)', false],
      ['Cannot access memory at address 0x7ffe3b4f1000', false],
    ]);
  }],
  ['more-frames-follow', (d) => assert.deepEqual(d.backtraces.map((b) => [b.thread?.id, b.truncated, b.endLine]), [[2, true, 6], [1, false, 10]])],
  ['elision-markers', (d) => assert.deepEqual(d.backtraces[0]!.gaps, [{ afterLevel: 1, beforeLevel: 17, sourceLine: 4 }])],
  ['switching-thread', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.id, b.thread?.lwp, b.frames.length, b.source]), [[2, 5151, 1, 'selected-frame'], [2, 5151, 3, undefined]]);
    assert.ok(d.ignored.some((i) => i.line === 4 && i.text.startsWith('78\t')));
  }],
  ['switching-glued', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.id, b.frames.length, b.startLine]), [[5, 1, 1], [5, 3, 3]]);
    assert.equal(frames(d)[0]!.function, '__lll_lock_wait_private');
  }],
  ['stop-event', (d) => assert.deepEqual(d.backtraces[0]!.thread, { id: 1, gdbId: '1', ptid: '0x7fb6699b9bc0', lwp: 895, name: 'crashy', targetId: 'Thread 0x7fb6699b9bc0 (LWP 895)', extra: null })],
  ['email-quote', (d) => {
    assert.equal(d.backtraces[0]!.thread?.lwp, 101);
    assert.deepEqual(frames(d).map((f) => [f.level, f.function, f.line]), [[0, '__lll_lock_wait', 52], [1, '__GI___pthread_mutex_lock', 115], [4, 'run', 7]]);
  }],
  ['crlf', (d) => assert.deepEqual(frames(d).map((f) => f.library ?? f.file), ['/lib/libc.so.6', 'main.c'])],
  ['lone-cr-progress', (d) => {
    assert.deepEqual(d.ignored, [{ line: 1, text: 'Downloading 1.2 MB separate debug info for /lib/libc.so.6' }]);
    assert.equal(frames(d).length, 2);
  }],
  ['zero-width', (d) => assert.deepEqual(frames(d).map((f) => f.level), [0, 1])],
  ['html-leftovers', (d) => {
    assert.equal(d.backtraces[0]!.thread?.lwp, 100);
    assert.deepEqual(pick(frames(d)[0]!, 'function', 'line'), { function: 'std::vector<int>::push_back', line: 1187 });
    assert.deepEqual(frames(d)[0]!.args[1], { name: '__x', value: '<optimized out>' });
  }],
  ['several-dumps', (d) => assert.deepEqual(d.backtraces.map((b) => b.thread?.lwp), [101, 100, 201, 200])],
  ['info-threads-table', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.name, b.frames.length]), [['worker', 2], ['app', 1]]);
    assert.deepEqual(d.ignored.slice(0, 4).map((i) => i.line), [1, 2, 3, 4]);
  }],
  ['mutex-owner-print', (d) => {
    assert.deepEqual(d.ownerHints, [
      {
        expression: '*(pthread_mutex_t *) 0x5555555580a0',
        address: '0x5555555580a0',
        field: '__owner',
        ownerLwp: 20496,
        history: 1,
        sourceLine: 2,
        addressFrom: 'expression',
        lockExpression: '*(pthread_mutex_t *) 0x5555555580a0',
        lockWord: 2,
        continuationLines: [3],
      },
      // glibc's pretty printer: `pthread_mutex_t = {Type = Normal, …, Owner ID = 20497, …}`.
      { expression: 'lock2', address: null, field: '__owner', ownerLwp: 20497, history: 2, sourceLine: 5, variable: 'lock2', lockExpression: 'lock2' },
    ]);
  }],
  ['rwlock-owner-print', (d) =>
    assert.deepEqual(d.ownerHints, [
      { expression: 'table_lock', address: null, field: '__cur_writer', ownerLwp: 31337, history: 1, sourceLine: 2, variable: 'table_lock', lockExpression: 'table_lock', readers: 0 },
      { expression: 'cache_lock', address: null, field: '__cur_writer', ownerLwp: 31338, history: 2, sourceLine: 4, variable: 'cache_lock', lockExpression: 'cache_lock', readers: 0 },
    ])],
  ['plain-bt', (d) => assert.deepEqual([d.backtraces.length, d.backtraces[0]!.thread, d.backtraces[0]!.startLine], [1, null, 1])],
  ['gstack-no-blank-lines', (d) => assert.deepEqual(d.backtraces.map((b) => [b.thread?.id, b.frames.length]), [[2, 2], [1, 2]])],
  ['eu-stack-systemd', (d) => {
    assert.deepEqual(frames(d, 0).map((f) => [f.function, f.library]), [['__lll_lock_wait', '/usr/lib64/libc.so.6'], ['start_thread', '/usr/lib64/libc.so.6']]);
    assert.deepEqual(frames(d, 1).map((f) => [f.function, f.library]), [['??', 'libc.so.6'], ['main', 'app']]);
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.id, b.thread?.lwp]), [[5678, 5678], [5679, 5679]]);
  }],
  ['ci-timestamps', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.lwp, b.frames.length]), [[101, 2]]);
    assert.deepEqual(d.ignored, [{ line: 4, text: '##[error]Process completed with exit code 124.' }]);
  }],
  ['markdown-fence', (d) => assert.deepEqual([d.backtraces.length, d.backtraces[0]!.startLine, d.backtraces[0]!.endLine], [1, 5, 6])],
  ['session-lines', (d) => {
    // The frame printed when the core loaded belongs to `[Current thread is 1 …]`, printed after it;
    // it is handed out next to thread 1's backtrace, which repeats it.
    assert.deepEqual(
      d.backtraces.map((b) => [b.thread?.id ?? null, b.frames.length, b.startLine, b.source]),
      [[1, 1, 9, 'selected-frame'], [2, 1, 14, undefined], [1, 1, 17, undefined]],
    );
  }],
  ['header-error-no-frames', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.id, b.frames.length]), [[3, 0], [2, 1]]);
    assert.ok(d.ignored.some((i) => i.text === 'Cannot access memory at address 0x7f0000003000'));
  }],
  ['cut-paste-end', (d) => {
    const bt = d.backtraces[0]!;
    assert.equal(bt.truncated, true);
    assert.deepEqual(pick(bt.frames[1]!, 'function', 'incomplete'), { function: 'loop_run', incomplete: true });
    assert.deepEqual(bt.frames[1]!.args, [{ name: 'l', value: '0x1' }, { name: 'timeout', value: '' }]);
  }],
  ['comment-prefixed', (d) => assert.deepEqual(frames(d).map((f) => f.function), ['pthread_cond_wait@@GLIBC_2.3.2', 'QWaitCondition::wait'])],
  ['markdown-escaped', (d) => {
    assert.deepEqual(frames(d).map((f) => [f.level, f.function, f.library]), [[0, '__lll_mutex_lock_wait', '/lib64/tls/libpthread.so.0'], [1, '??', null]]);
  }],
  ['mi-console', (d) => {
    assert.deepEqual(frames(d).map((f) => [f.level, f.function, f.line]), [[0, '__GI___clock_nanosleep', 78], [1, 'main', 9]]);
    assert.equal(d.backtraces[0]!.stopReason, 'previous frame inner to this frame (corrupt stack?)');
  }],
  ['task-header', (d) => assert.deepEqual(d.backtraces.map((b) => [b.thread?.targetId, b.frames.length]), [['Task ID 1', 2], ['Task ID 2', 1]])],
  ['bt-full-mutex-local', (d) => {
    // A `bt full` local that is a lock: no address, and no thread header to say whose frame it is.
    assert.deepEqual(d.ownerHints, [{ expression: 'm', address: null, field: '__owner', ownerLwp: 5151, sourceLine: 2, lockExpression: 'm', lockWord: 2, continuationLines: [3] }]);
    assert.deepEqual(frames(d)[0]!.locals!.map((l) => l.name), ['m', 'i']);
  }],
  // Captured from gdb 13 attached to a real ABBA deadlock (two pthread mutexes), `-batch`.
  ['real-gdb13-batch-bt-full', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.id, b.thread?.name, b.frames.length]), [[3, 'ba("x"):', 7], [2, 'abba', 7], [1, 'abba', 6]]);
    const t3 = d.backtraces[0]!.frames;
    assert.deepEqual(t3[3]!.args, [{ name: 'mutex', value: '0x56238a3790a0 <lock_a>', entry: 'equal' }]);
    assert.equal(t3[2]!.inlined, true, '#3 ___pthread_mutex_lock has no pc: #2 is inlined into it');
    assert.deepEqual(t3[4]!.locals, [{ name: 'tag', value: '"ba(\\000\\000\\000\\000"', sourceLine: 35 }]);
    assert.deepEqual(d.ownerHints.map((h) => [h.field, h.ownerLwp, h.expression]), [['__owner', 16817, null], ['__owner', 16818, null]]);
  }],
  // The same program on a terminal (`script`): colour, CRLF, bracketed paste, a pager prompt on
  // its own line and one in the middle of frame #2 of thread 1.
  ['real-gdb13-tty-pager-ansi', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.id, b.frames.length]), [[3, 7], [2, 7], [1, 6]]);
    const f2 = d.backtraces[2]!.frames[2]!;
    assert.deepEqual(pick(f2, 'function', 'file', 'line', 'sourceLine', 'continuationLines'), { function: '__GI___futex_abstimed_wait_cancelable64', file: './nptl/futex-internal.c', line: 139, sourceLine: 33, continuationLines: [34] });
    assert.deepEqual(f2.args.map((a) => a.name), ['futex_word', 'expected', 'clockid', 'abstime', 'private']);
    assert.equal(d.backtraces[1]!.thread?.name, 'abba');
  }],
  // gdb 13 on an 80-column terminal, `thread 1` + `bt`, `thread 3` + `bt full 3`, `p lock_a`:
  // gdb's own wrapping (4-space continuations, `    at`), and a pretty-printed mutex.
  ['real-gdb13-tty-wrapped-bt', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.id, b.frames.length, b.truncated]), [[1, 1, false], [1, 6, false], [3, 1, false], [3, 3, true]]);
    const f3 = d.backtraces[1]!.frames[3]!;
    assert.deepEqual(pick(f3, 'function', 'line', 'continuationLines'), { function: '__pthread_clockjoin_ex', line: 102, continuationLines: [27, 28, 29] });
    assert.equal(f3.args.length, 5);
    assert.deepEqual(d.ownerHints.map((h) => [h.ownerLwp, h.sourceLine, h.continuationLines]), [[19315, 62, [63, 64, 65]]]);
  }],
  ['lldb-bt-all', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.id, b.thread?.name, b.thread?.lwp, b.frames.length]), [[1, 'crashy', null, 4], [2, 'julia', null, 3], [3, 'python', 18364, 1]]);
    const [f0, f1, f2] = frames(d);
    assert.deepEqual(pick(f0!, 'pc', 'function', 'library'), { pc: '0x00007fff2033a8e1', function: '__pthread_kill', library: 'libsystem_kernel.dylib' });
    assert.deepEqual(pick(f1!, 'function', 'file', 'line', 'library'), { function: 'main', file: 'main.c', line: 4, library: 'crashy' });
    assert.deepEqual(f1!.args, [{ name: 'argc', value: '1' }, { name: 'argv', value: '0x00007fffffffe3f8' }]);
    assert.deepEqual(pick(f2!, 'function', 'inlined'), { function: 'helper', inlined: true });
    assert.equal(d.backtraces[2]!.truncated, true, 'a bare `frame #0:` is a cut paste');
  }],
  ['info-threads-only', (d) => {
    assert.deepEqual(
      d.backtraces.map((b) => [b.thread?.gdbId, b.thread?.name, b.thread?.lwp, b.source ?? 'bt', b.truncated, b.frames.map((f) => f.function)]),
      [
        ['1', 'java', 70, 'info-threads', true, ['poll']],
        ['2', 'GC Thread#0', 71, 'info-threads', true, ['__lll_lock_wait']],
        ['4', 'worker', 73, 'info-threads', true, []],
        ['6', null, 10954, 'info-threads', true, ['__lll_mutex_lock_wait']],
        ['5', null, null, 'info-threads', true, ['nanosleep']],
        ['3', 'pool-1', 72, 'bt', false, ['pthread_cond_wait@@GLIBC_2.3.2', 'Monitor::wait']],
      ],
    );
    assert.deepEqual(d.backtraces[3]!.frames[0]!.continuationLines, [11]);
    assert.ok(d.ignored.some((i) => i.line === 7), 'the row of thread 3 gives way to its real backtrace');
  }],
  // gdb 13 on a C++ program (lambdas, templates, std::function, an anonymous namespace, a string
  // argument with quotes and parentheses), `-batch`.
  ['real-gdb13-cxx-lambdas-templates', (d) => {
    assert.deepEqual(d.backtraces.map((b) => b.thread?.id), [5, 4, 3, 2, 1]);
    const t5 = d.backtraces[0]!.frames;
    assert.deepEqual(t5[6]!.args, [{ name: '__functor', value: '...' }, { name: '__args#0', value: '@0x7faa6ea19d14: 1' }]);
    assert.equal(t5[7]!.function, 'std::function<int (int)>::operator()(int) const');
    assert.equal(t5[8]!.function, '(anonymous namespace)::Registry::put(const std::string &, std::function<int(int)>)');
    assert.deepEqual(t5[8]!.args[1], { name: 'k', value: '"k \\"quoted\\" (x)"' });
    assert.equal(t5[14]!.function, 'std::thread::_State_impl<std::thread::_Invoker<std::tuple<main()::<lambda()> > > >::_M_run(void)');
    const t3 = d.backtraces[2]!.frames;
    assert.deepEqual([t3[5]!.function, t3[7]!.function, t3[8]!.function], ['std::mutex::lock', 'Worker<double>::run', 'operator()']);
  }],
  // gdb 13 on CPython 3.11: two threads blocked in `lock.acquire()`, the main thread sleeping;
  // gdb's auto-load warning block (with TAB-indented lines) comes before the backtraces.
  ['real-gdb13-cpython-threads', (d) => {
    assert.deepEqual(d.backtraces.map((b) => [b.thread?.id, b.thread?.name, b.frames.length]), [[3, 'python3', 25], [2, 'python3', 25], [1, 'python3', 22]]);
    const f6 = d.backtraces[0]!.frames[6]!;
    assert.deepEqual(pick(f6, 'function', 'file', 'line'), { function: 'PyThread_acquire_lock_timed', file: 'Python/thread_pthread.h', line: 497 });
    assert.deepEqual(f6.args[1], { name: 'microseconds', value: '-1000000', entry: 'equal' });
    assert.ok(d.backtraces.every((b) => b.frames.every((f) => !f.incomplete && f.args.every((a) => a.name !== ''))));
    assert.deepEqual(d.ignored.map((i) => i.line).slice(0, 17), Array.from({ length: 17 }, (_, i) => i + 1));
  }],
  // gdb 13 on a core file (gcore of the ABBA program): the core-load banner, the current frame
  // and `[Current thread is 1 …]` before `thread apply all bt`.
  ['real-gdb13-core-abba', (d) => {
    assert.deepEqual(
      d.backtraces.map((b) => [b.thread?.id, b.thread?.lwp, b.frames.length, b.source]),
      [[1, 7157, 1, 'selected-frame'], [3, 7160, 7, undefined], [2, 7159, 7, undefined], [1, 7157, 6, undefined]],
    );
    assert.ok(d.ignored.some((i) => i.line === 8 && i.text.startsWith('57\t')));
  }],
  ['quoted-printable-mail', (d) => {
    assert.equal(d.backtraces[0]!.thread?.name, 'wörker');
    const [f0, f1] = frames(d);
    assert.deepEqual(f0!.args, [{ name: 'sig', value: '6', entry: 'equal' }]);
    assert.deepEqual(f1!.args.map((a) => [a.name, a.value]), [['config', '0x5555555592a0 "a b"'], ['timeout', '1000'], ['retries', '3']]);
    assert.deepEqual(f1!.continuationLines, [8], 'a soft line break joins the next line');
  }],
];

for (const [name, check] of rows) {
  test(`shape: ${name}`, () => check(load(name)));
}
