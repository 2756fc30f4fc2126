/**
 * The shared corpus of published dumps (../shared/corpus, read in place, never copied): every
 * dump parses without throwing, and at least 95% of the lines that start a frame (`#N  …`, also
 * behind `> ` quoting or `<p>`) come out as frames. Skips cleanly when the corpus is absent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { HAS_SHARED_CORPUS, SHARED_CORPUS } from '../helpers/paths.js';
import { parseDump } from '../../src/parse/index.js';
import { unaccountedLines } from './fixtures.js';

const FRAME_START = /^\s*(?:(?:>\s?)+|<p>)?\s*#\d+\s/;

test('corpus: ≥ 95% of frame-start lines become frames, in every dump', (t) => {
  if (!HAS_SHARED_CORPUS) {
    t.skip(`no shared corpus at ${SHARED_CORPUS}`);
    return;
  }
  const files = readdirSync(SHARED_CORPUS).filter((f) => f.endsWith('.txt')).sort();
  assert.ok(files.length > 0, 'the corpus folder holds no .txt dumps');
  const report: string[] = [];
  let failed = 0;
  for (const file of files) {
    const text = readFileSync(join(SHARED_CORPUS, file), 'utf8');
    const lines = text.split(/\r\n|\n|\r/);
    const wanted = new Set<number>();
    lines.forEach((line, i) => {
      if (FRAME_START.test(line.replace(/\u200b/g, ''))) wanted.add(i + 1);
    });
    const dump = parseDump(text);
    assert.deepEqual(unaccountedLines(dump), [], `${file}: lines not accounted for`);
    const got = new Set(dump.backtraces.flatMap((bt) => bt.frames.map((f) => f.sourceLine)));
    let hit = 0;
    for (const line of wanted) if (got.has(line)) hit++;
    const ratio = wanted.size === 0 ? 1 : hit / wanted.size;
    report.push(`${file}: ${hit}/${wanted.size} (${(ratio * 100).toFixed(1)}%)`);
    if (ratio < 0.95) failed++;
  }
  assert.equal(failed, 0, `dumps below 95%:\n${report.join('\n')}`);
});
