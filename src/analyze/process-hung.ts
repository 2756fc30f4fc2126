/**
 * "Does the whole process look hung?" from the text alone: every thread is stopped in a wait
 * primitive and none of those waits has a time limit (no sleep, no timed wait). A process like
 * that makes no progress unless something outside it (a signal, I/O) wakes a thread. It is a
 * note, not a verdict: an idle server blocked in accept/epoll looks the same.
 */
export interface ThreadWaitShape {
  /** The stack starts with wait primitives. */
  blocked?: boolean;
  /** Some rule that fired on the thread says its wait has a time limit. */
  timed: boolean;
}

export const WHOLE_PROCESS_HUNG_NOTE = 'Every thread is blocked in a wait with no time limit: the whole process looks hung.';

export function wholeProcessLooksHung(threads: ReadonlyArray<ThreadWaitShape>): boolean {
  return threads.length > 0 && threads.every((t) => t.blocked === true && !t.timed);
}
