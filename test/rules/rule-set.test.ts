/**
 * The rule set as a whole (ESLint's checkRuleFiles, Semgrep's --test): every rule in every pack
 * folder (src/rules/packs/<pack>/) has its fixture `<id>.txt` and golden `<id>.edges` beside it,
 * ids equal file names and are unique, and on its fixture each rule yields exactly its golden —
 * no more (false positives on the near misses), no less. Fixture threads named "hit-…" must be
 * matched and "ok-…" must not, and every fixture has at least one "ok-…" near miss. The checks are
 * analyze/rule-fixtures.ts, the same that `waitgraph rules test DIR` runs on a user's pack.
 * UPDATE_GOLDEN=1 rewrites the goldens (review the diff like code).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { basename, extname, join } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { analyzeText } from '../../src/analyze/index.js';
import { builtinRulesDir, loadRules, type LoadedRules } from '../../src/rules/index.js';
import { isRuleFileName, packFolders } from '../../src/rules/builtin-dir.js';
import { checkRuleFixture, fixturePaths, orphanFixtures } from '../../src/analyze/rule-fixtures.js';

const UPDATE = process.env['UPDATE_GOLDEN'] === '1';

interface RuleFile {
  pack: string;
  path: string;
  id: string;
}

function ruleFiles(): RuleFile[] {
  const dir = builtinRulesDir();
  const out: RuleFile[] = [];
  for (const pack of packFolders(dir)) {
    for (const f of readdirSync(join(dir, pack)).sort()) {
      if (!isRuleFileName(f)) continue;
      const data = parseYaml(readFileSync(join(dir, pack, f), 'utf8')) as { id?: unknown };
      out.push({ pack, path: join(dir, pack, f), id: String(data?.id) });
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

test('the pack name is the folder: no built-in rule repeats it', () => {
  for (const f of files) {
    assert.equal(rules.byId.get(f.id)?.pack, f.pack, f.path);
    assert.equal((parseYaml(readFileSync(f.path, 'utf8')) as { pack?: unknown }).pack, undefined, `${f.path} names its pack; the folder does`);
  }
});

test('built-in rules name owner shapes, never gdb text', () => {
  for (const f of files) {
    const text = readFileSync(f.path, 'utf8');
    assert.doesNotMatch(text, /^\s*owner(Query|Answer):/m, `${f.path}: use owner: SHAPE (src/live/owner-queries.ts)`);
  }
});

test('no fixture or golden in a pack folder is orphaned', () => {
  const dir = builtinRulesDir();
  const ids = new Set(files.map((f) => f.id));
  const orphans = packFolders(dir).flatMap((pack) => orphanFixtures(join(dir, pack), ids).map((f) => `${pack}/${f}`));
  assert.deepEqual(orphans, [], 'fixtures without a rule');
});

for (const f of files) {
  test(`rule ${f.id} passes its fixture`, () => {
    const rule = rules.byId.get(f.id);
    assert.ok(rule, `${f.id} not loaded`);
    const result = checkRuleFixture(rules, rule, { update: UPDATE });
    assert.deepEqual(result.problems, []);
  });
}

test('a rule without fixture, golden or near miss fails the check', () => {
  const rule = rules.byId.get('glibc.mutex.wait')!;
  const moved = { ...rule, file: join(builtinRulesDir(), 'glibc', 'no-such.rule.yaml') };
  assert.match(checkRuleFixture(rules, moved).problems.join('\n'), /^no fixture: no-such\.rule\.txt/);
  // Its fixture, read for another rule: no line, nothing matched, no golden of that name.
  const other = { ...rules.byId.get('glibc.sleep')!, id: 'glibc.sleep', file: rule.file };
  const problems = checkRuleFixture(rules, other).problems.join('\n');
  assert.match(problems, /yields other lines than its golden/);
  assert.match(problems, /must match/);
});

/**
 * A cycle rule names a deadlock because of the rules it requires: the deadlocks it names carry its
 * title and every one of those rules, and with any one of them renamed (it still fires, under
 * another id) the same threads still deadlock while the cycle rule names none of them.
 */
for (const rule of rules.cycleRules) {
  test(`cycle rule ${rule.id} names its fixture's deadlocks for the rules it requires`, () => {
    const text = readFileSync(fixturePaths(rule.file).fixture, 'utf8');
    const analysis = analyzeText(text, { rules });
    const named = analysis.deadlocks.filter((d) => d.rules.includes(rule.id));
    assert.ok(named.length > 0, 'it names a deadlock of its fixture');
    for (const d of named) {
      assert.equal(d.title, `deadlock: ${rule.title}`, `deadlock ${d.threads.join(',')} is named by ${rule.id} but not titled by it`);
      assert.deepEqual(rule.requiredRules.filter((id) => !d.rules.includes(id)), [], `deadlock ${d.threads.join(',')} lacks rules ${rule.id} requires`);
    }
    const threads = named.map((d) => d.threads.join(','));
    for (const missing of rule.requiredRules) {
      const without = analyzeText(text, { rules: renamed(rules, missing) });
      assert.deepEqual(
        without.deadlocks.filter((d) => threads.includes(d.threads.join(','))).map((d) => d.threads.join(',')),
        threads,
        `with ${missing} renamed the deadlocks are gone, so this near miss would test nothing`,
      );
      assert.deepEqual(without.deadlocks.filter((d) => d.rules.includes(rule.id)).map((d) => d.threads.join(',')), [], `with ${missing} renamed, ${rule.id} still names deadlocks`);
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
