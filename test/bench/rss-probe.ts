/**
 * Preloaded into a measured child with `node --import …/rss-probe.js`: when the process exits it
 * writes its peak resident set size to the file named by WAITGRAPH_BENCH_RSS_OUT. The child runs
 * unchanged otherwise (the real bin/waitgraph.js). Does nothing without the variable, so
 * `node --test dist/test/` running this file as a test is harmless.
 */
import { writeFileSync } from 'node:fs';

const out = process.env.WAITGRAPH_BENCH_RSS_OUT;
if (out !== undefined && out !== '') {
  process.on('exit', () => {
    // resourceUsage().maxRSS is in kilobytes (getrusage ru_maxrss).
    writeFileSync(out, JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS }));
  });
}
