/**
 * Preloaded into a measured child with `node --require …/rss-probe.cjs`: when the process exits it
 * writes its peak resident set size and CPU time to the file named by WAITGRAPH_BENCH_RSS_OUT. The child runs
 * unchanged otherwise (the real bin/waitgraph.js). Does nothing without the variable, so
 * `node --test dist/test/` running this file as a test is harmless.
 *
 * CommonJS, and preloaded with --require: an ES module preloaded with --import starts Node's ES
 * module loader in every measured child, a cost (~7 ms) the CommonJS bin/waitgraph.js does not
 * have on its own (figure 4 would have measured the probe, not the CLI).
 */
import { writeFileSync } from 'node:fs';

const out = process.env.WAITGRAPH_BENCH_RSS_OUT;
if (out !== undefined && out !== '') {
  process.on('exit', () => {
    // resourceUsage().maxRSS is in kilobytes (getrusage ru_maxrss); cpuUsage() counts every thread
    // of the process (GC helpers too), in microseconds: CPU time a loaded machine distorts less
    // than wall time.
    const cpu = process.cpuUsage();
    writeFileSync(out, JSON.stringify({ maxRssKiB: process.resourceUsage().maxRSS, cpuMs: (cpu.user + cpu.system) / 1000 }));
  });
}
