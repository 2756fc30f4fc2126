/**
 * Partial pastes, said to be partial: a report on half a dump reads as a verdict on the whole
 * process unless it says what is missing. One line names what the paste lacks and the gdb command
 * that captures it:
 *
 * - only `info threads` rows (one frame a thread, no backtraces) → `thread apply all bt`;
 * - one thread's backtrace (a plain `bt`, or Julia's dump of fewer threads than its process has)
 *   → `thread apply all bt`;
 * - every backtrace cut at `(More stack frames follow...)` before any frame a rule knows → `set
 *   backtrace limit unlimited`;
 * - the paste stops in the middle of a thread → `thread apply all bt full`, the whole output.
 *
 * The verdict still comes from what is there; threads known only from an `info threads` row make
 * no hang (the rules that read a wait as an idle pool's need the outer frames), unless the row's one
 * frame is a lock wait, which is never idle (verdict.ts).
 */
import type { PartialPaste, ThreadAnalysis } from '../model/analysis.js';
import type { Backtrace, Dump } from '../model/dump.js';
import { threadTitleText } from './crash.js';

export function findPartial(dump: Dump, threads: readonly ThreadAnalysis[]): PartialPaste | null {
  const all = dump.backtraces;
  if (all.length === 0) return null;
  const stacks = all.filter((bt) => bt.source !== 'info-threads' && bt.source !== 'selected-frame');
  if (stacks.length === 0) {
    return {
      kind: 'info-threads',
      text: `The paste holds only \`info threads\` rows (${all.length} ${all.length === 1 ? 'thread' : 'threads'}, each its current frame): no backtraces, so no wait's holder can be known.`,
      command: 'thread apply all bt',
    };
  }
  // Real threads (a parked Julia task is none).
  const shown = threads.filter((t) => !/\.task-/.test(t.key) && t.state !== 'task-parked');
  const julia = dump.process;
  if (julia !== undefined && julia.threads > shown.length && shown.length > 0) {
    return {
      kind: 'one-thread',
      text: `Julia's dump shows ${shown.length} of the process's ${julia.threads} threads (\`cmd: … running ${julia.running} of ${julia.threads}\`); the others are not in the paste.`,
      command: 'thread apply all bt',
    };
  }
  if (shown.length === 1 && onlyThreadIsPartOfMore(shown[0]!)) {
    return {
      kind: 'one-thread',
      text: `The paste holds one thread's backtrace (${shown[0]!.key.startsWith('bt@') ? 'a plain `bt` of the current thread' : threadTitleText(shown[0]!.key)}); the process's other threads are not in it.`,
      command: 'thread apply all bt',
    };
  }
  if (stacks.every((bt) => bt.truncatedBy === 'limit') && threads.every((t) => t.stateRule === undefined)) {
    return {
      kind: 'backtrace-limit',
      text: `Every backtrace stops at \`(More stack frames follow...)\` before any frame a rule knows: a backtrace limit (\`bt N\`, \`set backtrace limit\`) cut them; then run \`thread apply all bt\` again.`,
      command: 'set backtrace limit unlimited',
    };
  }
  const last = lastInInput(stacks);
  if (last !== null && last.truncatedBy === 'paste') {
    const who = last.thread === null ? `the backtrace at line ${last.startLine}` : last.thread.gdbId.includes('.task-') ? 'a Julia task' : `thread ${last.thread.gdbId}`;
    return {
      kind: 'cut-mid-thread',
      text: `The paste stops in the middle of ${who} (line ${last.endLine}): its outer frames, and any thread after it, are missing; paste the whole output.`,
      command: 'thread apply all bt full',
    };
  }
  return null;
}

/**
 * A lone thread is part of a larger process when it has no thread header (a plain `bt`) or gdb
 * numbers it above 1 (threads 1… exist).
 */
function onlyThreadIsPartOfMore(t: ThreadAnalysis): boolean {
  if (t.key.startsWith('bt@')) return true;
  return t.id !== null && t.id > 1;
}

function lastInInput(stacks: readonly Backtrace[]): Backtrace | null {
  let last: Backtrace | null = null;
  for (const bt of stacks) if (last === null || bt.startLine > last.startLine) last = bt;
  return last;
}
