/**
 * The benchmark's child processes, so each measurement runs in a fresh Node:
 *   node worker.js read-split FILE   → {"bytes","lines","ms"}: the bare Node read-and-split
 *   node worker.js fold FILE         → {"stacks","threads","ms"}: the perl fold ported to Node (context, not a target)
 *   node worker.js parse FILE        → {"bytes","backtraces","frames","ms","cpuMs","importMs","maxRssKiB"}:
 *                                      the streaming parser alone (keepFrames false), file read included
 * One JSON line on stdout. With no arguments (as when `node --test dist/test/` runs every file under
 * dist/test) it does nothing.
 */
import { createReadStream } from 'node:fs';
import { nodeFold, readAndSplit } from './baselines.js';

interface ParserModule {
  DumpParser?: new (options: { onBacktrace?: (bt: { frames: unknown[] }) => void; keepFrames?: boolean }) => {
    push(chunk: string): void;
    end(): unknown;
  };
  parseDump?: (text: string) => { stats: { backtraces: number; frames: number } };
}

async function parseFile(path: string): Promise<Record<string, number>> {
  const importStart = performance.now();
  const parserUrl = new URL('../../src/parse/index.js', import.meta.url).href;
  const parser = (await import(parserUrl)) as ParserModule;
  const importMs = performance.now() - importStart;
  const start = performance.now();
  const cpuStart = process.cpuUsage();
  let bytes = 0;
  let backtraces = 0;
  let frames = 0;
  if (parser.DumpParser !== undefined) {
    const p = new parser.DumpParser({
      keepFrames: false,
      onBacktrace: (bt) => {
        backtraces++;
        frames += bt.frames.length;
      },
    });
    for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) {
      bytes += Buffer.byteLength(chunk as string);
      p.push(chunk as string);
    }
    const dump = p.end() as { stats?: { frames?: number; backtraces?: number } } | undefined;
    // With keepFrames false the callback may see empty frame lists; the stats still count them.
    if (dump?.stats?.frames !== undefined) frames = dump.stats.frames;
    if (dump?.stats?.backtraces !== undefined) backtraces = dump.stats.backtraces;
  } else if (parser.parseDump !== undefined) {
    let text = '';
    for await (const chunk of createReadStream(path, { encoding: 'utf8', highWaterMark: 1 << 20 })) text += chunk as string;
    bytes = Buffer.byteLength(text);
    const dump = parser.parseDump(text);
    backtraces = dump.stats.backtraces;
    frames = dump.stats.frames;
  } else {
    throw new Error('src/parse/index.ts exports neither DumpParser nor parseDump');
  }
  const cpu = process.cpuUsage(cpuStart);
  return { bytes, backtraces, frames, ms: performance.now() - start, cpuMs: (cpu.user + cpu.system) / 1000, importMs, maxRssKiB: process.resourceUsage().maxRSS };
}

async function main(argv: string[]): Promise<void> {
  const [mode, path] = argv;
  if (mode === undefined || path === undefined || process.env.NODE_TEST_CONTEXT !== undefined) return;
  let result: object;
  if (mode === 'read-split') result = await readAndSplit(path);
  else if (mode === 'fold') result = await nodeFold(path);
  else if (mode === 'parse') result = await parseFile(path);
  else throw new Error(`worker: unknown mode ${mode}`);
  process.stdout.write(`${JSON.stringify(result)}\n`);
}

await main(process.argv.slice(2));
