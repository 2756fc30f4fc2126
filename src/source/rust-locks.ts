/**
 * Reads one Rust function up to one line, as locks.ts does for C and C++: the locks still held
 * there, the lock the line asks for, and the one a Condvar wait on the line lets go. A lock is a
 * call of one of the packs' guard methods without arguments (`A.lock()`, `self.state.write()`);
 * what keeps it is Rust's, not a library's:
 * - `let g = m.lock().unwrap();` (through `unwrap`, `expect` or `?`) holds `m` while `g` lives: to
 *   the end of the block of the `let`, unless `drop(g)` ends it first. Shadowing `g` drops nothing.
 * - `let _ = m.lock();`, and a guard never bound (`*m.lock().unwrap() += 1;`), let go at the end
 *   of their statement, except in a `match` scrutinee (held through the arms) and an `if let` /
 *   `while let` one (held through the block it guards).
 * - A lock taken in a branch the line is not in (an `if`, a `match` arm, a loop body, a closure)
 *   is not claimed, nor one released (`drop`) anywhere before the line.
 */
import type { Node } from 'web-tree-sitter';
import type { SourceHold, SourceLockRef } from '../model/source.js';
import type { CompiledVocabulary, LineScan } from './locks.js';
import * as tree from './tree.js';
import { contains } from './tree.js';

const BLOCK = 'block';
const FUNCTIONS: ReadonlySet<string> = new Set(['function_item', 'closure_expression']);
const COMMENTS: ReadonlySet<string> = new Set(['line_comment', 'block_comment']);
/** Rust: a `match` arm, an `else`, a loop's body and a closure may not run. */
const BRANCHING: tree.Branching = new Map<string, readonly string[]>([
  ['if_expression', ['condition']],
  ['while_expression', ['condition']],
  ['match_expression', ['value']],
  ['for_expression', ['value']],
  ...['loop_expression', 'match_arm', 'else_clause', 'closure_expression'].map((t): [string, string[]] => [t, []]),
]);
const onEveryWay = (node: Node, fn: Node, row: number): boolean => tree.onEveryWay(node, fn, row, BRANCHING);
const statementOf = (node: Node): Node | null => tree.statementOf(node, BLOCK);
const enclosingBlock = (node: Node): Node | null => tree.enclosingBlock(node, BLOCK);
const statementText = (node: Node, row: number): string | null => tree.statementText(node, row, BLOCK, COMMENTS);
const argumentNodes = (call: Node): Node[] => tree.argumentNodes(call, COMMENTS);

/** Calls on a guard's Result that keep the guard (`m.lock().unwrap()`). */
const KEEPS_GUARD = new Set(['unwrap', 'expect', 'unwrap_or_else', 'unwrap_unchecked']);
/** The guard name of a temporary a scrutinee keeps alive (no `drop` can name it). */
const TEMPORARY = '<temporary>';
/** The functions that drop a value: `drop(g)`. */
const DROPS = new Set(['drop', 'mem::drop', 'std::mem::drop', 'core::mem::drop']);

/** A lock call before or on the line, with the guard that keeps it. */
interface Take {
  node: Node;
  lock: SourceLockRef;
  via: string;
  /** The `let` binding's name, TEMPORARY for a scrutinee's guard, or null when it drops at the end of its statement. */
  guard: string | null;
  /** The block the guard lives in: the `let`'s, the scrutinee's arms or block, or its own statement. */
  scope: Node;
}

type Held = SourceHold & { guard: string | null };

