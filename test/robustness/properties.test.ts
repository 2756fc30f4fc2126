/**
 * Property tests (fast-check, bounded so `npm test` stays quick; `npm run fuzz` runs a million):
 * for arbitrary strings, gdb-shaped noise, mutated fixtures and invalid UTF-8 bytes, parsing,
 * analysis and every reporter return without throwing and account for every input line
 * (check.ts lists the invariants).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseDump, parseDumpStream } from '../../src/parse/index.js';
import { accountingProblem, checkText, expectedLineCount, prng } from './check.js';
import { anyString, dialectFixtureTexts, fixtureTexts, gdbNoise, hostileBytes, hostileText, mutatedFixture } from './arbitraries.js';

const FIXTURE_TEXTS = fixtureTexts();
const DIALECT_TEXTS = dialectFixtureTexts();
/** Seeded by default so a red run can be replayed; FUZZ_SEED picks another. */
const SEED = Number(process.env['FUZZ_SEED'] ?? 20261130);

async function holds(arbitrary: fc.Arbitrary<string>, numRuns: number, options: { svg?: boolean; chunks?: boolean } = {}): Promise<void> {
  await fc.assert(
    fc.asyncProperty(arbitrary, fc.nat(), async (text, chunkSeed) => {
      const problem = await checkText(text, { svg: options.svg === true, ...(options.chunks === true ? { chunkSeed } : {}) });
      assert.equal(problem, null);
    }),
    { numRuns, seed: SEED, endOnFailure: false },
  );
}

test('there are fixtures to mutate', () => {
  assert.ok(FIXTURE_TEXTS.length >= 20, `only ${FIXTURE_TEXTS.length} fixtures found`);
});

test('arbitrary strings (UTF-16, binary, graphemes, dump characters): never throw, every line accounted for', async () => {
  await holds(anyString, 400);
});

test('gdb-shaped noise (frames, headers, prompts, pager, escapes, lone surrogates): never throw, every line accounted for', async () => {
  await holds(gdbNoise, 400, { chunks: true });
});

test('mutated fixtures (deleted, duplicated, cut, swapped lines; bytes, forged headers, pager prompts, nesting, CRLF): all invariants', async () => {
  await holds(mutatedFixture(FIXTURE_TEXTS), 300, { chunks: true });
});

test('the Julia and LLDB fixtures are seeds: Julia signal and task dumps, LLDB bt all', () => {
  const julia = DIALECT_TEXTS.filter((f) => /^signal \(\d+\): |^==== Thread \d+ created/m.test(f.text));
  const lldb = DIALECT_TEXTS.filter((f) => /frame #\d+: /.test(f.text));
  assert.ok(julia.length >= 4, `Julia seeds: ${julia.map((f) => f.name).join(', ')}`);
  assert.ok(lldb.length >= 4, `LLDB seeds: ${lldb.map((f) => f.name).join(', ')}`);
});

test('mutated Julia and LLDB fixtures (and Julia/LLDB lines forged into any text): all invariants', async () => {
  await holds(mutatedFixture(DIALECT_TEXTS), 300, { chunks: true });
  await holds(hostileText(FIXTURE_TEXTS, { window: 40, dialects: DIALECT_TEXTS }), 100);
});

test('everything mixed, rendered to SVG and HTML too (Graphviz and the page get hostile labels)', async () => {
  await holds(hostileText(FIXTURE_TEXTS, { window: 60 }), 40, { svg: true });
});

test('invalid UTF-8 and NUL bytes through the Buffer path: same Dump as the decoded text, lines accounted for', async () => {
  await fc.assert(
    fc.asyncProperty(hostileBytes(FIXTURE_TEXTS), fc.nat(), async (bytes, seed) => {
      const random = prng(seed);
      async function* chunks(): AsyncGenerator<Buffer> {
        for (let i = 0; i < bytes.length; ) {
          const size = 1 + Math.floor(random() * 17);
          yield bytes.subarray(i, i + size);
          i += size;
        }
      }
      const streamed = await parseDumpStream(chunks());
      const text = new TextDecoder('utf-8', { fatal: false }).decode(bytes);
      assert.equal(accountingProblem(streamed, expectedLineCount(text)), null);
      assert.deepEqual(streamed, parseDump(text));
    }),
    { numRuns: 200, seed: SEED },
  );
});

test('size extremes: a 2 MB line, 2 MB of "(", 2 MB of NUL, 100,000 empty lines, CR-only line ends', async () => {
  const cases: Array<[string, string]> = [
    ['2 MB frame line', `#0  0x1 in f (${'a=1, '.repeat(400_000)}) at x.c:1\n`],
    ['2 MB of (', '('.repeat(2_000_000)],
    ['2 MB unbalanced args', `#0  0x1 in f (x=${'('.repeat(2_000_000)}\n#1  0x2 in g ()\n`],
    ['2 MB of NUL', '\u0000'.repeat(2_000_000)],
    ['100,000 empty lines', '\n'.repeat(100_000)],
    ['CR line ends', 'Thread 1 (LWP 1):\r#0  0x1 in f ()\r#1  0x2 in g ()\r'],
    ['CRLF', 'Thread 1 (LWP 1):\r\n#0  0x1 in f ()\r\n#1  0x2 in g ()\r\n'],
    ['mixed LF and lone CR', 'Thread 1 (LWP 1):\n#0  0x1 in f ()\rextra\n#1  0x2 in g ()\n'],
  ];
  for (const [label, text] of cases) assert.equal(await checkText(text), null, label);
});
