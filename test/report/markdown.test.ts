import { test } from 'node:test';
import assert from 'node:assert/strict';
import { code, escapeText, fenceFor, renderMarkdown } from '../../src/report/markdown.js';
import { foundingAnalysis, okAnalysis } from './build-analysis.js';

test('founding report: verdict heading, edge table, mermaid of 7, 8, 9, fix, grouped stacks', () => {
  const md = renderMarkdown(foundingAnalysis());
  assert.match(md, /^## Deadlock: Julia GC stop-the-world ↔ LLVM ORC lazy compile \(threads 7, 8, 9\)\n/);
  const tableRows = md.split('\n').filter((line) => line.startsWith('| ') && !line.startsWith('| Thread') && !line.startsWith('| ---'));
  // The canonical cycle 7 → 9 → 7 first, then thread 8's wait and 9's wait on it.
  assert.equal(tableRows.length, 4);
  assert.match(tableRows[0]!, /^\| \*\*thread 7\*\* \| `orc:lazy-compile`.* \| thread 9, which /);
  assert.match(tableRows[1]!, /^\| \*\*thread 9\*\* \| `julia:gc-stop`.* \| thread 7\b/);
  assert.match(tableRows[2]!, /^\| thread 8 \| `orc:lazy-compile`/);
  const mermaid = /```mermaid\n([\s\S]*?)```/.exec(md)?.[1] ?? '';
  for (const id of ['t7', 't8', 't9']) assert.match(mermaid, new RegExp(`^  ${id}\\(\\["thread ${id.slice(1)}`, 'm'));
  assert.match(mermaid, /r_orc_lazy_compile\["orc:lazy-compile"\]/);
  assert.match(mermaid, /r_julia_gc_stop -.->\|"held by"\| t7/);
  assert.match(md, /\*\*Fix:\*\* Make the call into the lazily compiled code GC-safe \(like `ccall` with `gc_safe=true`\)/);
  assert.match(md, /\*\*Blocked behind it:\*\* threads 1, 3, 4, 5, 6\./);
  assert.match(md, /<summary>5 threads parked at a GC safepoint: 1, 3, 4, 5, 6<\/summary>/);
  // Every thread appears in exactly one <details> block.
  assert.equal(md.match(/<details>/g)?.length, 5);
  // The deadlock's stacks come first.
  assert.ok(md.indexOf('<summary>2 threads') < md.indexOf('<summary>5 threads'));
  assert.ok(md.endsWith('\n') && !md.endsWith('\n\n'));
});

test('exact grouping is selectable', () => {
  const exact = renderMarkdown(foundingAnalysis(), { group: 'exact' });
  assert.match(exact, /<summary>5 threads parked/);
});

test('an ok analysis says so and still lists the stacks', () => {
  const md = renderMarkdown(okAnalysis());
  assert.match(md, /^## No deadlock or hang found among 2 threads\n/);
  assert.doesNotMatch(md, /```mermaid/);
  assert.equal(md.match(/<details>/g)?.length, 2);
});

test('input-derived strings cannot break the table, the details block or inject HTML', () => {
  const analysis = foundingAnalysis();
  const evil = 'f<script>alert(1)</script>|`x`</details>\n# heading';
  const bt = analysis.dump.backtraces[analysis.threads.find((t) => t.key === '7')!.backtrace]!;
  bt.frames[3]!.function = evil;
  analysis.deadlocks[0]!.cycle[0]!.wait.site!.function = evil;
  analysis.threads.find((t) => t.key === '2')!.stateText = 'waits <b>for</b> "signals" & more';
  const md = renderMarkdown(analysis);
  // Outside code (fences and code spans, which Markdown shows literally) no tag survives.
  const prose = md.replace(/^(`{3,})[^\n]*\n[\s\S]*?\n\1$/gm, '').replace(/(`+)[\s\S]*?\1/g, '');
  assert.match(md, /<script>/, 'the name is still shown, as code');
  assert.doesNotMatch(prose, /<script>|<\/details>\|/);
  assert.doesNotMatch(prose, /<b>/);
  assert.match(md, /waits &lt;b&gt;for&lt;\/b&gt; &quot;signals&quot; &amp; more/);
  // The table row keeps its five cells: the `|` inside the code span is escaped.
  const row = md.split('\n').find((line) => line.startsWith('| **thread 7**'))!;
  assert.equal(row.split(/(?<!\\)\|/).length - 2, 5);
  // The stack's fence is longer than the backticks inside it, so `</details>` stays code.
  const block = /<summary>thread 7:[^\n]*\n\n(`{3,})\n([\s\S]*?)\n\1\n/.exec(md);
  assert.ok(block, 'stack block found');
  assert.match(block[2]!, /<\/details>/);
});

test('escape helpers', () => {
  assert.equal(code('a`b'), '``a`b``');
  assert.equal(code('`a'), '`` `a ``');
  assert.equal(code('x|y', true), '`x\\|y`');
  assert.equal(fenceFor('no ticks'), '```');
  assert.equal(fenceFor('````'), '`````');
  assert.equal(escapeText('*a* _b_ <c> [d](e) | #'), '\\*a\\* \\_b\\_ &lt;c&gt; \\[d\\](e) \\| \\#');
});

test('a hang (ABBA without owners) draws the whole wait-for graph and says how to settle it', async () => {
  const { readFileSync } = await import('node:fs');
  const { join } = await import('node:path');
  const { FIXTURES } = await import('../helpers/paths.js');
  const { analyzeText } = await import('./pipeline.js');
  const text = readFileSync(join(FIXTURES, 'check', 'abba-with-owners.txt'), 'utf8');
  const analysis = analyzeText(text.slice(0, text.indexOf('(gdb) p *')));
  assert.equal(analysis.verdict, 'hang');
  const md = renderMarkdown(analysis);
  assert.match(md, /^## Hang: every thread is blocked with no time limit; threads 2, 3 /);
  assert.match(md, /### Why\n\n- Every thread is blocked with no time limit/);
  // The ABBA is among the candidate cycles, with the two owner queries that would prove it.
  assert.match(md, /### Candidate cycles/);
  assert.match(md, /\*\*threads 2, 3\*\*: .*\n   - prove it: `print \(\(pthread_mutex_t \*\) 0x561c67ba50e0\)->__data.__owner`/);
  const mermaid = /```mermaid\n([\s\S]*?)```/.exec(md)?.[1] ?? '';
  assert.match(mermaid, /t2 -->\|"waits for"\| r_mutex_0x561c67ba50e0/);
  assert.match(mermaid, /r_mutex_0x561c67ba50e0\["mutex:0x561c67ba50e0<br\/>holder unknown"\]/);
  assert.match(md, /### Waits with no known holder/);
  assert.match(md, /ask gdb: `print \(\(pthread_mutex_t \*\) 0x561c67ba50e0\)->__data.__owner`/);
});

test('several deadlocks: one numbered section and one Mermaid picture each', async () => {
  const { renderDump } = await import('../helpers/generate-dump.js');
  const { analyzeText } = await import('./pipeline.js');
  const { text, plan } = renderDump({ threads: 1000, seed: 7 });
  const analysis = analyzeText(text);
  assert.ok(plan.cycles.length >= 2, 'the generator made several cycles');
  assert.equal(analysis.deadlocks.length, plan.cycles.length);
  const md = renderMarkdown(analysis);
  assert.match(md, new RegExp(`^## ${plan.cycles.length} deadlocks found\\n`));
  for (let i = 1; i <= plan.cycles.length; i++) assert.match(md, new RegExp(`^### ${i}\\. `, 'm'));
  assert.equal(md.match(/```mermaid/g)?.length, plan.cycles.length);
  // Each section's picture names exactly its own cycle's threads.
  const pictures = [...md.matchAll(/```mermaid\n([\s\S]*?)```/g)].map((m) => m[1]!);
  analysis.deadlocks.forEach((deadlock, i) => {
    const ids = [...pictures[i]!.matchAll(/^ {2}t(\d+)\(/gm)].map((m) => m[1]);
    assert.deepEqual(ids, deadlock.threads);
  });
});

test('owner facts are listed with the gdb query that proved them', () => {
  const analysis = foundingAnalysis();
  analysis.facts = [
    { resource: 'mutex:0x55d0c0', holder: { lwp: 6170, threadId: 2 }, origin: 'gdb', query: 'print ((pthread_mutex_t *) 0x55d0c0)->__data.__owner', answer: '$1 = 6170', sourceLine: null },
    { resource: 'mutex:0x55d0e0', holder: { lwp: 6171 }, origin: 'text', query: null, answer: null, sourceLine: 40 },
  ];
  const md = renderMarkdown(analysis);
  assert.match(md, /### Lock owners\n\n- `mutex:0x55d0c0` is held by thread 2, LWP 6170 \(asked of gdb\): `print \(\(pthread_mutex_t \*\) 0x55d0c0\)->__data.__owner` → `\$1 = 6170`\n- `mutex:0x55d0e0` is held by LWP 6171 \(printed in the dump at line 40\)\n/);
});
