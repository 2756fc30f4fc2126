/**
 * The house drawn from its imports. Every module of src/ is read (static imports, re-exports,
 * `import type`, dynamic `import()`), and the test fails on:
 *
 * - any circle, type-only imports included (a circle makes two modules one unit: neither can be
 *   read, tested or moved alone);
 * - any import against the pipeline `cli → analyze → {parse, rules, graph, report, live, source} → model`
 *   (the table LAYERS below says what each folder may import, and why);
 * - an outside library imported outside the folder that owns it (Chevrotain: parse/, graphology:
 *   graph/, chalk: report/, commander: cli/), or `process` read outside cli/ and build/;
 * - a file read while the library is imported (the built-in rules are read on first use).
 *
 * The folder graph is printed as a diagnostic (`node --test` shows it), a picture of the house.
 */
import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { test } from 'node:test';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { ROOT } from '../helpers/paths.js';

const SRC = join(ROOT, 'src');

/**
 * What each part of src/ may import besides itself. A part is a folder of src/; `errors` is
 * src/errors.ts and `index` src/index.ts (the library's public face).
 */
const LAYERS: Record<string, readonly string[]> = {
  // The shared vocabulary: types, node ids and thread order, text hygiene. Imports nothing.
  model: [],
  // The typed errors every part may throw; nothing below them.
  errors: [],
  // The stages under analyze: each reads the model and nothing of the others, so each can be
  // tested and changed alone.
  parse: ['model', 'errors'],
  rules: ['model', 'errors'],
  graph: ['model', 'errors'],
  report: ['model', 'errors'],
  live: ['model', 'errors'],
  // `--source DIR`: reads C, C++ and Rust code with tree-sitter (the lock vocabulary comes from rules,
  // handed over by analyze as model data).
  source: ['model', 'errors'],
  // The pipeline: it wires the stages together.
  analyze: ['parse', 'rules', 'graph', 'report', 'live', 'source', 'model', 'errors'],
  // The process boundary: analyses through analyze, and takes what only it can choose — the rule
  // set (rules/rule-set.ts, one function), the report format, the gdb driver. Never the parser or
  // the graph directly: those are analyze's.
  cli: ['analyze', 'rules', 'report', 'live', 'model', 'errors'],
  // Build steps: run by `npm run build`, imported by nothing.
  build: ['cli', 'rules', 'model', 'errors'],
  // The library's public face re-exports the stages.
  index: ['analyze', 'parse', 'rules', 'report', 'model', 'errors'],
};

/** Outside libraries and the one part that may import each. */
const OWNERS: Record<string, string> = {
  chevrotain: 'parse',
  graphology: 'graph',
  'graphology-components': 'graph',
  chalk: 'report',
  commander: 'cli',
  // The deadlock signatures' sha256 (node:crypto cost ~2.5 ms of a start).
  '@noble/hashes': 'analyze',
  'web-tree-sitter': 'source',
};

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) out.push(path);
  }
  return out;
}

/** `src/analyze/summary.ts` → `analyze`; `src/errors.ts` → `errors`; `src/index.ts` → `index`. */
function partOf(file: string): string {
  const rel = relative(SRC, file).split(sep);
  return rel.length === 1 ? (rel[0] as string).replace(/\.ts$/, '') : (rel[0] as string);
}

const shown = (file: string): string => relative(ROOT, file).split(sep).join('/');

interface Graph {
  files: string[];
  /** file → the src files it imports (resolved, `.js` → `.ts`). */
  imports: Map<string, string[]>;
  /** file → the bare specifiers (packages) it imports. */
  packages: Map<string, string[]>;
}

function readGraph(): Graph {
  const files = sourceFiles(SRC);
  const known = new Set(files);
  const imports = new Map<string, string[]>();
  const packages = new Map<string, string[]>();
  for (const file of files) {
    const info = ts.preProcessFile(readFileSync(file, 'utf8'), true, true);
    const local: string[] = [];
    const bare: string[] = [];
    for (const { fileName } of info.importedFiles) {
      if (fileName.startsWith('node:')) continue;
      if (!fileName.startsWith('.')) {
        // The package, not the subpath: `@noble/hashes/sha2` → `@noble/hashes`, `yaml/util` → `yaml`.
        bare.push(fileName.split('/').slice(0, fileName.startsWith('@') ? 2 : 1).join('/'));
        continue;
      }
      const target = resolve(dirname(file), fileName).replace(/\.js$/, '.ts');
      // Files outside src/ (package.json, the Chevrotain bundle found by URL) are not modules of the house.
      if (known.has(target)) local.push(target);
    }
    imports.set(file, [...new Set(local)]);
    packages.set(file, [...new Set(bare)]);
  }
  return { files, imports, packages };
}

const graph = readGraph();

/** The modules of every circle of the file graph, one list per circle (Tarjan's strongly connected components). */
function circles(g: Graph): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string): void => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of g.imports.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) !== index.get(v)) return;
    const component: string[] = [];
    for (;;) {
      const w = stack.pop() as string;
      onStack.delete(w);
      component.push(w);
      if (w === v) break;
    }
    const selfLoop = (g.imports.get(v) ?? []).includes(v);
    if (component.length > 1 || selfLoop) found.push(component.reverse());
  };
  for (const f of g.files) if (!index.has(f)) visit(f);
  return found;
}

