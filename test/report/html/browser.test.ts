/**
 * The HTML report in a real browser: Debian's Chromium (`apt-get install chromium`, found at
 * /usr/bin/chromium or $WAITGRAPH_CHROMIUM) driven by playwright-core, launched once for all the
 * checks below. The founding report opens from file://, a click on thread 9 shows its stack with
 * the verdict's frames marked, the graph and the search work, the console shows no error and the
 * page no CSP violation; a dump with hostile thread and function names runs no script of its own
 * and adds no element. The screenshot goes to dist/test-output/html/ (with UPDATE_GOLDEN=1 also to
 * fixtures/golden/enzyme-autodiff-deferred.html.png, the picture the README shows).
 *
 * Skips, saying why, when Chromium or playwright-core is absent.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { FIXTURES, FOUNDING, ROOT } from '../../helpers/paths.js';
import { runWaitgraph } from '../../helpers/run-cli.js';
import { plantedAbba } from '../../robustness/hostile.js';

const CHROMIUM = process.env['WAITGRAPH_CHROMIUM'] ?? '/usr/bin/chromium';
const OUTPUT = join(ROOT, 'dist', 'test-output', 'html');
const SCREENSHOT_GOLDEN = join(FIXTURES, 'golden', 'enzyme-autodiff-deferred.html.png');

/** Flags for a closed network: no background fetches that would fail (and log) here. */
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

async function playwright(): Promise<typeof import('playwright-core') | null> {
  try {
    return await import('playwright-core');
  } catch {
    return null;
  }
}

/** Records CSP violations from the first script on: an init script is not subject to the page's CSP. */
const RECORD_VIOLATIONS = `
  window.__violations = [];
  document.addEventListener('securitypolicyviolation', (e) => window.__violations.push(e.violatedDirective + ' ' + e.blockedURI));
`;

const pw = await playwright();
const skip = !existsSync(CHROMIUM)
  ? `Chromium not found at ${CHROMIUM} (apt-get install chromium, or set WAITGRAPH_CHROMIUM)`
  : pw === null
    ? 'playwright-core is not installed (npm ci installs it)'
    : false;

