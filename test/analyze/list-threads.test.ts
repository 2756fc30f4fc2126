import { test } from 'node:test';
import assert from 'node:assert/strict';
import { listThreads } from '../../src/analyze/verdict.js';

test('reasons name up to 20 threads and count the rest', () => {
  assert.equal(listThreads(['3']), 'thread 3');
  assert.equal(listThreads(['3', '5', 'bt@40']), 'threads 3, 5 and the backtrace at line 40');
  const twenty = Array.from({ length: 20 }, (_, i) => String(i + 1));
  assert.equal(listThreads(twenty), `threads ${twenty.join(', ')}`);
  const many = Array.from({ length: 64_021 }, (_, i) => String(i + 1));
  assert.equal(listThreads(many), `threads ${twenty.join(', ')} and 64,001 more`);
  assert.equal(listThreads([...many.slice(0, 21), 'bt@7']), `threads ${twenty.join(', ')}, the backtrace at line 7 and 1 more`);
});
