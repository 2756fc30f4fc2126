/**
 * `--format json` through the real CLI writes the report in chunks (issue 7, figure 3): on a dump
 * whose report spans many chunks, stdout must be the whole report in order, byte for byte what
 * renderJson gives, with the exit code of the verdict — to a pipe and to a file.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdtempSync, openSync, closeSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { analyzeText } from '../../../src/analyze/index.js';
import { renderJson } from '../../../src/report/json.js';
import { CHUNK_CHARS } from '../../../src/report/json-stream.js';
import { renderDump } from '../../helpers/generate-dump.js';
import { runWaitgraph } from '../../helpers/run-cli.js';
import { BIN, ROOT } from '../../helpers/paths.js';

test('--format json: a report of many chunks reaches a pipe and a file whole, with exit code 1', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wg-json-cli-'));
  const { text } = renderDump({ threads: 3000, frames: 24, seed: 7 });
  const dump = join(dir, 'dump.txt');
  writeFileSync(dump, text);
  const expected = renderJson(analyzeText(text, { keepFrames: false }));
  assert.ok(expected.length > 20 * CHUNK_CHARS, `report length ${expected.length}`);

  const piped = runWaitgraph(['--format', 'json', dump]);
  assert.equal(piped.code, 1, piped.stderr);
  assert.equal(piped.stdout, expected);

  const outPath = join(dir, 'out.json');
  const fd = openSync(outPath, 'w');
  try {
    const r = spawnSync(process.execPath, [BIN, '--format', 'json', dump], { cwd: ROOT, stdio: ['ignore', fd, 'pipe'], encoding: 'utf8', timeout: 60_000 });
    assert.equal(r.status, 1, r.stderr);
  } finally {
    closeSync(fd);
  }
  assert.equal(readFileSync(outPath, 'utf8'), expected);
});