test('HTML report in Chromium: founding report from file://, thread 9\'s stack, graph, search, hostile names', { skip, timeout: 120_000 }, async () => {
  mkdirSync(OUTPUT, { recursive: true });
  const pages = mkdtempSync(join(tmpdir(), 'wg-html-'));
  const profile = mkdtempSync(join(tmpdir(), 'wg-chromium-'));
  const founding = join(pages, 'founding.html');
  const hostile = join(pages, 'hostile.html');
  const rendered = runWaitgraph(['--format', 'html', FOUNDING]);
  assert.equal(rendered.code, 1, rendered.stderr);
  writeFileSync(founding, rendered.stdout);
  const hostileDump = join(pages, 'hostile.txt');
  writeFileSync(hostileDump, plantedAbba('"><img src=x onerror="window.__pwned=1"><script>window.__pwned=2</script><style>*{}</style>'));
  const hostileRun = runWaitgraph(['--format', 'html', hostileDump]);
  assert.equal(hostileRun.code, 1, hostileRun.stderr);
  writeFileSync(hostile, hostileRun.stdout);

  const context = await pw!.chromium.launchPersistentContext(profile, {
    executablePath: CHROMIUM,
    headless: true,
    args: FLAGS,
    viewport: { width: 1400, height: 900 },
    offline: true,
  });
  try {
    await context.addInitScript(RECORD_VIOLATIONS);
    const problems: string[] = [];
    const page = await context.newPage();
    page.on('console', (message) => {
      if (message.type() === 'error' || message.type() === 'warning') problems.push(`console ${message.type()}: ${message.text()}`);
    });
    page.on('pageerror', (error) => problems.push(`page error: ${error.message}`));
    page.on('request', (request) => {
      if (!request.url().startsWith('file:')) problems.push(`request: ${request.url()}`);
    });
    await page.goto(pathToFileURL(founding).href);

    // On open the panel shows the first thread of the cycle.
    assert.equal(await page.textContent('#p-title'), 'thread 7 (LWP 45436) "julia"');
    assert.equal(await page.locator('details.g[open]').count(), 0, 'groups start collapsed');

    await page.locator('button.t[data-t="9"]').first().click();
    assert.equal(await page.textContent('#p-title'), 'thread 9 (LWP 45438) "julia"');
    assert.equal(await page.textContent('#p-state'), 'started a garbage collection (stop-the-world)');
    const stack = (await page.textContent('#p-stack')) ?? '';
    assert.match(stack, /^#0  jl_gc_wait_for_the_world \(gc_n_threads=<optimized out>/);
    assert.match(stack, /\(gdb\) bt    # headerless backtrace at line 109, merged into this thread/);
    const marked = await page.locator('#p-stack .ln.verdict').allTextContents();
    assert.ok(marked.some((line) => line.startsWith('#0  jl_gc_wait_for_the_world')), marked.join('\n'));
    assert.ok(marked.some((line) => line.includes('julia___materialize_7661')), 'the frame that holds the lazy compile is marked');
    const notes = await page.locator('#p-notes li.verdict').allTextContents();
    assert.ok(notes.some((n) => n.includes('[inferred]')), 'the inferred edges say so');
    assert.ok(await page.locator('button.t.sel[data-t="9"]').count() > 0, 'the clicked thread is selected');
    assert.equal(await page.locator('#graph-svg g.node.sel title').textContent(), 'thread:9');
    await page.screenshot({ path: join(OUTPUT, 'enzyme-autodiff-deferred.png') });
    if (process.env['UPDATE_GOLDEN'] === '1') copyFileSync(join(OUTPUT, 'enzyme-autodiff-deferred.png'), SCREENSHOT_GOLDEN);

    // A graph node: thread 8's own stack (its own pointers), its marks.
    await page.locator('#graph-svg g.node', { has: page.locator('title', { hasText: /^thread:8$/ }) }).click();
    assert.equal(await page.textContent('#p-title'), 'thread 8 (LWP 45437) "julia"');
    assert.match((await page.textContent('#p-stack')) ?? '', /__addr=0x7840e0018160/);
    // A node of interchangeable threads opens their group and makes its member buttons.
    await page.locator('#graph-svg g.node', { has: page.locator('title', { hasText: /^group:/ }) }).click();
    assert.equal(await page.locator('details.g[open] .members button.t').count(), 5);
    assert.equal(await page.textContent('#p-title'), 'thread 1 (LWP 45429) "julia"');
    // A resource node lists who waits for it and who holds it.
    await page.locator('#graph-svg g.node', { has: page.locator('title', { hasText: /^res:orc:lazy-compile$/ }) }).click();
    assert.match((await page.textContent('#p-notes')) ?? '', /waited for by: thread 7 .*thread 8 .*held by: thread 9/s);

    // The search filters groups by function.
    await page.fill('#q', 'jl_safepoint');
    await page.waitForFunction(() => document.getElementById('q-count')?.textContent !== '');
    assert.equal(await page.textContent('#q-count'), '5 threads in 1 group');
    assert.equal(await page.locator('details.g:not([hidden])').count(), 1);
    await page.fill('#q', '');
    await page.waitForFunction(() => document.getElementById('q-count')?.textContent === '');
    assert.equal(await page.locator('details.g:not([hidden])').count(), 5);

    assert.deepEqual(await page.evaluate(() => (window as unknown as { __violations: string[] }).__violations), [], 'no CSP violation');
    assert.deepEqual(problems, [], 'no console error, no page error, no request outside the file');

    // Hostile names: shown as text, never markup; no script of theirs runs, no element is added.
    const evil = await context.newPage();
    const evilProblems: string[] = [];
    evil.on('console', (message) => message.type() === 'error' && evilProblems.push(message.text()));
    evil.on('pageerror', (error) => evilProblems.push(error.message));
    await evil.goto(pathToFileURL(hostile).href);
    assert.equal(await evil.evaluate(() => (window as unknown as { __pwned?: number }).__pwned), undefined);
    assert.equal(await evil.locator('img, iframe, object, embed, link, a, form').count(), 0);
    assert.equal(await evil.locator('script').count(), 2);
    assert.equal(await evil.locator('style').count(), 1);
    assert.deepEqual(await evil.evaluate(() => (window as unknown as { __violations: string[] }).__violations), []);
    assert.deepEqual(evilProblems, []);
    await evil.locator('button.t[data-t="3"]').first().click();
    assert.match((await evil.textContent('#p-title')) ?? '', /"ba"><img src=x onerror="window\.__pwned=1"><script>/, 'the thread name is shown as text');
  } finally {
    await context.close();
    rmSync(pages, { recursive: true, force: true });
    rmSync(profile, { recursive: true, force: true });
  }
});
