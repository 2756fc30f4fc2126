/**
 * Several dumps in one run give one document per format (report/document.ts), through the real
 * CLI: SARIF one log with one run, validated against the 2.1.0 schema, each dump an artifact;
 * DOT one graph with a cluster per file, rendered by the Graphviz build the project ships
 * (@viz-js/viz) and by the `dot` binary when installed; Mermaid one flowchart; Markdown one
 * document with a section per file; JSON one array valid against the report schema.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { relative } from 'node:path';
import { FIXTURES, FOUNDING, ROOT } from '../helpers/paths.js';
import { runWaitgraph } from '../helpers/run-cli.js';
import { dotToSvg } from '../../src/report/svg.js';
import { reportSchemaErrors, sarifSchemaErrors } from './validators.js';

const ABBA = `${FIXTURES}/live/abba.txt`;
const HEALTHY = `${FIXTURES}/live/healthy-sleepers.txt`;
const FILES = [FOUNDING, ABBA, HEALTHY];
const hasDot = spawnSync('dot', ['-V']).status === 0;

interface SarifLog {
  runs: Array<{ tool: { driver: { version?: string; informationUri?: string } }; artifacts?: Array<{ location: { uri: string } }>; results: Array<{ ruleId: string; locations?: Array<{ physicalLocation?: { artifactLocation: { uri: string } }; logicalLocations?: unknown[] }> }> }>;
}

test('SARIF for several files: one valid log, one run, an artifact per file, the results of each, the version', () => {
  const r = runWaitgraph(['-f', 'sarif', ...FILES]);
  assert.equal(r.code, 1, r.stderr);
  assert.doesNotMatch(r.stdout, /^==/m, 'no banners');
  const log = JSON.parse(r.stdout) as SarifLog;
  assert.equal(sarifSchemaErrors(log), '');
  assert.equal(log.runs.length, 1);
  const run = log.runs[0]!;
  assert.match(run.tool.driver.version ?? '', /^\d+\.\d+\.\d+/);
  assert.ok(run.tool.driver.informationUri);
  // The CLI runs in the repository root, the default --sarif-root: every dump is a relative URI.
  assert.deepEqual(run.artifacts?.map((a) => a.location.uri), FILES.map((f) => relative(ROOT, f)));
  assert.deepEqual(run.results.map((x) => x.ruleId), ['waitgraph/deadlock', 'waitgraph/hang']);
});

test('--sarif-root: URIs relative to it; frame paths outside it are logical locations, never file:// URIs', () => {
  const r = runWaitgraph(['-f', 'sarif', FOUNDING]);
  const log = JSON.parse(r.stdout) as SarifLog;
  const uris = JSON.stringify(log).match(/"uri": ?"[^"]*"/g) ?? [];
  assert.ok(uris.length > 0);
  for (const uri of uris) assert.doesNotMatch(uri, /file:/, `${uri} is relative to the root`);
  // The founding dump's frames are under /cache/build/…: outside the root, so functions only.
  const locations = log.runs[0]!.results[0]!.locations ?? [];
  assert.ok(locations.length > 0);
  for (const loc of locations) {
    assert.equal(loc.physicalLocation, undefined);
    assert.ok(loc.logicalLocations && loc.logicalLocations.length > 0);
  }
  const fromFixtures = runWaitgraph(['-f', 'sarif', '--sarif-root', FIXTURES, FOUNDING]);
  const moved = JSON.parse(fromFixtures.stdout) as SarifLog;
  assert.equal(sarifSchemaErrors(moved), '');
  assert.deepEqual(moved.runs[0]!.artifacts?.map((a) => a.location.uri), ['enzyme-autodiff-deferred.txt']);
  // A root that does not hold the dump: the dump keeps its absolute URI (a result names its target).
  const elsewhere = JSON.parse(runWaitgraph(['-f', 'sarif', '--sarif-root', `${ROOT}/src`, FOUNDING]).stdout) as SarifLog;
  assert.match(elsewhere.runs[0]!.artifacts![0]!.location.uri, /^file:\/\/\/.*enzyme-autodiff-deferred\.txt$/);
});

test('DOT for several files: one graph, a cluster per file, distinct node ids; Graphviz renders it', async () => {
  const r = runWaitgraph(['-f', 'dot', ...FILES]);
  assert.equal(r.code, 1, r.stderr);
  assert.equal(r.stdout.match(/^digraph /gm)?.length, 1);
  assert.equal(r.stdout.match(/subgraph "cluster_\d+"/g)?.length, 3);
  assert.match(r.stdout, /"f1:thread:7"/);
  assert.match(r.stdout, /"f2:thread:2"/);
  const svg = await dotToSvg(r.stdout);
  assert.match(svg, /<svg/);
  assert.equal(svg.match(/class="cluster"/g)?.length, 3);
  if (hasDot) {
    const dot = spawnSync('dot', ['-Tsvg'], { input: r.stdout, encoding: 'utf8' });
    assert.equal(dot.status, 0, dot.stderr);
    assert.equal(dot.stderr, '');
  }
  const svgOut = runWaitgraph(['-f', 'svg', ...FILES]);
  assert.equal(svgOut.stdout.match(/<svg\b/g)?.length, 1, 'one SVG document');
});

test('Mermaid, Markdown and JSON for several files: one document each', () => {
  const mermaid = runWaitgraph(['-f', 'mermaid', FOUNDING, ABBA]).stdout;
  assert.equal(mermaid.match(/^flowchart /gm)?.length, 1);
  assert.equal(mermaid.match(/^ {2}subgraph /gm)?.length, 2);
  assert.equal(mermaid.match(/^ {2}end$/gm)?.length, 2);
  assert.match(mermaid, /f1_t7/);
  const markdown = runWaitgraph(['-f', 'markdown', FOUNDING, ABBA]).stdout;
  assert.deepEqual(markdown.match(/^# .*$/gm), [`# \`${FOUNDING}\``, `# \`${ABBA}\``]);
  assert.match(markdown, /^## Deadlock/m);
  const json = JSON.parse(runWaitgraph(['-f', 'json', ...FILES]).stdout) as unknown[];
  assert.equal(json.length, 3);
  for (const entry of json) assert.equal(reportSchemaErrors((entry as { report: unknown }).report ?? entry), '');
  const html = runWaitgraph(['-f', 'html', FOUNDING, ABBA]);
  assert.equal(html.code, 2);
  assert.match(html.stderr, /^waitgraph: --format html makes one page per dump: give one dump, or --format markdown for 2 in one document\n$/);
});
