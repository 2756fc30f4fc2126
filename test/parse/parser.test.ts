/**
 * The shared parser skips Chevrotain's grammar validations at startup (a few ms of every run,
 * issue 7 figure 4). This test keeps them: a validating parser must build (Chevrotain throws on
 * an ambiguous or left-recursive grammar), and it must be the same grammar as the shared one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BacktraceParser, backtraceParser } from '../../src/parse/parser.js';

test('the grammar passes Chevrotain self-analysis validations; the shared parser is the same grammar', () => {
  const validated = new BacktraceParser();
  assert.deepEqual(validated.getSerializedGastProductions(), backtraceParser().getSerializedGastProductions());
});
