/**
 * Golden files: every format's output on the founding report and on the captured live dumps, in
 * fixtures/golden/ (live dumps under fixtures/golden/live/). Written with colour off, LF endings.
 * `UPDATE_GOLDEN=1 npm test` rewrites them and lists what changed; review the diff like code.
 * SVG and HTML are kept for the founding report only (the README shows them); the live dumps' pictures
 * are covered by their DOT goldens, since the SVG is Graphviz's rendering of exactly that DOT.
 * `GOLDEN_FORMATS=dot,svg` limits a run or an update to the formats named.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { basename, join, relative } from 'node:path';
import { Chalk } from 'chalk';
import type { Analysis } from '../../src/model/analysis.js';
import { FORMATS, reporters, type Format } from '../../src/report/index.js';
import { FIXTURES, FOUNDING, ROOT } from '../helpers/paths.js';
import { analyzeFile } from './pipeline.js';

const UPDATE = process.env['UPDATE_GOLDEN'] === '1';
/** `GOLDEN_FORMATS=dot,svg` narrows a run (and an update) to some formats. */
const ONLY = process.env['GOLDEN_FORMATS']?.split(',').map((f) => f.trim()).filter(Boolean) ?? null;
const GOLDEN = join(FIXTURES, 'golden');
const plain = new Chalk({ level: 0 });

/** Golden file extension per format; `satisfies` makes a new format without a golden a type error. */
const EXTENSIONS = {
  text: 'txt',
  json: 'json',
  markdown: 'md',
  mermaid: 'mmd',
  dot: 'dot',
  svg: 'svg',
  sarif: 'sarif',
  html: 'html',
  github: 'github',
} satisfies Record<Format, string>;

/** Kept for the founding report only (see the header comment). */
const FOUNDER_ONLY = new Set<Format>(['svg', 'html']);

interface Case {
  input: string;
  goldenDir: string;
  founder: boolean;
}

function cases(): Case[] {
  const list: Case[] = [{ input: FOUNDING, goldenDir: GOLDEN, founder: true }];
  const live = join(FIXTURES, 'live');
  if (existsSync(live)) {
    for (const name of readdirSync(live).filter((n) => n.endsWith('.txt')).sort()) {
      list.push({ input: join(live, name), goldenDir: join(GOLDEN, 'live'), founder: false });
    }
  }
  return list;
}

const written: string[] = [];

for (const c of cases()) {
  const stem = basename(c.input).replace(/\.txt$/, '');
  test(`golden: ${relative(FIXTURES, c.input)}`, async () => {
    const analysis = analyzeFile(c.input);
    const inputUri = relative(ROOT, c.input).split('\\').join('/');
    for (const format of FORMATS) {
      if (FOUNDER_ONLY.has(format) && !c.founder) continue;
      if (ONLY && !ONLY.includes(format)) continue;
      const render = async (a: Analysis): Promise<string> => reporters[format](a, { chalk: plain, input: inputUri });
      const actual = await render(analysis);
      // Deterministic: a second run over a fresh analysis gives the same bytes.
      assert.equal(await render(analyzeFile(c.input)), actual, `${stem}.${EXTENSIONS[format]} is deterministic`);
      const path = join(c.goldenDir, `${stem}.${EXTENSIONS[format]}`);
      if (UPDATE) {
        const old = existsSync(path) ? readFileSync(path, 'utf8') : null;
        if (old !== actual) {
          mkdirSync(c.goldenDir, { recursive: true });
          writeFileSync(path, actual);
          written.push(relative(ROOT, path));
        }
        continue;
      }
      assert.ok(existsSync(path), `missing golden ${relative(ROOT, path)}: run UPDATE_GOLDEN=1 npm test`);
      assert.equal(actual, readFileSync(path, 'utf8'), `${relative(ROOT, path)} differs: review, then UPDATE_GOLDEN=1 npm test`);
    }
  });
}

test('golden: summary', () => {
  if (UPDATE) console.log(written.length > 0 ? `golden files written:\n  ${written.join('\n  ')}` : 'golden files unchanged');
});
