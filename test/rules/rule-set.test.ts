/**
 * The rule set as a whole (ESLint's checkRuleFiles, Semgrep's --test): every rule in every pack
 * folder has a fixture dump and a golden, ids equal file names and are unique, and on its fixture
 * each rule yields exactly its golden — no more (false positives on the near misses), no less.
 * Fixture threads named "hit-…" must be matched and "ok-…" must not. A cycle rule titles the
 * deadlocks it names, which carry every rule it requires, and names none once any one of those
 * rules fires under another id (the same threads still deadlock: its near miss).
 * UPDATE_GOLDEN=1 rewrites the goldens (review the diff like code).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { analyzeText } from '../../src/analyze/index.js';
import { builtinRulesDir, loadRules, type LoadedRules } from '../../src/rules/index.js';
import { FIXTURES } from '../helpers/paths.js';
import { ruleLines } from './golden.js';

const RULE_FIXTURES = join(FIXTURES, 'rules');
const UPDATE = process.env['UPDATE_GOLDEN'] === '1';

interface RuleFile {
  pack: string;
  path: string;
  id: string;
}

function ruleFiles(): RuleFile[] {
  const dir = builtinRulesDir();
  const out: RuleFile[] = [];
  for (const pack of readdirSync(dir).sort()) {
    const packDir = join(dir, pack);
    if (!statSync(packDir).isDirectory()) continue;
    for (const f of readdirSync(packDir).sort()) {
      if (!['.yaml', '.yml', '.json'].includes(extname(f))) continue;
      const data = parseYaml(readFileSync(join(packDir, f), 'utf8')) as { id?: unknown };
      out.push({ pack, path: join(packDir, f), id: String(data?.id) });
    }
  }
  return out;
}

const files = ruleFiles();
const rules = loadRules();

test('every rule file is named after its id, and ids are unique across packs', () => {
  const seen = new Map<string, string>();
  for (const f of files) {
    assert.equal(basename(f.path, extname(f.path)), f.id, `${f.path}: id and file name differ`);
    assert.ok(!seen.has(f.id), `${f.id} defined in ${f.path} and ${seen.get(f.id)}`);
    seen.set(f.id, f.path);
  }
  assert.equal(rules.byId.size, files.length, 'the loader loads every rule file');
});

test('every rule has a fixture dump and a golden; no fixture is orphaned', () => {
  const missing = files.filter((f) => !existsSync(join(RULE_FIXTURES, `${f.id}.txt`)) || (!UPDATE && !existsSync(join(RULE_FIXTURES, `${f.id}.edges`))));
  assert.deepEqual(missing.map((f) => f.id), [], 'rules without fixtures/rules/<id>.txt and .edges');
  const ids = new Set(files.map((f) => f.id));
  const orphans = readdirSync(RULE_FIXTURES).filter((f) => /\.(txt|edges)$/.test(f) && !ids.has(f.replace(/\.(txt|edges)$/, '')));
  assert.deepEqual(orphans, [], 'fixtures without a rule');
});

for (const f of files) {
  const fixture = join(RULE_FIXTURES, `${f.id}.txt`);
  if (!existsSync(fixture)) continue;
  test(`rule ${f.id} yields exactly its golden on its fixture`, () => {
    const rule = rules.byId.get(f.id);
    assert.ok(rule, `${f.id} not loaded`);
    const analysis = analyzeText(readFileSync(fixture, 'utf8'), { rules });
    const lines = ruleLines(analysis, f.id, rule.kind);
    const goldenPath = join(RULE_FIXTURES, `${f.id}.edges`);
    if (UPDATE) writeFileSync(goldenPath, `${lines.join('\n')}\n`);
    const golden = readFileSync(goldenPath, 'utf8').split('\n').filter((l) => l.trim() !== '' && !l.startsWith('#'));
    assert.deepEqual(lines, golden);
    assert.ok(lines.length > 0, 'the rule fires somewhere in its fixture');
    if (rule.kind === 'thread') {
      const fired = new Set(analysis.threads.filter((t) => t.rules.includes(f.id)).map((t) => t.key));
      assert.ok(analysis.threads.some((t) => !fired.has(t.key)), 'the fixture has a near miss the rule does not fire on');
      for (const t of analysis.threads) {
        if (t.name?.startsWith('hit')) assert.ok(fired.has(t.key), `thread ${t.key} "${t.name}" must match`);
        if (t.name?.startsWith('ok')) assert.ok(!fired.has(t.key), `thread ${t.key} "${t.name}" must not match`);
      }
    } else {
      // The deadlocks it names carry its title and every rule it requires…
      for (const d of analysis.deadlocks.filter((x) => x.rules.includes(f.id))) {
        assert.equal(d.title, `deadlock: ${rule.title}`, `deadlock ${d.threads.join(',')} is named by ${f.id} but not titled by it`);
        const lacking: string[] = rule.requiredRules.filter((id) => !d.rules.includes(id));
        assert.deepEqual(lacking, [], `deadlock ${d.threads.join(',')} is named by ${f.id} without the rules it requires`);
      }
      // …and when any one of those rules fires under another name, the same threads still
      // deadlock but the cycle rule no longer names them: the near miss of a cycle rule.
      const named = analysis.deadlocks.filter((d) => d.rules.includes(f.id)).map((d) => d.threads.join(','));
      for (const missing of rule.requiredRules) {
        const without = analyzeText(readFileSync(fixture, 'utf8'), { rules: renamed(rules, missing) });
        assert.deepEqual(
          without.deadlocks.filter((d) => named.includes(d.threads.join(','))).map((d) => d.threads.join(',')),
          named,
          `with ${missing} renamed, the fixture's deadlocks are gone: the near miss tests nothing`,
        );
        const still = without.deadlocks.filter((d) => d.rules.includes(f.id)).map((d) => d.threads.join(','));
        assert.deepEqual(still, [], `with ${missing} renamed, ${f.id} still names deadlocks`);
      }
    }
  });
}

/** `rules` with one thread rule under another id: it fires as before, but not as the rule a cycle rule asks for. */
function renamed(rules: LoadedRules, id: string): LoadedRules {
  const rule = rules.byId.get(id);
  assert.ok(rule?.kind === 'thread', `${id} is a thread rule`);
  const copy = { ...rule, id: `${id}.renamed` };
  const byId = new Map(rules.byId);
  byId.delete(id);
  byId.set(copy.id, copy);
  return { ...rules, threadRules: rules.threadRules.map((r) => (r.id === id ? copy : r)), byId };
}
