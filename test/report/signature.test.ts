/**
 * The deadlock signature identifies the same bug across reports: it must not change with
 * addresses, LWPs or gdb thread numbers, and it must differ for a different deadlock.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXTURES, FOUNDING } from '../helpers/paths.js';
import { analyzeText } from './pipeline.js';

/**
 * The same dump as another run of the same program would print it: every hex address moved
 * (consistently, so one lock is still one lock), LWPs shifted, gdb thread numbers renumbered.
 */
export function asAnotherRun(text: string): string {
  return text
    .replace(/0x([0-9a-f]{6,16})\b/g, (_, hex: string) => `0x${shiftHex(hex)}`)
    .replace(/\(LWP (\d+)\)/g, (_, lwp: string) => `(LWP ${Number(lwp) + 7919})`)
    // Owners printed by gdb are LWPs too.
    .replace(/__owner = (\d+)/g, (_, lwp: string) => `__owner = ${Number(lwp) + 7919}`)
    .replace(/^Thread (\d+) \(/gm, (_, n: string) => `Thread ${Number(n) + 20} (`);
}

/** Adds a constant in the middle digits, keeping the width, so `0x0000…` padding stays padding. */
function shiftHex(hex: string): string {
  const value = BigInt(`0x${hex}`);
  if (value === 0n) return hex;
  const shifted = value + 0x13a5000n;
  return shifted.toString(16).padStart(hex.length, '0').slice(-Math.max(hex.length, shifted.toString(16).length));
}

/** A two-mutex ABBA deadlock as gdb prints it, with the owners printed after the backtraces. */
const ABBA_WITH_OWNERS = readFileSync(join(FIXTURES, 'check', 'abba-with-owners.txt'), 'utf8');

test('the copy really differs: other thread numbers in the cycle', () => {
  const copy = analyzeText(asAnotherRun(readFileSync(FOUNDING, 'utf8')));
  assert.deepEqual(copy.deadlocks.map((d) => d.threads), [['27', '28', '29']]);
  assert.ok(copy.threads.every((t) => t.lwp === null || t.lwp > 50000), 'LWPs shifted');
});

test('founding report: same signature with other addresses, LWPs and thread numbers', () => {
  const text = readFileSync(FOUNDING, 'utf8');
  const original = analyzeText(text);
  const copy = analyzeText(asAnotherRun(text));
  assert.equal(original.deadlocks.length, 1);
  assert.equal(copy.deadlocks.length, 1);
  assert.match(original.deadlocks[0]!.signature, /^[0-9a-z-]{8,}$/);
  assert.equal(copy.deadlocks[0]!.signature, original.deadlocks[0]!.signature);
  assert.equal(copy.deadlocks[0]!.title, original.deadlocks[0]!.title);
});

test('a two-mutex ABBA deadlock gets another signature, itself stable across runs', () => {
  const abba = analyzeText(ABBA_WITH_OWNERS);
  assert.equal(abba.verdict, 'deadlock');
  assert.deepEqual(abba.deadlocks.map((d) => d.threads), [['2', '3']]);
  const founding = analyzeText(readFileSync(FOUNDING, 'utf8'));
  assert.notEqual(abba.deadlocks[0]!.signature, founding.deadlocks[0]!.signature);
  const again = analyzeText(asAnotherRun(ABBA_WITH_OWNERS));
  assert.equal(again.verdict, 'deadlock');
  assert.deepEqual(again.deadlocks.map((d) => d.threads), [['22', '23']]);
  assert.equal(again.deadlocks[0]!.signature, abba.deadlocks[0]!.signature);
});
