/**
 * No module of src/ holds mutable state: what one analysis fills (pools, memos, interned names)
 * belongs to the analysis session that fills it (analyze/analyzer.ts), so nothing survives from one
 * analysis to the next when waitgraph is used as a library.
 *
 * Read from the code of every module (TypeScript's parser), the test fails on a top-level
 *
 * - `let` or `var`;
 * - `const` made as an empty container, to be filled later: `new Map()`, `new Set()`,
 *   `new WeakMap()`, `new WeakSet()`, `[]`, `{}`;
 * - `const` written to anywhere in its module: `NAME.set(…)`, `.add`, `.delete`, `.clear`, `.push`,
 *   …, `NAME.x = …`, `NAME[i] = …`, `NAME.x++` (a table filled at import and never again is a
 *   constant; one filled on use is a cache).
 *
 * The exceptions are listed below, each with why it is not state an analysis could see.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { test } from 'node:test';
import ts from 'typescript';
import { ROOT } from '../helpers/paths.js';

const SRC = join(ROOT, 'src');

/** `file: name` → why the binding may stay. */
const EXCEPTIONS: Record<string, string> = {
  'src/rules/builtin.ts: loaded':
    'a lazy singleton of pure data: the built-in rules, compiled on first use (not at import: importing the library reads no file) and never modified; patterns hold no cache (the matcher of a session does)',
  'src/parse/parser.ts: shared':
    'a lazy singleton of the Chevrotain parser, which is costly to build (tens of ms); a parse is synchronous and sets its whole input first, so nothing of one parse reaches the next',
  'src/report/svg.ts: vizInstance': 'a lazy singleton of the Graphviz WebAssembly instance (~100 ms to compile); each render is independent of the others',
  'src/parse/frame-body.ts: PC_IN':
    'a sticky regex (flag y) for the hot frame-line scan: its lastIndex is set right before each test, so no call sees what another left; a fresh regex per frame line would cost the parse',
  'src/parse/paste-cleanup.ts: HTML_TAG_AT': 'a sticky regex (flag y): its lastIndex is set right before each test, so no call sees what another left',
  'src/parse/paste-cleanup.ts: HTML_ENTITY_AT': 'a sticky regex (flag y): its lastIndex is set right before each test, so no call sees what another left',
  'src/live/early.ts: early':
    'the gdb the CLI starts before its own code has loaded, handed over once to the attach/core command of the same process (claimEarlyAttach); the library never reads it',
};

function sourceFiles(dir: string): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir).sort()) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(path));
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts') && !name.endsWith('.generated.ts')) out.push(path);
  }
  return out;
}

const shown = (file: string): string => relative(ROOT, file).split(sep).join('/');

const CONTAINERS = new Set(['Map', 'Set', 'WeakMap', 'WeakSet', 'Array']);

/** `new Map()` (no arguments), `[]`, `{}`: a container made to be filled later. */
function emptyContainer(init: ts.Expression): boolean {
  let e = init;
  while (ts.isAsExpression(e) || ts.isSatisfiesExpression(e) || ts.isParenthesizedExpression(e)) e = e.expression;
  if (ts.isNewExpression(e) && ts.isIdentifier(e.expression) && CONTAINERS.has(e.expression.text)) return (e.arguments?.length ?? 0) === 0;
  if (ts.isArrayLiteralExpression(e)) return e.elements.length === 0;
  if (ts.isObjectLiteralExpression(e)) return e.properties.length === 0;
  return false;
}

const MUTATORS = /^(?:set|add|delete|clear|push|pop|shift|unshift|splice|sort|reverse|fill|copyWithin)$/;

/** Per top-level binding of `names`, the places in the module where it is written to, as `line N: text`. */
function writesTo(source: ts.SourceFile, names: ReadonlySet<string>): Map<string, string[]> {
  const found = new Map<string, string[]>();
  const note = (name: string, node: ts.Node): void => {
    const at = `line ${source.getLineAndCharacterOfPosition(node.getStart(source)).line + 1}: ${node.getText(source).slice(0, 80)}`;
    const list = found.get(name);
    if (list === undefined) found.set(name, [at]);
    else list.push(at);
  };
  /** The binding `name.x`, `name[i]`, `name.x.y` … is rooted at, when it is one of `names`. */
  const rootOf = (e: ts.Expression): string | null => {
    if (!ts.isPropertyAccessExpression(e) && !ts.isElementAccessExpression(e)) return null;
    while (ts.isPropertyAccessExpression(e) || ts.isElementAccessExpression(e)) e = e.expression;
    return ts.isIdentifier(e) && names.has(e.text) ? e.text : null;
  };
  const visit = (node: ts.Node): void => {
    let root: string | null = null;
    if (ts.isBinaryExpression(node) && node.operatorToken.kind >= ts.SyntaxKind.FirstAssignment && node.operatorToken.kind <= ts.SyntaxKind.LastAssignment) root = rootOf(node.left);
    else if ((ts.isPrefixUnaryExpression(node) || ts.isPostfixUnaryExpression(node)) && (node.operator === ts.SyntaxKind.PlusPlusToken || node.operator === ts.SyntaxKind.MinusMinusToken)) root = rootOf(node.operand);
    else if (ts.isCallExpression(node) && ts.isPropertyAccessExpression(node.expression) && MUTATORS.test(node.expression.name.text)) {
      const target = node.expression.expression;
      root = ts.isIdentifier(target) ? (names.has(target.text) ? target.text : null) : rootOf(target);
    }
    if (root !== null) note(root, node);
    ts.forEachChild(node, visit);
  };
  ts.forEachChild(source, visit);
  return found;
}

