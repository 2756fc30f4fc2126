/** Variants of the founding report, built from its text, to prove the diagnosis follows the frames. */
export function threadBlocks(text: string): { header: number; id: number }[] {
  const lines = text.split('\n');
  const out: { header: number; id: number }[] = [];
  lines.forEach((line, i) => {
    const m = /^Thread (\d+) \(/.exec(line);
    if (m) out.push({ header: i, id: Number(m[1]) });
  });
  return out;
}

/** Removes the given threads: from each header up to the next header (or the first blank line after the stack). */
export function removeThreads(text: string, ids: number[]): string {
  const lines = text.split('\n');
  const drop = new Set<number>();
  for (const { header, id } of threadBlocks(text)) {
    if (!ids.includes(id)) continue;
    let end = header + 1;
    while (end < lines.length && !/^Thread \d+ \(/.test(lines[end] as string)) {
      if ((lines[end] as string).trim() === '' && end > header + 1) break;
      end++;
    }
    for (let i = header; i < end; i++) drop.add(i);
  }
  return lines.filter((_, i) => !drop.has(i)).join('\n');
}

/** Cuts everything from the trailing `(gdb) bt` on. */
export function withoutTrailingBt(text: string): string {
  const at = text.indexOf('(gdb) bt');
  if (at < 0) throw new Error('fixture has no (gdb) bt');
  return text.slice(0, at);
}

/** Renumbers thread headers with `map` (old → new). */
export function renumber(text: string, map: Map<number, number>): string {
  return text.replace(/^Thread (\d+) \(/gm, (all, n: string) => {
    const to = map.get(Number(n));
    return to === undefined ? all : `Thread ${to} (`;
  });
}

/** Changes every hex address (same width) and every LWP, consistently. */
export function readdress(text: string): string {
  return text
    .replace(/0x([0-9a-fA-F]+)/g, (_all, hex: string) => {
      const value = BigInt(`0x${hex}`) ^ 0x2468acn;
      const out = value.toString(16);
      return `0x${out.padStart(hex.length, '0')}`;
    })
    .replace(/LWP (\d+)/g, (_all, n: string) => `LWP ${Number(n) + 7777}`);
}

/** A fixed permutation of 1..12 with no fixed point among the cycle threads. */
export const PERMUTATION = new Map<number, number>([
  [1, 12], [2, 5], [3, 9], [4, 1], [5, 11], [6, 2], [7, 10], [8, 3], [9, 4], [10, 6], [11, 8], [12, 7],
]);
