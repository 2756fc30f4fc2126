/**
 * What the HTML report's page script reads: the page's JSON data block (`<script
 * type="application/json" id="wg-data">`), written by html/index.ts and read by html/client.ts.
 * Types only, so the client imports nothing at run time.
 */

/**
 * How a frame is marked in a thread's stack:
 * - `verdict`: an edge of the deadlock (or of a hung thread's wait) comes from this frame;
 * - `rule`: another rule concluded something from it;
 * - `site`: where the thread asked for what it waits for (its acquire site).
 */
export type HitKind = 'verdict' | 'rule' | 'site';

/** One marked line of a stack: its index among the stack's lines, the note's index, the kind. */
export type Hit = [line: number, note: number, kind: HitKind];

/** One thread: its key, its group's index, its LWP and its name (null when gdb printed none). */
export type ThreadRow = [key: string, group: number, lwp: number | null, name: string | null];

export interface PageData {
  /** Every thread, in thread order. */
  threads: ThreadRow[];
  /** Per group (by index, the `g<i>` elements' order): the state its threads are in. */
  groups: string[];
  /** Threads shown with their own stack (`<template id="own-<key>">`) instead of their group's. */
  own: string[];
  /** Marked lines per thread key; line indexes count in the stack the thread is shown with. */
  hits: Record<string, Hit[]>;
  /** The notes hits point at (one copy of each text). */
  notes: string[];
  /** Per resource node of the graph (`res:<id>`): who waits for it and who holds it. */
  resources: Record<string, { waiters: string[]; holders: string[] }>;
  /** The thread shown when the page opens: the first of the first deadlock, else the first hung one. */
  first: string | null;
}
