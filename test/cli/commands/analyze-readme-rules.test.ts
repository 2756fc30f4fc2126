/**
 * The README's worked rule example is the real example file, and it does what the README says:
 * without it the spin-lock dump is ok (exit 0); with --rules it is a hang naming the lock (exit 1).
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { test } from 'node:test';
import { ROOT } from '../../helpers/paths.js';
import { runWaitgraph } from '../../helpers/run-cli.js';

const RULE = 'test/rules/examples/myapp.spinlock.wait.yaml';
const DUMP = 'test/rules/examples/spin.txt';

test('README shows the example rule file verbatim', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  assert.ok(readme.includes('```yaml\n' + readFileSync(join(ROOT, RULE), 'utf8')), 'README yaml block == the example file');
});

test('the README command: ok without the rule, hang on the spin lock with it', () => {
  const without = runWaitgraph([DUMP]);
  assert.equal(without.code, 0, without.stderr);
  const withRule = runWaitgraph(['--rules', RULE, DUMP]);
  assert.equal(withRule.code, 1, withRule.stderr);
  assert.match(withRule.stdout, /^Hang: /);
  assert.match(withRule.stdout, /spinlock:0x55f1c2a04060/);
  assert.match(withRule.stdout, /owner_tid/);
});
