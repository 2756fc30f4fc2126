/**
 * The ok verdict's sentence when no thread goes on by itself (none runs, sleeps with a time limit
 * or waits on the outside world) and every wait can end through a holder the text does not show:
 * it read "Every thread is blocked, but : the process is idle" with nothing between "but" and ":".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { analyzeText } from '../../src/analyze/index.js';
import { PACKS } from '../helpers/paths.js';

test('an ok verdict with no thread that goes on by itself says every wait can still end, with no empty list', () => {
  // Real frames (qemu.cpu.start-exclusive's fixture): start_exclusive waiting for vCPUs whose
  // waits have holders the text does not show.
  const a = analyzeText(readFileSync(join(PACKS, 'qemu', 'qemu.cpu.start-exclusive.txt'), 'utf8'));
  assert.equal(a.verdict, 'ok');
  const reason = a.verdictReasons[0];
  assert.equal(reason?.kind, 'can-progress');
  assert.doesNotMatch(reason?.text ?? '', /but :|but ,|but\s*$/);
  assert.match(reason?.text ?? '', /^Every thread is blocked, but every wait can still end: the process is idle, not hung\. /);
  assert.match(reason?.text ?? '', /waits for a lock whose holder the text does not show/);
});
