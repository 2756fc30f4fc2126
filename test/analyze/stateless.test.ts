/**
 * The library is stateless across analyses: what one analysis fills (interned names, stack
 * fingerprints, summary shapes, kept strings) belongs to its session, so a dump's report never
 * depends on what was analysed before it. Checked through the public entry (src/index.ts), as a
 * user of the library calls it:
 *
 * - each dump analysed alone, in a fresh Node process (nothing seen before it);
 * - then in one process, every dump after every other, in both orders, each in a session of its
 *   own (`analyzeText`) and all in one shared session (`createAnalyzer`), whose pools and memos
 *   carry over from dump to dump;
 *
 * and every report (text with the stacks grouped, JSON) must be the one the dump gets alone.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import { Chalk } from 'chalk';
import { analyzeText, createAnalyzer, renderJson, renderText, type Analysis } from '../../src/index.js';
import { renderDump } from '../helpers/generate-dump.js';
import { FIXTURES, FOUNDING, ROOT } from '../helpers/paths.js';

const chalk = new Chalk({ level: 0 });

/** Dumps that share function names and stack shapes but differ in threads, sites and verdicts. */
const DUMPS: Array<{ name: string; text: string }> = [
  { name: 'founding (Julia GC deadlock)', text: readFileSync(FOUNDING, 'utf8') },
  { name: 'generated 160 threads, seed 2', text: renderDump({ threads: 160, frames: 24, seed: 2 }).text },
  { name: 'generated 120 threads, seed 9', text: renderDump({ threads: 120, frames: 20, seed: 9 }).text },
  { name: 'founding as LLDB prints it', text: readFileSync(join(FIXTURES, 'dialects', 'enzyme-deferred.lldb.txt'), 'utf8') },
];

const reports = (analysis: Analysis): string => `${renderText(analysis, { chalk, group: 'functions' })}\n${renderJson(analysis)}`;

/**
 * Each dump's reports from a Node process that analysed nothing else. The dump goes through a
 * file: `readFileSync(0)` on a pipe fails with EAGAIN when the parent is still writing a big input.
 */
function alone(text: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'waitgraph-stateless-'));
  const path = join(dir, 'dump.txt');
  writeFileSync(path, text);
  try {
    return aloneFromFile(path);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function aloneFromFile(path: string): string {
  const lib = pathToFileURL(join(ROOT, 'dist', 'src', 'index.js')).href;
  const script = `
    import { readFileSync } from 'node:fs';
    import { Chalk } from 'chalk';
    const { analyzeText, renderText, renderJson } = await import(${JSON.stringify(lib)});
    const analysis = analyzeText(readFileSync(${JSON.stringify(path)}, 'utf8'));
    process.stdout.write(renderText(analysis, { chalk: new Chalk({ level: 0 }), group: 'functions' }) + '\\n' + renderJson(analysis));
  `;
  return execFileSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8', cwd: ROOT, maxBuffer: 1 << 28 });
}

const expected = DUMPS.map((d) => alone(d.text));

test('the dumps differ (the check compares reports that could tell one dump from another)', () => {
  assert.equal(new Set(expected).size, DUMPS.length);
});

test('every dump after every other, each analysed in a session of its own, reports as it does alone', () => {
  for (let first = 0; first < DUMPS.length; first++) {
    for (let second = 0; second < DUMPS.length; second++) {
      if (first === second) continue;
      const a = reports(analyzeText((DUMPS[first] as { text: string }).text));
      const b = reports(analyzeText((DUMPS[second] as { text: string }).text));
      assert.equal(a, expected[first], `${DUMPS[first]?.name}, analysed before ${DUMPS[second]?.name}`);
      assert.equal(b, expected[second], `${DUMPS[second]?.name}, analysed after ${DUMPS[first]?.name}`);
    }
  }
});

test('one session analysing the dumps in either order (pools and memos carried over) reports each as alone', () => {
  const order = DUMPS.map((_, i) => i);
  for (const sequence of [order, [...order].reverse(), [1, 3, 0, 2, 1, 0]]) {
    const session = createAnalyzer();
    for (const i of sequence) assert.equal(reports(session.analyzeText((DUMPS[i] as { text: string }).text)), expected[i], `${DUMPS[i]?.name} in the session ${sequence.join(' → ')}`);
  }
});

test('two analyses under way at once in one session (interleaved backtraces) report as alone', () => {
  const session = createAnalyzer();
  const sinks = [session.sink(), session.sink()];
  const texts = [DUMPS[0]?.text ?? '', DUMPS[1]?.text ?? ''];
  // Push both dumps a slice at a time, alternating.
  const step = 4096;
  for (let at = 0; at < Math.max(...texts.map((t) => t.length)); at += step) {
    texts.forEach((t, k) => {
      if (at < t.length) sinks[k]?.push(t.slice(at, at + step));
    });
  }
  const results = sinks.map((s) => reports(s.end().analysis));
  assert.equal(results[0], expected[0]);
  assert.equal(results[1], expected[1]);
});
