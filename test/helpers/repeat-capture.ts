/**
 * A real capture repeated: its threads again and again with gdb numbers, LWPs and pthread_t values
 * (hex in the header, decimal in `threadid=`, the join futex word) shifted per copy, so each copy's
 * joins still name their own copy's threads; lock addresses stay, so every copy's waiters share
 * the same locks, futures and once-controls (the 8 MB dump of issue 15 was built this way).
 */
import { readFileSync } from 'node:fs';

/** The threads of `fixture` (a `thread apply all bt` capture), and a function giving copy k's text. */
export function captureCopies(fixture: string): { threads: number; copy: (k: number) => string[] } {
  const text = readFileSync(fixture, 'utf8');
  const start = text.indexOf('\nThread ');
  const end = text.indexOf('\n[Inferior');
  const body = text.slice(start + 1, end === -1 ? undefined : end + 1);
  const threads = body.split(/\n(?=Thread \d+ \()/).map((t) => (t.endsWith('\n') ? t : `${t}\n`));
  const count = threads.length;
  const STRIDE = 0x10000000n;
  const copy = (k: number): string[] =>
    threads.map((t) => {
      const shift = BigInt(k) * STRIDE;
      return t
        .replace(/^Thread (\d+) \(Thread 0x([0-9a-f]+) \(LWP (\d+)\)/, (_m, num: string, p: string, lwp: string) => `Thread ${Number(num) + k * count} (Thread 0x${(BigInt(`0x${p}`) + shift).toString(16)} (LWP ${Number(lwp) + k * 100})`)
        .replace(/threadid=(\d+)/g, (_m, d: string) => `threadid=${BigInt(d) + shift}`)
        .replace(/(expected=)(2\d{4})\b/g, (_m, e: string, lwp: string) => `${e}${Number(lwp) + k * 100}`)
        .replace(/futex_word=(futex_word@entry=)?0x(7f[0-9a-f]+)/g, (_m, e: string | undefined, a: string) => `futex_word=${e ?? ''}0x${(BigInt(`0x${a}`) + shift).toString(16)}`)
        .replace(/\n*$/, '\n\n');
    });
  return { threads: count, copy };
}

/** `threads` threads of the capture repeated (the last copy cut short). */
export function repeatCapture(fixture: string, threads: number): string {
  const { threads: per, copy } = captureCopies(fixture);
  let out = '';
  for (let k = 0; k * per < threads; k++) out += copy(k).slice(0, threads - k * per).join('');
  return out;
}
