import { test } from 'node:test';
import assert from 'node:assert/strict';
import { createChalk } from '../../src/report/index.js';
import { runWaitgraph } from '../helpers/run-cli.js';

test('createChalk: flags beat the environment, the environment beats the terminal check', () => {
  const level = (isTTY: boolean, env: Record<string, string>, flag?: boolean): number =>
    createChalk({ isTTY, env, ...(flag !== undefined ? { flag } : {}) }).level;
  assert.equal(level(true, {}), 1, 'a terminal gets colour');
  assert.equal(level(false, {}), 0, 'a pipe does not');
  assert.equal(level(true, { NO_COLOR: '1' }), 0);
  assert.equal(level(true, { NO_COLOR: '' }), 1, 'an empty NO_COLOR is unset (no-color.org)');
  assert.equal(level(false, { FORCE_COLOR: '3' }), 3);
  assert.equal(level(true, { FORCE_COLOR: '0' }), 0);
  assert.equal(level(false, { NO_COLOR: '1' }, true), 1, '--color beats NO_COLOR');
  assert.equal(level(false, { FORCE_COLOR: '2' }, true), 2, '--color keeps a forced level');
  assert.equal(level(true, { FORCE_COLOR: '3' }, false), 0, '--no-color beats FORCE_COLOR and a terminal');
});

test('analyze --color / --no-color on a pipe', () => {
  const founding = 'fixtures/enzyme-autodiff-deferred.txt';
  const esc = /\u001b\[/;
  assert.doesNotMatch(runWaitgraph([founding], { env: { NO_COLOR: '', FORCE_COLOR: '' } }).stdout, esc);
  assert.match(runWaitgraph(['--color', founding]).stdout, esc);
  assert.match(runWaitgraph([founding], { env: { NO_COLOR: '', FORCE_COLOR: '1' } }).stdout, esc);
  assert.doesNotMatch(runWaitgraph(['--no-color', founding], { env: { NO_COLOR: '', FORCE_COLOR: '1' } }).stdout, esc);
  // Colour is for the terminal only: JSON and Markdown never carry escape codes.
  assert.doesNotMatch(runWaitgraph(['--color', '-f', 'json', founding]).stdout, esc);
  assert.doesNotMatch(runWaitgraph(['--color', '-f', 'markdown', founding]).stdout, esc);
});
