import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readReportSchema } from '../../src/report/schema/index.js';
import { foundingAnalysis, okAnalysis } from './build-analysis.js';
import { reportSchemaErrors } from './validators.js';

const roundTrip = (value: unknown): unknown => JSON.parse(JSON.stringify(value));

test('the schema is draft 2020-12 and compiles in strict mode', () => {
  const schema = readReportSchema();
  assert.equal(schema['$schema'], 'https://json-schema.org/draft/2020-12/schema');
  assert.equal(reportSchemaErrors(roundTrip(okAnalysis())), '');
});

test('hand-built analyses validate', () => {
  assert.equal(reportSchemaErrors(roundTrip(foundingAnalysis())), '');
});

test('the schema rejects what the contract forbids', () => {
  const cases: Array<[string, (a: Record<string, any>) => void]> = [
    ['unknown verdict', (a) => (a['verdict'] = 'maybe')],
    ['missing signature', (a) => delete a['deadlocks'][0]['signature']],
    ['bad thread key', (a) => (a['deadlocks'][0]['threads'] = ['seven'])],
    ['unknown field', (a) => (a['extra'] = 1)],
    ['bad edge kind', (a) => (a['edges'][0]['kind'] = 'wants')],
    ['line 0', (a) => (a['dump']['backtraces'][0]['frames'][0]['sourceLine'] = 0)],
    ['schema version 2', (a) => (a['schemaVersion'] = 2)],
  ];
  for (const [name, spoil] of cases) {
    const data = roundTrip(foundingAnalysis()) as Record<string, any>;
    spoil(data);
    assert.notEqual(reportSchemaErrors(data), '', name);
  }
});
