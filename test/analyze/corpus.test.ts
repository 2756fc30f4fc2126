/**
 * The shared corpus of published dumps (../shared/corpus, absent in some checkouts: then skipped):
 * every dump analyses without throwing, the text and JSON reports render, and the Julia dumps whose
 * labels say what they show get that diagnosis.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Chalk } from 'chalk';
import { analyzeText } from '../../src/analyze.js';
import { loadRules } from '../../src/rules/index.js';
import { renderJson, renderText } from '../../src/report/index.js';
import { HAS_SHARED_CORPUS, SHARED_CORPUS } from '../helpers/paths.js';

const skip = HAS_SHARED_CORPUS ? false : 'the shared corpus is not beside this checkout';

test('every corpus dump analyses and renders without throwing', { skip }, () => {
  const rules = loadRules();
  const files = readdirSync(SHARED_CORPUS).filter((f) => f.endsWith('.txt'));
  assert.ok(files.length > 0);
  for (const f of files) {
    const a = analyzeText(readFileSync(join(SHARED_CORPUS, f), 'utf8'), { rules });
    assert.ok(['deadlock', 'hang', 'crash', 'ok'].includes(a.verdict), f);
    assert.ok(renderText(a, { chalk: new Chalk({ level: 0 }) }).length > 0, f);
    JSON.parse(renderJson(a));
    for (const d of a.deadlocks) {
      assert.ok(d.cycle.length > 0, `${f}: a deadlock has a concrete cycle`);
      assert.equal(d.cycle[0]?.from, d.threads[0], `${f}: the cycle starts at the lowest thread`);
    }
  }
});

test('corpus: the Enzyme.jl#1516 gc-thread `(gdb) bt` alone is the collector compiling behind a trampoline', { skip }, () => {
  const file = readdirSync(SHARED_CORPUS).find((f) => f.startsWith('002-enzyme') && f.endsWith('.txt'));
  if (!file || !existsSync(join(SHARED_CORPUS, file))) return;
  const a = analyzeText(readFileSync(join(SHARED_CORPUS, file), 'utf8'));
  const t = a.threads[0];
  assert.ok(t?.rules.includes('julia.gc.initiator'));
  assert.ok(t?.holds.includes('julia:gc-stop'));
  assert.equal(a.verdict, 'ok', 'one thread alone cannot show the cycle');
});
