/** The founding report parses into the numbers issue 2 asks for ("What it must show"). */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { FOUNDING } from '../helpers/paths.js';
import { parseDump } from '../../src/parse/index.js';

const text = readFileSync(FOUNDING, 'utf8');
const dump = parseDump(text);

test('founding: 12 headed backtraces Thread 12…1, then the headerless (gdb) bt', () => {
  assert.equal(dump.backtraces.length, 13);
  assert.deepEqual(
    dump.backtraces.map((bt) => bt.thread?.id ?? null),
    [12, 11, 10, 9, 8, 7, 6, 5, 4, 3, 2, 1, null],
  );
  const t9 = dump.backtraces[3]!;
  assert.deepEqual(t9.thread, { id: 9, gdbId: '9', ptid: '0x7840ebe006c0', lwp: 45438, name: 'julia', targetId: 'Thread 0x7840ebe006c0 (LWP 45438) "julia"', extra: null });
  assert.equal(t9.startLine, 37);
  assert.equal(t9.truncated, true);
});

test('founding: frame counts; thread 6 across its pager prompt; thread 1 cut frame kept incomplete', () => {
  for (const bt of dump.backtraces.slice(0, 10)) assert.equal(bt.frames.length, 5, `thread ${bt.thread?.id}`);
  const t6 = dump.backtraces[6]!;
  assert.equal(t6.thread?.id, 6);
  assert.deepEqual(t6.frames.map((f) => f.level), [0, 1, 2, 3, 4]);
  assert.equal(t6.frames[1]!.function, 'pthread_cond_wait');
  assert.ok(dump.ignored.some((i) => i.line === 63 && i.text.startsWith('--Type <RET>')));
  assert.equal(dump.backtraces[10]!.frames.length, 4);
  const t1 = dump.backtraces[11]!;
  assert.equal(t1.frames.length, 4);
  const cut = t1.frames[3]!;
  assert.equal(cut.function, 'jl_safepoin');
  assert.equal(cut.incomplete, true);
  assert.equal(cut.pc, '0x000078411d0b4735');
  assert.equal(t1.truncated, true);
});

test('founding: the trailing bt has levels 0,1,2,156…173, #157 wrapped `at` joined, `...` a gap', () => {
  const bt = dump.backtraces[12]!;
  assert.equal(bt.thread, null);
  assert.equal(bt.startLine, 109);
  const levels = bt.frames.map((f) => f.level);
  assert.deepEqual(levels, [0, 1, 2, ...Array.from({ length: 18 }, (_, i) => 156 + i)]);
  const f157 = bt.frames.find((f) => f.level === 157)!;
  assert.equal(f157.file, '/cache/build/builder-amdci4-2/julialang/julia-release-1-dot-10/src/gf.c');
  assert.equal(f157.line, 2887);
  assert.deepEqual(f157.continuationLines, [116]);
  assert.equal(f157.inlined, true, '#158 has no pc, so #157 was inlined into it');
  assert.deepEqual(bt.gaps, [{ afterLevel: 2, beforeLevel: 156, sourceLine: 113 }]);
  const f168 = bt.frames.find((f) => f.level === 168)!;
  assert.equal(f168.function, 'llvm::orc::LazyCallThroughManager::resolveTrampolineLandingAddress(unsigned long, llvm::unique_function<void (unsigned long) const>)');
  assert.match(f168.library ?? '', /libLLVM-15jl\.so$/);
});

test('founding: stats.lines equals the input line count and every line is accounted for', () => {
  const lines = text.split('\n').length - (text.endsWith('\n') ? 1 : 0);
  assert.equal(dump.stats.lines, lines);
  assert.equal(dump.stats.frames, 79);
  assert.equal(dump.stats.ignoredLines, dump.ignored.length);
  assert.deepEqual(dump.ignored.slice(0, 2), [
    { line: 1, text: 'Deadlock with autodiff_deferred' },
    { line: 2, text: '' },
  ]);
});
