/**
 * The `--source` reader on a temporary folder of small files a test writes (real tree-sitter
 * grammars, the built-in lock vocabulary): `ask` writes one file and asks about the line holding a
 * marker, as a frame of `function` calling `callee`. The folder is made before the tests and
 * removed after them.
 */
import assert from 'node:assert/strict';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before } from 'node:test';
import type { SourceAnswer, SourceProbe } from '../../src/model/source.js';
import { loadSourceLocks } from '../../src/rules/source-locks.js';
import { openSourceReader, type SourceReader } from '../../src/source/index.js';
import { ROOT } from './paths.js';

export type Ask = (name: string, lines: string[], marker: string, probe?: Partial<SourceProbe>) => SourceAnswer & { notes: string[] };

export function sourceFolder(prefix: string, defaults: { function: string; callee: string }): { dir: string; ask: Ask; reader: () => SourceReader } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  let reader: SourceReader | null = null;
  before(async () => {
    reader = await openSourceReader({ dirs: [dir], cwd: dir, vocabulary: loadSourceLocks({ cwd: ROOT }), maxFileBytes: 64 * 1024 });
    await reader.prepare();
  });
  after(() => rmSync(dir, { recursive: true, force: true }));
  const ask: Ask = (name, lines, marker, probe = {}) => {
    const path = join(dir, name);
    mkdirSync(join(path, '..'), { recursive: true });
    writeFileSync(path, `${lines.join('\n')}\n`);
    const line = lines.findIndex((l) => l.includes(marker)) + 1;
    assert.ok(line > 0, `marker ${marker} not in ${name}`);
    assert.ok(reader !== null, 'the reader is opened before the tests');
    const report = reader.read([{ id: 1, path: name, line, function: probe.function ?? defaults.function, callee: probe.callee === undefined ? defaults.callee : probe.callee, ...probe }]);
    return { ...(report.answers[0] as SourceAnswer), notes: report.notes };
  };
  const opened = (): SourceReader => {
    assert.ok(reader !== null, 'the reader is opened before the tests');
    return reader;
  };
  return { dir, ask, reader: opened };
}
