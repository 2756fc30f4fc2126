/** `waitgraph rules test DIR`: a user's pack under test with the built-in packs' checks. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ROOT } from '../../helpers/paths.js';
import { runWaitgraph } from '../../helpers/run-cli.js';

const EXAMPLES = join(ROOT, 'test', 'rules', 'examples');
const SPIN = readFileSync(join(EXAMPLES, 'spin.txt'), 'utf8');

/** A user pack folder holding the README's spin-lock rule and a fixture with a hit and a near miss. */
function pack(): string {
  const dir = join(mkdtempSync(join(tmpdir(), 'waitgraph-rules-test-')), 'myapp');
  mkdirSync(dir);
  copyFileSync(join(EXAMPLES, 'myapp.spinlock.wait.yaml'), join(dir, 'myapp.spinlock.wait.yaml'));
  const nearMiss = SPIN.replace('"myapp"', '"ok-yield-in-main"').replace(/#1 .*myapp_spin_lock.*\n(#2 .*table_dump.*\n)/, '$1');
  writeFileSync(join(dir, 'myapp.spinlock.wait.txt'), nearMiss.replace('"poller"', '"hit-poller"'));
  return dir;
}

test('rules test: --update writes the golden, then the pack passes (exit 0)', () => {
  const dir = pack();
  const first = runWaitgraph(['rules', 'test', dir]);
  assert.equal(first.code, 1, first.stdout);
  assert.match(first.stdout, /^FAIL  myapp\.spinlock\.wait .*\n {6}no golden: myapp\.spinlock\.wait\.edges beside the rule/m);
  const update = runWaitgraph(['rules', 'test', '--update', dir]);
  assert.equal(update.code, 0, update.stdout);
  assert.equal(readFileSync(join(dir, 'myapp.spinlock.wait.edges'), 'utf8'), 'thread 2 fired\nthread 2 state spin-wait\nthread 2 waits spinlock:0x55f1c2a04060 #1\n');
  const again = runWaitgraph(['rules', 'test', dir]);
  assert.equal(again.code, 0);
  assert.match(again.stdout, /^ok    myapp\.spinlock\.wait  1 hit, 1 near miss .*myapp\.spinlock\.wait\.txt$/m);
  assert.match(again.stdout, /\n1 rule: 1 passed, 0 failed\n$/);
  assert.doesNotMatch(again.stdout, /glibc\./, 'only the pack given is tested, though it loads with the built-ins');
});

test('rules test: a near miss the rule matches, a missing near miss, a stale golden and an orphan fail (exit 1)', () => {
  const dir = pack();
  runWaitgraph(['rules', 'test', '--update', dir]);
  const fixture = join(dir, 'myapp.spinlock.wait.txt');
  writeFileSync(fixture, readFileSync(fixture, 'utf8').replace('"hit-poller"', '"ok-poller"'));
  writeFileSync(join(dir, 'myapp.gone.txt'), SPIN);
  const r = runWaitgraph(['rules', 'test', dir]);
  assert.equal(r.code, 1);
  assert.match(r.stdout, /^ {6}thread 2 "ok-poller" must not match$/m);
  assert.match(r.stdout, /^FAIL  .*myapp\.gone\.txt: a fixture or golden without its rule$/m);
  writeFileSync(fixture, SPIN.replace('"poller"', '"hit-poller"').replace('"myapp"', '"main"'));
  writeFileSync(join(dir, 'myapp.spinlock.wait.edges'), 'thread 2 fired\n');
  const stale = runWaitgraph(['rules', 'test', dir]);
  assert.match(stale.stdout, /^ {6}no near miss: the fixture needs an "ok-…" thread/m);
  assert.match(stale.stdout, /^ {8}\+ thread 1 fired$/m, 'the golden difference, line by line');
});

test('rules test: the built-in packs when no folder is given; a missing folder or a bad rule is exit 2', () => {
  const builtins = runWaitgraph(['rules', 'test']);
  assert.equal(builtins.code, 0, builtins.stdout);
  assert.match(builtins.stdout, /^ok    glibc\.mutex\.wait /m);
  assert.match(builtins.stdout, /\n\d+ rules: (\d+) passed, 0 failed\n$/);
  assert.equal(runWaitgraph(['rules', 'test', 'no/such/pack']).code, 2);
  const bad = runWaitgraph(['rules', 'test', EXAMPLES]);
  assert.equal(bad.code, 2);
  assert.match(bad.stderr, /myapp\.typo\.yaml:6: match\.frames\[0\]\.funtion: unknown field/);
});