/** Scans the Rust function around `line` (1-based); null when the line is in no function. */
export function scanRustLine(root: Node, line: number, v: CompiledVocabulary, lines: readonly string[]): LineScan | null {
  const row = line - 1;
  const found = tree.functionAtLine(root, row, lines, FUNCTIONS);
  if (found === null) return null;
  const { at, fn: func, text } = found;
  const body = func.childForFieldName('body') as Node;

  const takes: Take[] = [];
  const drops: Array<{ node: Node; name: string }> = [];
  const releasing: Node[] = [];
  const calls: string[] = [];
  const visit = (node: Node): void => {
    // A nested function or closure is code that runs when it is called, not here.
    if (node !== func && (node.type === 'function_item' || node.type === 'closure_expression') && !contains(node, row)) return;
    if (node.type === 'call_expression') {
      const covers = contains(node, row);
      const name = callName(node);
      if (covers && name !== null) calls.push(name);
      const take = lockCall(node, v);
      if (take !== null) takes.push(take);
      const dropped = droppedName(node);
      if (dropped !== null && node.endPosition.row < row) drops.push({ node, name: dropped });
      const released = covers ? releasedArgument(node, v) : null;
      if (released !== null) releasing.push(released);
    }
    for (const child of node.namedChildren) if (child !== null && child.startPosition.row <= row) visit(child);
  };
  visit(body);

  const codeAt = (node: Node): string => statementText(node, node.startPosition.row) ?? (lines[node.startPosition.row] ?? '').trim();
  const holds: Held[] = [];
  const waits: SourceLockRef[] = [];
  for (const t of takes) {
    if (contains(t.node, row)) {
      waits.push(t.lock);
      continue;
    }
    if (t.node.endPosition.row >= row || t.guard === null || !contains(t.scope, row) || !onEveryWay(t.node, func, row)) continue;
    holds.push({ lock: t.lock, line: t.node.startPosition.row + 1, code: codeAt(t.node), via: t.via, guard: t.guard });
  }
  // `drop(g)` before the line ends the latest `g` bound before it.
  for (const d of drops) {
    for (let i = holds.length - 1; i >= 0; i--) {
      const h = holds[i] as Held;
      if (h.guard === d.name && h.line - 1 <= d.node.startPosition.row) {
        holds.splice(i, 1);
        break;
      }
    }
  }
  // A Condvar wait on the line (`cv.wait(g)`, `cv.wait(&mut g)`) lets its guard's lock go meanwhile.
  const released: SourceLockRef[] = [];
  for (const arg of releasing) {
    const name = arg.text.replace(/^&\s*(?:mut\s+)?/, '');
    for (let i = holds.length - 1; i >= 0; i--) {
      const h = holds[i] as Held;
      if (h.guard !== name) continue;
      released.push(h.lock);
      holds.splice(i, 1);
      break;
    }
  }
  // A receiver the function does not bind (no parameter, no `let`) is a static or const of the
  // module. In a closure, the names of the function around it count too (it may capture them).
  let named: Node | null = func;
  while (named !== null && named.type !== 'function_item') named = named.parent;
  if (named !== null) tree.markFileScope([...holds.map((h) => h.lock), ...waits, ...released], boundNames(named));

  let outer: Node = func;
  while (outer.parent !== null && outer.parent.type !== 'source_file' && outer.parent.type !== 'declaration_list') outer = outer.parent;
  return {
    functionName: func.type === 'function_item' ? (func.childForFieldName('name')?.text ?? null) : null,
    functionRows: [outer.startPosition.row, outer.endPosition.row],
    clean: !outer.hasError,
    code: statementText(at, row) ?? text.trim(),
    calls,
    holds: holds.map(({ lock, line: l, code, via }) => ({ lock, line: l, code, via })),
    waits,
    released,
  };
}

/** `A.lock()` / `self.state.write()` with no arguments, as the lock it takes and the guard that keeps it. */
function lockCall(call: Node, v: CompiledVocabulary): Take | null {
  const f = call.childForFieldName('function');
  if (f === null || f.type !== 'field_expression') return null;
  const method = f.childForFieldName('field')?.text ?? '';
  const kind = v.guardMethods.get(method);
  const receiver = f.childForFieldName('value');
  if (kind === undefined || receiver === null || argumentNodes(call).length > 0) return null;
  const lock = receiverRef(receiver, kind);
  // Up through what keeps the guard: `.unwrap()`, `.expect("…")`, `?`.
  let kept: Node = call;
  for (;;) {
    const p = kept.parent;
    if (p === null) break;
    if (p.type === 'try_expression') {
      kept = p;
      continue;
    }
    if (p.type === 'field_expression' && p.childForFieldName('value')?.id === kept.id && p.parent?.type === 'call_expression' && KEEPS_GUARD.has(p.childForFieldName('field')?.text ?? '')) {
      kept = p.parent;
      continue;
    }
    break;
  }
  const binding = kept.parent?.type === 'let_declaration' && kept.parent.childForFieldName('value')?.id === kept.id ? kept.parent : null;
  if (binding !== null) {
    const pattern = binding.childForFieldName('pattern');
    const scope = enclosingBlock(binding);
    if (scope === null) return null;
    return { node: call, lock, via: method, guard: pattern !== null && pattern.type === 'identifier' ? pattern.text : null, scope };
  }
  const extended = scrutineeScope(call);
  if (extended !== null) return { node: call, lock, via: method, guard: TEMPORARY, scope: extended };
  const statement = statementOf(call);
  if (statement === null) return null;
  return { node: call, lock, via: method, guard: null, scope: statement };
}

