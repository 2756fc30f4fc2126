/**
 * The HTML report without a browser: one self-contained page (no external resource, CSP hashes
 * that match), the founding deadlock's table, graph and grouped stacks, the verdict's frames
 * marked, its data block consistent with the page. test/report/html/browser.test.ts opens it in
 * Chromium; the escape tests in test/robustness plant hostile names in it.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { renderHtml, inlineSvg, jsonForScript } from '../../../src/report/html/index.js';
import type { PageData } from '../../../src/report/html/data.js';
import { FIXTURES, FOUNDING } from '../../helpers/paths.js';
import { htmlSafetyProblem } from '../../robustness/html-safety.js';
import { analyzeFile, analyzeText } from '../pipeline.js';
import { runWaitgraph } from '../../helpers/run-cli.js';

function pageData(html: string): PageData {
  const json = /<script type="application\/json" id="wg-data">([\s\S]*?)<\/script>/.exec(html)?.[1];
  assert.ok(json, 'the page has its data block');
  return JSON.parse(json) as PageData;
}

test('founding report: a self-contained page under a CSP that allows only its own hashed script and style', async () => {
  const html = await renderHtml(analyzeFile(FOUNDING));
  assert.equal(htmlSafetyProblem(html), null);
  assert.match(html, /^<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">\n<meta http-equiv="Content-Security-Policy" content="default-src 'none'; script-src 'sha256-[A-Za-z0-9+/]+='; style-src 'sha256-[A-Za-z0-9+/]+='; base-uri 'none'; form-action 'none'">/);
  // Nothing from outside the file: no src/href, no url(), no protocol-relative or http(s) link.
  assert.doesNotMatch(html, /\s(src|href|xlink:href)=/);
  assert.doesNotMatch(html, /url\(|@import|https?:\/\/(?!www\.w3\.org\/)/);
  // No eval-like code in the page script (CSP would refuse it; the page must not need it).
  const script = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
  assert.doesNotMatch(script, /\beval\(|new Function\(|setTimeout\(\s*['"`]|innerHTML|outerHTML|insertAdjacentHTML|document\.write/);
  assert.doesNotMatch(script, /^export |^import /m, 'the module lines tsc adds are not embedded');
});

test('founding report: verdict, the cycle table with thread buttons, the inline graph, five collapsed groups', async () => {
  const html = await renderHtml(analyzeFile(FOUNDING));
  assert.match(html, /<h1 class="verdict deadlock">Deadlock: Julia GC stop-the-world ↔ LLVM ORC lazy compile \(threads 7, 8, 9\)<\/h1>/);
  assert.match(html, /<p>Threads <button type="button" class="t" data-t="7">7<\/button>, <button type="button" class="t" data-t="8">8<\/button>, <button type="button" class="t" data-t="9">9<\/button> wait for each other\. Evidence: <span class="ev inferred">inferred<\/span>/);
  const rows = html.match(/<tr( class="cycle")?><td><button/g) ?? [];
  assert.equal(rows.length, 4, 'the four waits inside the deadlock, as in the Markdown table');
  assert.equal(rows.filter((r) => r.includes('cycle')).length, 2, 'the canonical cycle 7 → 9 → 7 marked');
  assert.match(html, /<div class="svg"><svg id="graph-svg" role="img" aria-label="wait-for graph" width="\d+pt"/);
  assert.doesNotMatch(html, /<\?xml|<!DOCTYPE svg|<!--/, 'no prolog, doctype or comment from Graphviz');
  assert.match(html, /<title>thread:9<\/title>/, 'graph nodes keep their ids (the page script maps clicks by them)');
  const groups = html.match(/<details class="g" id="g\d+"><summary>/g) ?? [];
  assert.equal(groups.length, 5);
  assert.doesNotMatch(html, /<details[^>]* open/, 'groups start collapsed');
  assert.ok(html.indexOf('<summary>2 threads blocked while GC-unsafe') < html.indexOf('<summary>5 threads parked'), 'the deadlock\'s groups first');
  assert.match(html, /<b>jl_gc_wait_for_the_world<\/b>/, 'function names are marked for the search');
  assert.match(html, /<h3>Fix<\/h3><p class="fix">Make the call into the lazily compiled code GC-safe, as <code>ccall<\/code>/);
});

test('founding report: each thread has a row, the verdict frames are marked, thread 9 has its own hits', async () => {
  const analysis = analyzeFile(FOUNDING);
  const html = await renderHtml(analysis);
  const data = pageData(html);
  assert.deepEqual(data.threads.map((row) => row[0]), ['1', '2', '3', '4', '5', '6', '7', '8', '9', '10', '11', '12']);
  assert.equal(data.first, '7');
  const nine = data.threads.find((row) => row[0] === '9')!;
  assert.equal(nine[2], 45438);
  assert.equal(nine[3], 'julia');
  assert.equal(data.groups[nine[1]], 'started a garbage collection (stop-the-world)');
  // Thread 9 waits (for 7 and 8) at jl_gc_wait_for_the_world, line 0 of its stack, and holds the
  // lazy compile at julia___materialize_7661 in the merged headerless backtrace.
  const hits = data.hits['9'] ?? [];
  const verdictNotes = hits.filter((h) => h[2] === 'verdict').map((h) => data.notes[h[1]]!);
  assert.ok(verdictNotes.some((n) => /^waits for every GC-unsafe thread to reach a safepoint: thread 7 \(gc-unsafe\) \[inferred\] · rule julia\.gc\.initiator$/.test(n)), verdictNotes.join('\n'));
  assert.ok(verdictNotes.some((n) => /^holds orc:lazy-compile: which is compiling/.test(n)), verdictNotes.join('\n'));
  assert.ok(hits.some((h) => h[0] === 0 && h[2] === 'site'), 'its acquire site is the first line');
  // The line a hit names shows the hit's frame.
  const nineGroup = new RegExp(`<details class="g" id="g${nine[1]}">[\\s\\S]*?<pre class="st">([\\s\\S]*?)</pre>`).exec(html)![1]!;
  const lines = nineGroup.split('\n');
  const holds = hits.find((h) => /^holds orc:lazy-compile/.test(data.notes[h[1]]!))!;
  assert.match(lines[holds[0]]!, /<mark>#159 .*<b>julia___materialize_7661<\/b>/);
  assert.match(lines[0]!, /^<mark>#0  <b>jl_gc_wait_for_the_world<\/b>/);
  // Thread 8 shares thread 7's group but reads differently (its own pointers): it has its own stack.
  assert.ok(data.own.includes('8'));
  assert.match(html, /<template id="own-8"><pre class="st">/);
  // Every thread's hits point at lines that exist.
  for (const [key, list] of Object.entries(data.hits)) for (const hit of list) assert.ok(data.notes[hit[1]] !== undefined, `thread ${key} note ${hit[1]}`);
});

test('a healthy dump: ok verdict, no deadlock section, still every thread', async () => {
  const text = readFileSync(join(FIXTURES, 'live', 'healthy-producer-consumer.txt'), 'utf8');
  const analysis = analyzeText(text);
  assert.equal(analysis.verdict, 'ok');
  const html = await renderHtml(analysis);
  assert.equal(htmlSafetyProblem(html), null);
  assert.match(html, /<h1 class="verdict ok">No deadlock or hang found among \d+ threads<\/h1>/);
  assert.doesNotMatch(html, /<section class="deadlock">/);
  assert.equal(pageData(html).first, null);
  assert.equal(pageData(html).threads.length, analysis.threads.length);
});

test('exact grouping is selectable', async () => {
  const analysis = analyzeFile(FOUNDING);
  const exact = await renderHtml(analysis, { group: 'exact' });
  const functions = await renderHtml(analysis, { group: 'functions' });
  assert.ok((exact.match(/<details class="g"/g) ?? []).length >= (functions.match(/<details class="g"/g) ?? []).length);
});

test('inlineSvg and jsonForScript: nothing of the text can end its element', () => {
  assert.equal(inlineSvg('<?xml version="1.0"?>\n<!DOCTYPE svg>\n<!-- x -->\n<svg a="1"><!-- y --><g/></svg>\n'), '<svg id="graph-svg" role="img" aria-label="wait-for graph" a="1"><g/></svg>');
  const json = jsonForScript({ name: '</script><script>alert(1)</script>', amp: '&', sep: '\u2028' });
  assert.doesNotMatch(json, /[<>&\u2028]/);
  assert.deepEqual(JSON.parse(json), { name: '</script><script>alert(1)</script>', amp: '&', sep: '\u2028' });
});

test('CLI: --format html, with --group, exit code the verdict\'s', () => {
  const result = runWaitgraph(['--format', 'html', '--group', 'exact', FOUNDING]);
  assert.equal(result.code, 1, result.stderr);
  assert.equal(result.stderr, '');
  assert.equal(htmlSafetyProblem(result.stdout), null);
  assert.match(result.stdout, /<details class="g" id="g0">/);
});

test('the safety check itself finds an element, a handler or a raw < that the page does not write', async () => {
  const html = await renderHtml(analyzeFile(FOUNDING));
  assert.match(htmlSafetyProblem(html.replace('</summary>', '<img src="x"></summary>')) ?? '', /element <img>/);
  assert.match(htmlSafetyProblem(html.replace('</summary>', '<img src=x></summary>')) ?? '', /raw </);
  assert.match(htmlSafetyProblem(html.replace('<summary>', '<summary onclick="x()">')) ?? '', /attribute onclick/);
  assert.match(htmlSafetyProblem(html.replace('<b>syscall</b>', '<b>sys<call</b>')) ?? '', /raw </);
  assert.match(htmlSafetyProblem(html.replace('</body>', '<script>x()</script></body>')) ?? '', /3 script elements/);
  assert.match(htmlSafetyProblem(html.replace('const dataElement', 'const  dataElement')) ?? '', /script hash/);
});