interface Finding {
  key: string;
  what: string;
}

function moduleState(file: string): Finding[] {
  const text = readFileSync(file, 'utf8');
  const source = ts.createSourceFile(file, text, ts.ScriptTarget.Latest, true);
  return stateIn(source, (name) => `${shown(file)}: ${name}`);
}

/** The module-level state of one module, keyed by `key(name)`. */
function stateIn(source: ts.SourceFile, key: (name: string) => string): Finding[] {
  const out: Finding[] = [];
  const constants: ts.VariableDeclaration[] = [];
  for (const statement of source.statements) {
    if (!ts.isVariableStatement(statement)) continue;
    const list = statement.declarationList;
    const isConst = (list.flags & ts.NodeFlags.Const) !== 0;
    for (const decl of list.declarations) {
      if (!ts.isIdentifier(decl.name)) continue;
      const name = decl.name.text;
      if (!isConst) out.push({ key: key(name), what: `${(list.flags & ts.NodeFlags.Let) !== 0 ? 'let' : 'var'} ${name}` });
      else if (decl.initializer !== undefined && emptyContainer(decl.initializer)) out.push({ key: key(name), what: `const ${name} = ${decl.initializer.getText(source).slice(0, 40)} (an empty container, filled later)` });
      else constants.push(decl);
    }
  }
  const writes = writesTo(source, new Set(constants.map((d) => (d.name as ts.Identifier).text)));
  for (const decl of constants) {
    const name = (decl.name as ts.Identifier).text;
    const at = writes.get(name);
    if (at !== undefined) out.push({ key: key(name), what: `const ${name}, written to at ${at[0]}` });
  }
  return out;
}

const files = sourceFiles(SRC);

test('src/ has no module-level mutable state (let, empty containers, constants written to) outside the listed exceptions', () => {
  assert.ok(files.length > 50, `${files.length} modules read`);
  const found = files.flatMap(moduleState);
  const unlisted = found.filter((f) => EXCEPTIONS[f.key] === undefined).map((f) => `${f.key}: ${f.what}`);
  assert.deepEqual(unlisted, [], `module-level state (move it into the object that uses it, e.g. the analysis session):\n${unlisted.join('\n')}`);
  // Every exception still names a binding that exists: a stale entry would hide a new one.
  const seen = new Set(found.map((f) => f.key));
  const stale = Object.keys(EXCEPTIONS).filter((k) => !seen.has(k));
  assert.deepEqual(stale, [], 'exceptions that no longer match a module-level binding');
});

test('the module-state check finds each kind of state it is about (it can fail)', () => {
  const probe = (code: string): string[] => stateIn(ts.createSourceFile('probe.ts', code, ts.ScriptTarget.Latest, true), (name) => name).map((f) => f.what.split(/[ ,]/).slice(0, 2).join(' '));
  assert.deepEqual(probe('let n = 0;'), ['let n']);
  assert.deepEqual(probe('const cache = new Map<string, number>();'), ['const cache']);
  assert.deepEqual(probe('const list: string[] = [];'), ['const list']);
  assert.deepEqual(probe('const epoch = { value: 0 }; export function bump() { epoch.value++; }'), ['const epoch']);
  assert.deepEqual(probe("const seen = new Set(['a']); export function see(s: string) { seen.add(s); }"), ['const seen']);
  assert.deepEqual(probe('const table: number[] = [1, 2]; export function put(i: number) { table[i] = 3; }'), ['const table']);
  assert.deepEqual(probe('const out = { text: "" }; export function f(t: string) { out.text = t; return out; }'), ['const out']);
  // Constants: a table made at import and only read, a frozen value.
  assert.deepEqual(probe("const NAMES = new Set(['abort', 'raise']); export const has = (s: string) => NAMES.has(s);"), []);
  assert.deepEqual(probe('const NONE = Object.freeze([]) as unknown as number[];'), []);
});
