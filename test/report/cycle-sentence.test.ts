/**
 * The cycle's sentences (report/cycle-view.ts waitSentence): a thread that holds what it waits for
 * reads "which it holds itself: it holds …", one relative clause, however the hold's fragment
 * starts; a hold held by another thread reads "held by …, which …".
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import type { Edge } from '../../src/model/analysis.js';
import { waitSentence } from '../../src/report/cycle-view.js';

const edge = (kind: Edge['kind'], description: string): Edge => ({ kind, from: 'thread:2', to: 'res:mutex:0x10', evidence: 'inferred', ruleId: 'source', site: null, description });
const wait = edge('waits', 'waits for the mutex m');

test('a self-hold from the source or a rule is one clause after "which it holds itself"', () => {
  assert.equal(waitSentence('Thread 2', wait, 'Thread 2', edge('holds', 'holds `m` since a.c:3: `lock(&m);`'), true), 'Thread 2 waits for the mutex m, which it holds itself: it holds `m` since a.c:3: `lock(&m);`');
  assert.equal(waitSentence('Thread 2', wait, 'Thread 2', edge('holds', 'is inside PageHeap, which runs with the lock held'), true), 'Thread 2 waits for the mutex m, which it holds itself: it is inside PageHeap, which runs with the lock held');
  // A fragment that is its own clause stays as it is.
  assert.equal(waitSentence('Thread 2', wait, 'Thread 2', edge('holds', 'as memory shows (__owner = 12)'), true), 'Thread 2 waits for the mutex m, which it holds itself, as memory shows (__owner = 12)');
});

test('a hold by another thread reads "held by"', () => {
  assert.equal(waitSentence('Thread 2', wait, 'Thread 3', edge('holds', 'holds `m` since a.c:3: `lock(&m);`'), false), 'Thread 2 waits for the mutex m, held by Thread 3, which holds `m` since a.c:3: `lock(&m);`');
});
