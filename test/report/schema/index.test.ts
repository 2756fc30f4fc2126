import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { readReportSchema } from '../../../src/report/schema/index.js';
import { renderJson } from '../../../src/report/json.js';
import type { Analysis } from '../../../src/model/analysis.js';
import { FIXTURES, FOUNDING } from '../../helpers/paths.js';
import { findDumps } from '../../../src/cli/commands/check.js';
import { foundingAnalysis, okAnalysis } from '../build-analysis.js';
import { analyzeFile } from '../pipeline.js';
import { reportSchemaErrors, sarifSchemaErrors } from '../validators.js';
import { renderSarif } from '../../../src/report/sarif.js';
import { renderDot } from '../../../src/report/dot.js';
import { dotToSvg } from '../../../src/report/svg.js';

const report = (analysis: Analysis): Record<string, any> => JSON.parse(renderJson(analysis)) as Record<string, any>;

/** Every dump the project ships: what `waitgraph check fixtures/` finds (goldens excluded). */
async function fixtureDumps(): Promise<string[]> {
  return findDumps([FIXTURES], FIXTURES);
}

test('the schema is draft 2020-12 and compiles in strict mode', () => {
  const schema = readReportSchema();
  assert.equal(schema['$schema'], 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(reportSchemaErrors(report(okAnalysis())), '');
});

test('hand-built analyses validate', () => {
  assert.equal(reportSchemaErrors(report(foundingAnalysis())), '');
});

test('every fixture dump: JSON report valid against the shipped schema, SARIF valid, DOT renders', async () => {
  const dumps = await fixtureDumps();
  assert.ok(dumps.includes(FOUNDING), 'the founding fixture is among them');
  assert.ok(dumps.some((d) => d.includes(`${join('fixtures', 'live')}`)) || !existsSync(join(FIXTURES, 'live')), 'the live captures are among them');
  for (const dump of dumps) {
    const analysis = analyzeFile(dump);
    assert.equal(reportSchemaErrors(report(analysis)), '', dump);
    // The same analyses as SARIF, against the SARIF 2.1.0 schema, and as DOT, rendered.
    assert.equal(sarifSchemaErrors(JSON.parse(renderSarif(analysis, { inputUri: dump }))), '', `${dump} (SARIF)`);
    assert.match(await dotToSvg(renderDot(analysis)), /<\/svg>\s*$/, `${dump} (DOT renders)`);
  }
});

test('the schema rejects what the contract forbids', () => {
  const cases: Array<[string, (a: Record<string, any>) => void]> = [
    ['unknown verdict', (a) => (a['verdict'] = 'maybe')],
    ['missing signature', (a) => delete a['deadlocks'][0]['signature']],
    ['thread as a word', (a) => (a['deadlocks'][0]['threads'] = ['seven'])],
    ['thread number as a string', (a) => (a['hung'] = ['7'])],
    ['unknown field', (a) => (a['extra'] = 1)],
    ['bad edge kind', (a) => (a['edges'][0]['kind'] = 'wants')],
    ['line 0', (a) => (a['threads'][0]['acquireSite'] = { function: 'f', file: null, line: null, sourceLine: 0 })],
    ['schema version 2', (a) => (a['schemaVersion'] = 2)],
    ['bad node id', (a) => (a['edges'][0]['from'] = 'thread 7')],
  ];
  for (const [name, spoil] of cases) {
    const data = report(foundingAnalysis());
    spoil(data);
    assert.notEqual(reportSchemaErrors(data), '', name);
  }
});

test('`waitgraph schema` prints the shipped schema, and the package ships it', async () => {
  const { readFileSync } = await import('node:fs');
  const { ROOT } = await import('../../helpers/paths.js');
  const { runWaitgraph } = await import('../../helpers/run-cli.js');
  const { REPORT_SCHEMA_PATH } = await import('../../../src/report/schema/index.js');
  const result = runWaitgraph(['schema']);
  assert.equal(result.code, 0);
  assert.equal(result.stdout, readFileSync(REPORT_SCHEMA_PATH, 'utf8'));
  assert.deepEqual(JSON.parse(result.stdout), readReportSchema());
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { files: string[]; exports: Record<string, string> };
  const relativePath = 'src/report/schema/report.schema.json';
  assert.ok(pkg.files.some((entry) => relativePath.startsWith(entry)), 'package.json "files" ships the schema');
  assert.equal(pkg.exports['./report.schema.json'], `./${relativePath}`);
});
