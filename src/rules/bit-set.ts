/**
 * A set of small non-negative numbers as bits: which of a rule set's name tests a function name
 * passes (rules/match.ts). A class with two small methods rather than bit arithmetic at each use,
 * so the matcher's loops read `tests.has(cond.test)`; V8 inlines the methods.
 */
export class BitSet {
  private readonly words: Int32Array;

  /** An empty set that can hold 0 … size − 1. */
  constructor(size: number) {
    this.words = new Int32Array((size + 31) >>> 5);
  }

  has(n: number): boolean {
    return ((this.words[n >>> 5] as number) & (1 << (n & 31))) !== 0;
  }

  add(n: number): void {
    this.words[n >>> 5] = (this.words[n >>> 5] as number) | (1 << (n & 31));
  }

  /** Adds every member of `other` (a set of the same size). */
  addAll(other: BitSet): void {
    const w = this.words;
    const o = other.words;
    for (let i = 0; i < w.length; i++) w[i] = (w[i] as number) | (o[i] as number);
  }
}
