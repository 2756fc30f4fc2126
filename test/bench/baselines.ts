/**
 * What waitgraph is measured against, each in the same run as the thing measured:
 *   - a one-regex-per-line perl pass that folds each thread's function names (the crudest tool
 *     anyone would write; it does real work: collects every frame's function, keys a hash by the
 *     folded stack and prints how many distinct stacks there are);
 *   - a bare Node read-and-split of the file (stream it, split lines, count them): the floor for
 *     any Node program that reads the file;
 *   - `node -e 0`: the floor for starting any Node program;
 *   - the perl fold ported line for line to Node (same regex, same fold): not a target, context.
 *     It shows what Node itself costs for perl's work, i.e. how far figure 1 is from the language floor.
 */
import { createReadStream } from 'node:fs';

/**
 * The perl fold. One regex per line: a `Thread N` header starts a new thread; a `#N [0x… in ]FUNC (`
 * frame line adds FUNC to the current thread's stack. At the end the number of distinct folded
 * stacks is printed.
 */
export const PERL_FOLD = String.raw`
use strict; use warnings;
my (%stacks, @cur, $threads);
while (my $line = <>) {
  if ($line =~ /^(?:(Thread) \d|#\d+\s+(?:0x[0-9a-f]+ in )?(.+?) \()/) {
    if (defined $1) { $stacks{join(';', reverse @cur)}++ if @cur; @cur = (); $threads++; }
    else { push @cur, $2; }
  }
}
$stacks{join(';', reverse @cur)}++ if @cur;
print scalar(keys %stacks), " distinct stacks in ", ($threads // 0), " threads\n";
`;

export interface ReadSplitResult {
  bytes: number;
  lines: number;
  ms: number;
}

/**
 * Streams the file as UTF-8 and splits it into lines, keeping the unfinished last line for the next
 * chunk, as any line-oriented Node reader must. Counts lines so the work is not optimised away.
 */
export async function readAndSplit(path: string): Promise<ReadSplitResult> {
  const start = performance.now();
  let lines = 0;
  let bytes = 0;
  let rest = '';
  for await (const chunk of createReadStream(path, { encoding: 'utf8' })) {
    const text = rest + (chunk as string);
    bytes += Buffer.byteLength(chunk as string);
    const parts = text.split('\n');
    rest = parts.pop() ?? '';
    lines += parts.length;
  }
  if (rest.length > 0) lines++;
  return { bytes, lines, ms: performance.now() - start };
}

export interface NodeFoldResult {
  stacks: number;
  threads: number;
  ms: number;
}

/** PERL_FOLD in Node: the same regex on every line, the same folded-stack count. */
export async function nodeFold(path: string): Promise<NodeFoldResult> {
  const start = performance.now();
  const line = /^(?:(Thread) \d|#\d+\s+(?:0x[0-9a-f]+ in )?(.+?) \()/;
  const stacks = new Map<string, number>();
  let cur: string[] = [];
  let threads = 0;
  let rest = '';
  const fold = (): void => {
    if (cur.length === 0) return;
    const key = cur.reverse().join(';');
    stacks.set(key, (stacks.get(key) ?? 0) + 1);
  };
  const take = (text: string): void => {
    const m = line.exec(text);
    if (m === null) return;
    if (m[1] !== undefined) {
      fold();
      cur = [];
      threads++;
    } else cur.push(m[2] as string);
  };
  for await (const chunk of createReadStream(path, { encoding: 'utf8' })) {
    const text = rest + (chunk as string);
    let at = 0;
    for (let nl = text.indexOf('\n'); nl >= 0; nl = text.indexOf('\n', at)) {
      take(text.slice(at, nl));
      at = nl + 1;
    }
    rest = text.slice(at);
  }
  if (rest.length > 0) take(rest);
  fold();
  return { stacks: stacks.size, threads, ms: performance.now() - start };
}
