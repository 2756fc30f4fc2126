/**
 * The promise of `--redact`: the redacted dump re-analyses to what the original does. Every
 * fixture of the project (fixtures/**, except golden outputs, and every rule pack's fixture) and,
 * when it is beside the checkout, every dump of the shared corpus: the same verdict, the same
 * deadlocks (their threads and signatures), the same hung threads, the same number of lines. With
 * `all` the signatures may differ (they hash the acquire sites' function names, which `all`
 * hides); the verdict, the cycles and the hung threads may not. Redacting twice gives the same text.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative } from 'node:path';
import { test } from 'node:test';
import { analyzeText } from '../../../src/analyze/index.js';
import { redactText, type RedactLevel } from '../../../src/analyze/redact/index.js';
import { loadBuiltinRules } from '../../../src/rules/builtin.js';
import type { Analysis } from '../../../src/model/analysis.js';
import { FIXTURES, HAS_SHARED_CORPUS, ROOT, SHARED_CORPUS, ruleFixtureFiles } from '../../helpers/paths.js';

const rules = loadBuiltinRules();

function dumpsUnder(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) {
      if (name !== 'golden') out.push(...dumpsUnder(path));
    } else if (/\.(txt|bt|log)$/.test(name) && !/(^|\.)expected\./.test(name)) out.push(path);
  }
  return out;
}

/** What must not change, as one comparable value. */
function outcome(a: Analysis, level: RedactLevel): unknown {
  return {
    verdict: a.verdict,
    deadlocks: a.deadlocks.map((d) => ({ threads: d.threads, evidence: d.evidence, title: d.title, ...(level === 'basic' ? { signature: d.signature } : {}) })),
    hung: a.hung,
    backtraces: a.stats.backtraces,
  };
}

function check(files: string[]): void {
  const failures: string[] = [];
  for (const file of files) {
    const text = readFileSync(file, 'utf8');
    const original = analyzeText(text, { rules });
    for (const level of ['basic', 'all'] as const) {
      const redacted = redactText(text, { level, rules });
      const shown = `${relative(ROOT, file)} (${level})`;
      if (redacted.text.split(/\r\n|\r|\n/).length !== text.split(/\r\n|\r|\n/).length) failures.push(`${shown}: the line count changed`);
      if (redactText(text, { level, rules }).text !== redacted.text) failures.push(`${shown}: a second run gave other placeholders`);
      const again = analyzeText(redacted.text, { rules });
      try {
        assert.deepEqual(outcome(again, level), outcome(original, level));
      } catch (error) {
        failures.push(`${shown}: ${(error as Error).message.split('\n').slice(0, 12).join(' ')}`);
      }
    }
  }
  assert.deepEqual(failures, []);
}

test('every fixture and rule fixture: the redacted dump has the same verdict, cycles and signatures', () => {
  const files = [...dumpsUnder(FIXTURES), ...ruleFixtureFiles()];
  assert.ok(files.length > 150, `found ${files.length} fixtures`);
  check(files);
});

test('every dump of the shared corpus: the same verdict, cycles and signatures', { skip: HAS_SHARED_CORPUS ? false : `no shared corpus at ${SHARED_CORPUS}` }, () => {
  check(dumpsUnder(SHARED_CORPUS));
});