test('the import graph of src/ is read (sanity: it has the modules and the edges this test is about)', () => {
  assert.ok(graph.files.length > 50, `${graph.files.length} modules`);
  const edges = [...graph.imports.values()].reduce((n, list) => n + list.length, 0);
  assert.ok(edges > 100, `${edges} imports`);
  // A known edge of each kind: static, type-only, dynamic.
  const has = (from: string, to: string): boolean => (graph.imports.get(join(SRC, from)) ?? []).includes(join(SRC, to));
  assert.ok(has('analyze/analyzer.ts', 'analyze/summary.ts'), 'a static import');
  assert.ok(has('analyze/summary.ts', 'model/dump.ts'), 'a type-only import');
  assert.ok(has('cli/program.ts', 'cli/commands/analyze.ts'), 'a dynamic import()');
});

test('no module imports itself through others: the import graph has no circle (type-only imports included)', () => {
  const found = circles(graph).map((c) => c.map(shown).join(', '));
  assert.deepEqual(found, [], `modules that reach themselves through their imports, one circle a line:\n${found.join('\n')}`);
});

test('no import runs against cli → analyze → {parse, rules, graph, report, live, source} → model', () => {
  const parts = new Set(Object.keys(LAYERS));
  const against: string[] = [];
  for (const file of graph.files) {
    const from = partOf(file);
    assert.ok(parts.has(from), `${shown(file)}: src/${from} is a part the layers table does not know; add it to LAYERS with what it may import`);
    for (const target of graph.imports.get(file) ?? []) {
      const to = partOf(target);
      if (to !== from && !(LAYERS[from] as readonly string[]).includes(to)) against.push(`${shown(file)} → ${shown(target)} (${from} may import ${LAYERS[from]?.join(', ') || 'nothing else'})`);
    }
  }
  assert.deepEqual(against, [], `imports against the pipeline:\n${against.join('\n')}`);
});

test('each outside library is imported only by the folder that owns it; only cli/ and build/ read process', () => {
  const wrong: string[] = [];
  for (const file of graph.files) {
    const part = partOf(file);
    for (const name of graph.packages.get(file) ?? []) {
      const owner = OWNERS[name];
      if (owner !== undefined && owner !== part) wrong.push(`${shown(file)} imports ${name}, which ${owner}/ owns`);
    }
    if (part !== 'cli' && part !== 'build') {
      // Code only: comments may name process ids.
      const code = readFileSync(file, 'utf8').replace(/\/\*[\s\S]*?\*\//g, '').replace(/\/\/.*$/gm, '');
      if (/\bprocess\.[a-zA-Z]/.test(code)) wrong.push(`${shown(file)} reads process (only cli/main.ts and the build steps may)`);
    }
  }
  assert.deepEqual(wrong, []);
});

test('the house, folder by folder (printed for the reader; asserts that each stage is used)', (t) => {
  const folderEdges = new Map<string, Set<string>>();
  for (const file of graph.files) {
    const from = partOf(file);
    for (const target of graph.imports.get(file) ?? []) {
      const to = partOf(target);
      if (to === from) continue;
      let set = folderEdges.get(from);
      if (set === undefined) folderEdges.set(from, (set = new Set()));
      set.add(to);
    }
  }
  t.diagnostic('src/ imports, folder by folder:');
  for (const [from, tos] of [...folderEdges].sort()) t.diagnostic(`  ${from} → ${[...tos].sort().join(', ')}`);
  for (const stage of ['parse', 'rules', 'graph', 'report']) assert.ok(folderEdges.get('analyze')?.has(stage) || folderEdges.get('cli')?.has(stage), `nothing uses ${stage}/`);
});

test('importing the library touches no disk: the built-in rules are read on first use, not on import', () => {
  // A fresh process with every node:fs function counted (syncBuiltinESMExports makes the named
  // ESM imports see the counted versions), importing the library as a user does.
  const probe = `
    import fs from 'node:fs';
    import { syncBuiltinESMExports } from 'node:module';
    const calls = [];
    for (const name of Object.keys(fs)) {
      const f = fs[name];
      if (typeof f !== 'function' || /^[A-Z]/.test(name)) continue;
      fs[name] = function (...args) { calls.push(name + ' ' + String(args[0])); return f.apply(this, args); };
    }
    syncBuiltinESMExports();
    // Only our files: node reads package files (yaml's CommonJS modules) through fs as it loads them.
    const ours = () => calls.filter((c) => !c.includes('/node_modules/'));
    const lib = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'dist', 'src', 'index.js')).href)});
    const onImport = ours();
    lib.analyzeText('#0  0x0000000000401136 in main () at t.c:3\\n');
    process.stdout.write(JSON.stringify({ onImport, onFirstUse: ours() }));
  `;
  const out = JSON.parse(execFileSync(process.execPath, ['--input-type=module', '-e', probe], { encoding: 'utf8' })) as { onImport: string[]; onFirstUse: string[] };
  assert.deepEqual(out.onImport, [], 'files read while the library was imported');
  assert.ok(out.onFirstUse.some((c) => c.includes('builtin-rules.jsonl')), `the first analysis reads the built-in rules (the probe sees reads): ${out.onFirstUse.join(', ')}`);
});
