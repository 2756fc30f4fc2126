/**
 * Thread headers (gdb-format.md §3.2). The target id and the thread name are free text (names
 * are not escaped and may hold quotes, parentheses and `"):`), so the header is matched with a
 * greedy middle ending at the final `):`, and the middle is split from both ends.
 */
import type { ThreadInfo } from '../model/dump.js';
import { detach } from '../model/text-hygiene.js';

// `Thread 12 (Thread 0x7840dfe006c0 (LWP 45441) "julia"):` — greedy middle, final `)` + `:`.
const HEADER = /^\s*Thread (\d+(?:\.\d+)?) \((.*)\)\s*:\s*$/;
// `Task ID 3:` (Ada `task apply`, GDB ≥ 12).
const TASK_HEADER = /^\s*Task ID (\d+):\s*$/;
// systemd-coredump `Stack trace of thread 5679:` and eu-stack `TID 5678:` (kernel thread ids).
const TID_HEADER = /^\s*(?:Stack trace of thread|TID) (\d+):\s*$/;

// Known target-id prefixes; what follows is an optional `"name"` and an optional `(extra)`.
const TARGET_PREFIX =
  /^(?:Ravenscar )?(?:(?:Thread|thread) (?:0x[0-9a-fA-F]+|-?\d+(?:\.(?:0x)?[0-9a-fA-F]+)?|<main>)(?: \((?:LWP|tid) \d+\))?(?: of process \d+)?|LWP \d+(?: of process \d+)?|process \d+|Remote target)/;

// The usual header, `Thread 12 (Thread 0x7840dfe006c0 (LWP 45441) "julia"):`, with a name free of
// quotes: read by this one match instead of the general path's five (same ThreadInfo).
const USUAL_HEADER = /^Thread (\d+) \(Thread (0x[0-9a-f]+) \(LWP (\d+)\)(?: "([^"]*)")?\):$/;

/**
 * Parses a `Thread N (…):` or `Task ID N:` line, or returns null when the line is not one.
 * `shortcut` false skips the one-match path for the usual header (tests compare both ways).
 */
export function parseThreadHeader(line: string, shortcut = true): ThreadInfo | null {
  const usual = shortcut ? USUAL_HEADER.exec(line) : null;
  if (usual !== null) {
    const gdbId = detach(usual[1]!);
    const targetId = detach(line.slice(9 + gdbId.length, line.length - 2));
    // ptid and name are cut from the detached target id, so they do not pin the input chunk.
    const name = usual[4];
    return {
      id: Number(gdbId),
      gdbId,
      ptid: targetId.slice(7, 7 + usual[2]!.length),
      lwp: Number(usual[3]),
      name: name === undefined ? null : targetId.slice(targetId.length - 1 - name.length, targetId.length - 1),
      targetId,
      extra: null,
    };
  }
  const m = HEADER.exec(line);
  if (m === null) {
    const tid = TID_HEADER.exec(line);
    if (tid !== null) {
      const n = Number(tid[1]);
      return { id: n, gdbId: detach(tid[1]!), ptid: null, lwp: n, name: null, targetId: `LWP ${n}`, extra: null };
    }
    const t = TASK_HEADER.exec(line);
    if (t === null) return null;
    return { id: Number(t[1]), gdbId: detach(t[1]!), ptid: null, lwp: null, name: null, targetId: `Task ID ${t[1]}`, extra: null };
  }
  const gdbId = detach(m[1]!);
  // Kept for the whole run (every Backtrace holds its ThreadInfo): detached from the input chunk.
  const targetId = detach(m[2]!);
  const dot = gdbId.indexOf('.');
  const id = Number(dot >= 0 ? gdbId.slice(dot + 1) : gdbId);
  const info: ThreadInfo = { id, gdbId, ptid: null, lwp: null, name: null, targetId, extra: null };

  const prefix = TARGET_PREFIX.exec(targetId);
  const base = prefix ? prefix[0] : '';
  let rest = targetId.slice(base.length);
  if (prefix === null) {
    // Unknown target id: everything up to a quoted name or a trailing (extra) group.
    const quote = targetId.indexOf(' "');
    rest = quote >= 0 ? targetId.slice(quote) : '';
  }
  if (rest.startsWith(' "')) {
    // The name runs to the last `"` that is followed by the end or by ` (extra)`.
    let q = rest.lastIndexOf('"');
    while (q > 1) {
      const after = rest.slice(q + 1);
      if (after === '' || (after.startsWith(' (') && after.endsWith(')'))) {
        info.name = rest.slice(2, q);
        info.extra = after === '' ? null : after.slice(2, -1);
        break;
      }
      q = rest.lastIndexOf('"', q - 1);
    }
  } else if (rest.startsWith(' (') && rest.endsWith(')')) {
    info.extra = rest.slice(2, -1);
  }

  const hex = /^(?:Ravenscar )?Thread (0x[0-9a-fA-F]+)(?: \(LWP|$| of)/.exec(base);
  if (hex) info.ptid = hex[1]!.toLowerCase();
  else {
    // GDB ≤ 6.6 printed the pthread_t in decimal, possibly negative: `Thread -1210868832 (LWP 26975)`.
    const dec = /^Thread (-?\d+) \(LWP/.exec(base);
    if (dec) {
      let v = BigInt(dec[1]!);
      if (v < 0n) v += 1n << 32n;
      info.ptid = `0x${v.toString(16)}`;
    }
  }
  const lwp = /(?:LWP|process|tid) (\d+)/.exec(base);
  if (lwp) info.lwp = Number(lwp[1]);
  return info;
}
