/**
 * Just enough of gdb's machine interface (GDB/MI 3) to drive one gdb for a whole attach: each
 * command gets a numeric token, gdb answers `TOKEN^done[,…]` or `TOKEN^error,msg="…"`, and
 * console text arrives as `~"…"` stream records in between. Using MI (rather than several
 * `gdb -batch` runs) lets one gdb process take the backtraces and then answer the owner
 * questions they raise, and ties every error to the command that caused it.
 *
 * Sample lines this module reads:
 *   ~"#0  futex_wait (private=0, expected=2, futex_word=0x55c91ffff0a0 <lock_a>) at …:146\n"
 *   6^done,value="5790"
 *   5^error,msg="Cannot access memory at address 0x9"
 *   3^error,msg="ptrace: No such process."
 */

/** Decodes an MI c-string body starting at `text[start]` (the opening quote); returns value and end index. */
export function readCString(text: string, start: number): { value: string; end: number } {
  if (text[start] !== '"') throw new Error('MI c-string expected');
  let out = '';
  let i = start + 1;
  while (i < text.length) {
    const ch = text[i]!;
    if (ch === '"') return { value: out, end: i + 1 };
    if (ch !== '\\') {
      out += ch;
      i += 1;
      continue;
    }
    const next = text[i + 1] ?? '';
    const simple: Record<string, string> = { n: '\n', t: '\t', r: '\r', '"': '"', '\\': '\\', a: '\x07', b: '\b', f: '\f', v: '\v', e: '\x1b' };
    if (next in simple) {
      out += simple[next];
      i += 2;
    } else if (/[0-7]/.test(next)) {
      // gdb escapes non-printable bytes as three octal digits; they are UTF-8 bytes of the text.
      const bytes: number[] = [];
      while (text[i] === '\\' && /[0-7]{3}/.test(text.slice(i + 1, i + 4))) {
        bytes.push(parseInt(text.slice(i + 1, i + 4), 8));
        i += 4;
      }
      out += Buffer.from(bytes).toString('utf8');
    } else {
      out += next;
      i += 2;
    }
  }
  throw new Error('unterminated MI c-string');
}

/** Quotes text as an MI c-string parameter (file paths). Control characters are refused by callers. */
export function quoteCString(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"`;
}

export type MiRecord =
  | { type: 'result'; token: number | null; cls: string; rest: string }
  | { type: 'stream'; channel: 'console' | 'target' | 'log'; text: string }
  | { type: 'async'; text: string }
  | { type: 'prompt' }
  | { type: 'other'; text: string };

/** Classifies one line of MI output. */
export function parseMiLine(line: string): MiRecord {
  if (line === '(gdb) ' || line === '(gdb)') return { type: 'prompt' };
  const stream = /^([~@&])"/.exec(line);
  if (stream) {
    const channel = stream[1] === '~' ? 'console' : stream[1] === '@' ? 'target' : 'log';
    try {
      return { type: 'stream', channel, text: readCString(line, 1).value };
    } catch {
      return { type: 'other', text: line };
    }
  }
  const result = /^(\d*)\^(done|running|connected|error|exit)(?:,(.*))?$/.exec(line);
  if (result) {
    return { type: 'result', token: result[1] ? Number(result[1]) : null, cls: result[2]!, rest: result[3] ?? '' };
  }
  if (/^\d*[*+=]/.test(line)) return { type: 'async', text: line };
  return { type: 'other', text: line };
}

/** Reads `name="…"` from a result record's rest (`value="5790"`, `msg="…"`), or null. */
export function resultField(rest: string, name: string): string | null {
  const at = rest.indexOf(`${name}="`);
  if (at < 0 || (at > 0 && rest[at - 1] !== ',' && rest[at - 1] !== '{')) return null;
  try {
    return readCString(rest, at + name.length + 1).value;
  } catch {
    return null;
  }
}
