/**
 * gdb's signal lines (gdb-format.md §3.7; gdb/infrun.c print_signal_received_reason, gdb/corelow.c):
 * the program stopped on a signal, or a core says which signal ended it. Kept in `Dump.signals`
 * so a crash names its thread and its signal.
 *
 *   Thread 23 "thread_method" received signal SIGABRT, Aborted.
 *   Thread 2 received signal SIGSEGV, Segmentation fault.
 *   Program received signal SIGSEGV, Segmentation fault.
 *   Program terminated with signal SIGSEGV, Segmentation fault.
 *   Program terminated with signal 11, Segmentation fault.        (gdb ≤ 7.x: the number)
 */
import type { SignalLine } from '../model/dump.js';
import { detach } from '../model/text-hygiene.js';
import { readJuliaSignal } from './julia.js';

const RECEIVED = ' received signal ';
const PROGRAM_RECEIVED = 'Program received signal ';
const PROGRAM_TERMINATED = 'Program terminated with signal ';
/** `SIGSEGV, Segmentation fault.` → the name and the description (the name is one word). */
const SIGNAL_AND_TEXT = /^(SIG[A-Z0-9+]+|\?|\d+), /;
const THREAD_ID = /^Thread (\d+(?:\.\d+)?)(?: "|$)/;

/**
 * The signal a line reports, or null when it is no signal line. Linear in the line. Julia's own
 * (`signal (10): User defined signal 1`, `[9614] signal 11 (1): Segmentation fault`) stop the
 * thread whose frames it prints next, as `Program received signal` does.
 */
export function readSignalLine(text: string, sourceLine: number): SignalLine | null {
  const t = text.trim();
  const julia = readJuliaSignal(t);
  if (julia !== null) return { signal: detach(julia.signal), description: detach(julia.description), how: 'received', thread: null, sourceLine };
  if (t.startsWith(PROGRAM_RECEIVED)) return signalAt(t, PROGRAM_RECEIVED.length, 'received', null, sourceLine);
  if (t.startsWith(PROGRAM_TERMINATED)) return signalAt(t, PROGRAM_TERMINATED.length, 'terminated', null, sourceLine);
  if (!t.startsWith('Thread ')) return null;
  // The thread name is free text (it may hold ` received signal `): the last one ends it.
  const at = t.lastIndexOf(RECEIVED);
  if (at < 0) return null;
  const head = t.slice(0, at);
  const id = THREAD_ID.exec(head);
  if (id === null) return null;
  // `Thread 23 "name"` or `Thread 23`: nothing else may stand before ` received`.
  const rest = head.slice(id[0].length);
  if (id[0].endsWith('"') ? !rest.endsWith('"') : rest !== '') return null;
  return signalAt(t, at + RECEIVED.length, 'received', detach(id[1]!), sourceLine);
}

function signalAt(t: string, from: number, how: SignalLine['how'], thread: string | null, sourceLine: number): SignalLine | null {
  const m = SIGNAL_AND_TEXT.exec(t.slice(from));
  if (m === null) return null;
  let description = t.slice(from + m[0].length);
  if (description.endsWith('.')) description = description.slice(0, -1);
  return { signal: detach(m[1]!), description: detach(description), how, thread, sourceLine };
}
