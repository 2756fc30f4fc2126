import { test } from 'node:test';
import assert from 'node:assert/strict';
import { DEADLOCK_RULE, FINGERPRINT_KEY, HANG_RULE, renderSarif, toUri } from '../../src/report/sarif.js';
import type { Analysis } from '../../src/model/analysis.js';
import { foundingAnalysis, okAnalysis } from './build-analysis.js';
import { sarifSchemaErrors } from './validators.js';

interface SarifLog {
  runs: Array<{
    tool: { driver: { name: string; version?: string; rules: Array<{ id: string }> } };
    results: Array<{
      ruleId: string;
      ruleIndex: number;
      level: string;
      message: { text: string };
      locations?: Array<{ physicalLocation?: { artifactLocation: { uri: string }; region?: { startLine: number } }; logicalLocations?: Array<{ fullyQualifiedName: string }> }>;
      relatedLocations?: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }>;
      partialFingerprints?: Record<string, string>;
      properties?: Record<string, unknown>;
    }>;
  }>;
}

function sarif(analysis: Analysis, options = {}): SarifLog {
  const text = renderSarif(analysis, options);
  const data = JSON.parse(text) as SarifLog;
  assert.equal(sarifSchemaErrors(data), '', 'valid against the SARIF 2.1.0 schema');
  return data;
}

test('founding report: one deadlock result, valid SARIF 2.1.0', () => {
  const analysis = foundingAnalysis();
  const log = sarif(analysis, { version: '0.1.0', inputUri: 'fixtures/enzyme-autodiff-deferred.txt' });
  const run = log.runs[0]!;
  assert.equal(run.tool.driver.name, 'waitgraph');
  assert.equal(run.results.length, 1);
  const result = run.results[0]!;
  assert.equal(result.ruleId, DEADLOCK_RULE);
  assert.equal(run.tool.driver.rules[result.ruleIndex]!.id, DEADLOCK_RULE);
  assert.equal(result.level, 'error');
  assert.equal(result.message.text, analysis.deadlocks[0]!.explanation);
  assert.equal(result.partialFingerprints?.[FINGERPRINT_KEY], analysis.deadlocks[0]!.signature);
  assert.deepEqual(result.properties?.['threads'], ['7', '8', '9']);
  // Every rule behind the deadlock is described in the driver.
  const ruleIds = run.tool.driver.rules.map((r) => r.id);
  for (const id of analysis.deadlocks[0]!.rules) assert.ok(ruleIds.includes(id), id);
});

test('locations: file:line when the frame has it, a logical location when not', () => {
  const result = sarif(foundingAnalysis()).runs[0]!.results[0]!;
  const locations = result.locations!;
  assert.equal(locations.length, 3);
  // Threads 7 and 8 wait in libLLVM frames without source: logical locations.
  assert.equal(locations[0]!.physicalLocation, undefined);
  assert.equal(locations[0]!.logicalLocations![0]!.fullyQualifiedName, 'llvm::orc::LocalTrampolinePool<llvm::orc::OrcX86_64_SysV>::reenter(void*, void*)');
  // Thread 9's acquire site has file and line.
  assert.equal(locations[2]!.physicalLocation!.artifactLocation.uri, 'file:///cache/build/builder-amdci4-2/julialang/julia-release-1-dot-10/src/gc.c');
  assert.equal(locations[2]!.physicalLocation!.region!.startLine, 241);
});

test('with the input named, related locations point at the frame lines in the dump', () => {
  const analysis = foundingAnalysis();
  const result = sarif(analysis, { inputUri: 'fixtures/enzyme-autodiff-deferred.txt' }).runs[0]!.results[0]!;
  const lines = result.relatedLocations!.map((l) => l.physicalLocation.region.startLine);
  assert.ok(lines.includes(analysis.deadlocks[0]!.cycle[0]!.wait.site!.sourceLine));
  for (const l of result.relatedLocations!) assert.equal(l.physicalLocation.artifactLocation.uri, 'fixtures/enzyme-autodiff-deferred.txt');
});

test('ok: no results, still a valid log; hang: one warning result', () => {
  assert.equal(sarif(okAnalysis()).runs[0]!.results.length, 0);
  const hung = okAnalysis();
  hung.verdict = 'hang';
  hung.hung = ['2'];
  hung.threads[0]!.acquireSite = { backtrace: 0, level: 0, function: 'epoll_wait', file: null, line: null, sourceLine: 2 };
  const results = sarif(hung).runs[0]!.results;
  assert.equal(results.length, 1);
  assert.equal(results[0]!.ruleId, HANG_RULE);
  assert.equal(results[0]!.level, 'warning');
});

test('output is deterministic and carries no timestamps', () => {
  const a = renderSarif(foundingAnalysis());
  assert.equal(renderSarif(foundingAnalysis()), a);
  assert.doesNotMatch(a, /\d{4}-\d{2}-\d{2}T/);
});

test('paths become URI references', () => {
  assert.equal(toUri('src/unix/thread.c'), 'src/unix/thread.c');
  assert.equal(toUri('/usr/src/a b.c'), 'file:///usr/src/a%20b.c');
  assert.equal(toUri('C:\\src\\x.c'), 'file:///C:/src/x.c');
  assert.equal(toUri('/x/c++/#1.cc'), 'file:///x/c++/%231.cc');
  for (const p of ['/usr/src/a b.c', 'C:\\src\\x.c', 'weird%path/ü.c']) assert.doesNotThrow(() => new URL(toUri(p), 'file:///base/'));
});

test('the SARIF schema check is real: a spoiled log fails it', () => {
  const log = JSON.parse(renderSarif(foundingAnalysis())) as Record<string, any>;
  delete log['runs'][0]['results'][0]['message'];
  assert.notEqual(sarifSchemaErrors(log), '');
  const other = JSON.parse(renderSarif(foundingAnalysis())) as Record<string, any>;
  other['runs'][0]['results'][0]['level'] = 'fatal';
  assert.notEqual(sarifSchemaErrors(other), '');
});
