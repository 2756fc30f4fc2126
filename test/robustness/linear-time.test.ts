/**
 * Linear time: on every adversarial shape (shapes.ts), ten times the input costs at most twelve
 * times the CPU time of parse → analyze → every text-producing reporter. Measured with
 * process.cpuUsage (CPU time, so a loaded machine does not count), the small size grown until it
 * costs ≥ 20 ms so noise cannot dominate, min-of-3 for the small run, and the large run repeated
 * (min kept) only when the first try is over the limit, then both once more; a full GC before each run.
 *
 * A shape that is not grown (one giant line, see shapes.ts) gets GIANT_LINE_LIMIT instead: its
 * small run is a few ms and its large line outgrows the CPU caches, so under the parallel test
 * load the ratio spread 6–13.6× (12.5× failed a clean CI run) for a pipeline whose cost per pager
 * prompt stays 0.31–0.36 µs from 3,000 to 120,000 prompts. A quadratic step would still show as
 * ~100×.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { Chalk } from 'chalk';
import { analyzeText } from '../../src/analyze/index.js';
import { loadRules } from '../../src/rules/index.js';
import { renderText } from '../../src/report/text.js';
import { renderJson } from '../../src/report/json.js';
import { renderMarkdown } from '../../src/report/markdown.js';
import { renderMermaid } from '../../src/report/mermaid.js';
import { renderDot } from '../../src/report/dot.js';
import { renderSarif } from '../../src/report/sarif.js';
import { SHAPES } from './shapes.js';

const RULES = loadRules();
const NO_COLOUR = new Chalk({ level: 0 });
const LIMIT = 12;
const GIANT_LINE_LIMIT = 16;
const MIN_SMALL_MS = 20;

// A full collection before each measurement, so garbage left by the previous run is not billed to
// the next one (the usual way to get `gc` without starting node with --expose-gc).
setFlagsFromString('--expose_gc');
const collectGarbage = runInNewContext('gc') as () => void;

/** CPU milliseconds of the whole pipeline on `text`. */
function cost(text: string): number {
  collectGarbage();
  const start = process.cpuUsage();
  const analysis = analyzeText(text, { rules: RULES });
  renderText(analysis, { chalk: NO_COLOUR });
  renderJson(analysis);
  renderMarkdown(analysis);
  renderMermaid(analysis);
  renderDot(analysis);
  renderSarif(analysis);
  const used = process.cpuUsage(start);
  return (used.user + used.system) / 1000;
}

function minOf(runs: number, text: string): number {
  let best = Infinity;
  for (let i = 0; i < runs; i++) best = Math.min(best, cost(text));
  return best;
}

for (const shape of SHAPES) {
  test(`linear time: ${shape.name}`, () => {
    let n = shape.base;
    let small = shape.build(n);
    cost(small); // warm-up: JIT and caches
    let smallMs = minOf(3, small);
    for (let grow = 0; shape.grow !== false && smallMs < MIN_SMALL_MS && grow < 2; grow++) {
      n *= 2;
      small = shape.build(n);
      smallMs = minOf(3, small);
    }
    const large = shape.build(n * 10);
    let largeMs = cost(large);
    const limit = shape.grow === false ? GIANT_LINE_LIMIT : LIMIT;
    for (let retry = 0; largeMs > limit * smallMs && retry < 3; retry++) largeMs = Math.min(largeMs, cost(large));
    // Still over: the machine may have been busy through the small runs as well as the large ones
    // (a burst of other test files): measure both once more, after each other. A quadratic step
    // stays ~100× however often it is measured.
    if (largeMs > limit * smallMs) {
      smallMs = Math.min(smallMs, minOf(5, small));
      largeMs = Math.min(largeMs, minOf(2, large));
    }
    const ratio = largeMs / smallMs;
    assert.ok(
      ratio <= limit,
      `${shape.name}: ${n.toLocaleString('en')} → ${smallMs.toFixed(0)} ms, ${(n * 10).toLocaleString('en')} → ${largeMs.toFixed(0)} ms CPU (${ratio.toFixed(1)}×, limit ${limit}×)`,
    );
  });
}
