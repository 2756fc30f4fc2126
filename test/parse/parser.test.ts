/**
 * The shared parser skips Chevrotain's grammar validations at startup (a few ms of every run,
 * issue 7 figure 4). This test keeps them: a validating parser must build (Chevrotain throws on
 * an ambiguous or left-recursive grammar), and it must be the same grammar as the shared one.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EmbeddedActionsParser } from '../../src/parse/chevrotain.js';
import { BacktraceParser, backtraceParser } from '../../src/parse/parser.js';

test('the grammar passes Chevrotain self-analysis validations; the shared parser is the same grammar', () => {
  const validated = new BacktraceParser();
  assert.deepEqual(validated.getSerializedGastProductions(), backtraceParser().getSerializedGastProductions());
});

test('the recording methods lived on a layer taken out of the chain again: none on the parser, its prototype its own class', () => {
  const parser = new BacktraceParser({ validate: false });
  assert.equal(Object.getPrototypeOf(parser), BacktraceParser.prototype);
  const own = Object.getOwnPropertyNames(parser);
  for (const name of ['CONSUME', 'CONSUME1', 'SUBRULE2', 'OR', 'OR9', 'MANY', 'ACTION', 'LA', 'consume', 'or']) {
    assert.ok(!own.includes(name), `${name} is not the parser's own property`);
  }
  assert.equal((parser as unknown as { RECORDING_PHASE: boolean }).RECORDING_PHASE, false);
  // The grammar was recorded: every rule has its productions, as with Chevrotain's own methods.
  const rules = parser.getSerializedGastProductions();
  assert.ok(rules.length > 5, `${rules.length} rules`);
  assert.ok(rules.every((r) => Array.isArray((r as { definition?: unknown[] }).definition) && ((r as { definition: unknown[] }).definition.length > 0)));
});

test('the grammar recorded on the layer is the one Chevrotain\'s own recording (methods on the parser, deleted after) gives', () => {
  const chevrotain = EmbeddedActionsParser.prototype as unknown as { enableRecording(): void; disableRecording(): void };
  class OwnRecording extends BacktraceParser {
    override enableRecording(): void {
      chevrotain.enableRecording.call(this);
    }
    override disableRecording(): void {
      chevrotain.disableRecording.call(this);
    }
  }
  const plain = new OwnRecording({ validate: false });
  assert.deepEqual(new BacktraceParser({ validate: false }).getSerializedGastProductions(), plain.getSerializedGastProductions());
});