/**
 * A guard never bound that lives on past its expression: a temporary in a `match` scrutinee lives
 * through every arm, one in an `if let` or `while let` through the block it guards (`match
 * m.lock().unwrap().get(k) { None => … m.lock() … }` waits for itself). The block, or null. (An
 * `if let` temporary also lives through the `else` block before edition 2024; only the part both
 * editions agree on is claimed.)
 */
function scrutineeScope(call: Node): Node | null {
  let child: Node = call;
  for (let n = call.parent; n !== null && n.type !== 'block' && n.type !== 'closure_expression'; child = n, n = n.parent) {
    if (n.type === 'match_expression' && n.childForFieldName('value')?.id === child.id) return n.childForFieldName('body');
    if (n.type === 'let_condition' && n.childForFieldName('value')?.id === child.id) {
      const owner = n.parent;
      if (owner?.type === 'if_expression' && owner.childForFieldName('condition')?.id === n.id) return owner.childForFieldName('consequence');
      if (owner?.type === 'while_expression' && owner.childForFieldName('condition')?.id === n.id) return owner.childForFieldName('body');
      return null;
    }
  }
  return null;
}

/** The lock a receiver names: a static or local (`A`), a field of `self` or a parameter (`self.inner.state`). */
function receiverRef(node: Node, kind: string): SourceLockRef {
  const text = node.text.replace(/\s+/g, '');
  if (node.type === 'identifier') return { text, symbols: [text], member: { root: text, path: '' }, kind };
  if (node.type === 'scoped_identifier') return { text, symbols: [text], kind };
  if (node.type === 'field_expression') {
    const parts: string[] = [];
    let n: Node | null = node;
    while (n !== null && n.type === 'field_expression') {
      parts.unshift(`.${n.childForFieldName('field')?.text ?? ''}`);
      n = n.childForFieldName('value');
    }
    if (n !== null && (n.type === 'identifier' || n.type === 'self')) return { text, symbols: [], member: { root: n.text, path: parts.join('') }, kind };
  }
  return { text, symbols: [], kind };
}

/** `drop(g)`: the name dropped, or null. */
function droppedName(call: Node): string | null {
  const f = call.childForFieldName('function');
  const args = argumentNodes(call);
  if (f === null || !DROPS.has(f.text.replace(/\s+/g, '')) || args.length !== 1 || args[0]?.type !== 'identifier') return null;
  return (args[0] as Node).text;
}

/** The argument a releasing wait lets go (`g` of `cv.wait(g)`), or null. */
function releasedArgument(call: Node, v: CompiledVocabulary): Node | null {
  const f = call.childForFieldName('function');
  if (f === null || f.type !== 'field_expression') return null;
  const index = v.releasingMethods.get(f.childForFieldName('field')?.text ?? '');
  return index === undefined ? null : (argumentNodes(call)[index] ?? null);
}

/** The called name (`lock` for `A.lock()`, `drop`, `thread::spawn`), or null. */
function callName(call: Node): string | null {
  const f = call.childForFieldName('function');
  if (f === null) return null;
  if (f.type === 'field_expression') return f.childForFieldName('field')?.text ?? null;
  if (f.type === 'identifier' || f.type === 'scoped_identifier') return f.text.replace(/\s+/g, '');
  if (f.type === 'generic_function') return f.childForFieldName('function')?.text ?? null;
  return null;
}

/** Names the function binds: parameters, `let`, `for`, closure and match patterns (any nesting). */
function boundNames(fn: Node): Set<string> {
  const out = new Set<string>();
  const collect = (pattern: Node | null): void => {
    if (pattern === null) return;
    if (pattern.type === 'identifier') out.add(pattern.text);
    for (const child of pattern.namedChildren) if (child !== null && child.type !== 'type_identifier') collect(child);
  };
  const visit = (node: Node): void => {
    if (node.type === 'parameter' || node.type === 'let_declaration' || node.type === 'for_expression' || node.type === 'match_arm' || node.type === 'let_condition') collect(node.childForFieldName('pattern'));
    if (node.type === 'closure_parameters') collect(node);
    for (const child of node.namedChildren) if (child !== null) visit(child);
  };
  visit(fn);
  return out;
}
