/**
 * Tree-sitter walking that C, C++ and Rust share (locks.ts, rust-locks.ts): whether a node runs on
 * every way to a line, given the language's own branching constructs, and the statement or block a
 * node is in, given the language's block node type.
 */
import type { Node } from 'web-tree-sitter';
import type { SourceLockRef } from '../model/source.js';

/**
 * Marks each lock named by a bare name that `local` does not bind as a variable of the file's (or
 * module's) own scope: one file's `lock_a` is one lock, so a hold and a wait that both name it meet
 * even when gdb printed no address.
 */
export function markFileScope(refs: Iterable<SourceLockRef>, local: ReadonlySet<string>): void {
  for (const ref of refs) {
    const name = ref.symbols.length === 1 ? (ref.symbols[0] as string) : '';
    if (/^[A-Za-z_]\w*$/.test(name) && !local.has(name)) ref.global = name;
  }
}

export function contains(node: Node, row: number): boolean {
  return node.startPosition.row <= row && node.endPosition.row >= row;
}

/**
 * A language's branching constructs: by node type, the fields that run whenever the node does
 * (`if` → its condition), none for a node whose children may not run at all (an `else`, a lambda).
 * A type not listed runs all its children; `&&` and `||` surely run only their left side.
 */
export type Branching = ReadonlyMap<string, readonly string[]>;

/** Whether the node runs on every way from the function's start to `row`: no branch it is in leaves the line out. */
export function onEveryWay(node: Node, fn: Node, row: number, branching: Branching): boolean {
  let child: Node = node;
  let parent = node.parent;
  while (parent !== null && parent !== fn) {
    if (!alwaysRuns(parent, child, branching) && !contains(child, row)) return false;
    child = parent;
    parent = parent.parent;
  }
  return true;
}

/** Whether `child` runs whenever `parent` does. */
function alwaysRuns(parent: Node, child: Node, branching: Branching): boolean {
  const is = (field: string): boolean => parent.childForFieldName(field)?.id === child.id;
  if (parent.type === 'binary_expression') {
    const op = parent.childForFieldName('operator')?.type;
    return (op !== '&&' && op !== '||') || is('left');
  }
  const fields = branching.get(parent.type);
  return fields === undefined || fields.some(is);
}

/**
 * The node at the start of a line's code, and the innermost function around it (one of `kinds`:
 * a function or a lambda/closure) whose body holds the line; null when the line is in none.
 */
export function functionAtLine(root: Node, row: number, lines: readonly string[], kinds: ReadonlySet<string>): { at: Node; fn: Node; text: string } | null {
  const text = lines[row];
  if (text === undefined) return null;
  const column = Math.max(0, text.length - text.trimStart().length);
  const at = root.descendantForPosition({ row, column });
  if (at === null) return null;
  let fn: Node | null = at;
  while (fn !== null && !kinds.has(fn.type)) fn = fn.parent;
  if (fn === null) return null;
  const body = fn.childForFieldName('body');
  if (body === null || body.startPosition.row > row || body.endPosition.row < row) return null;
  return { at, fn, text };
}

/** The statement a node is part of: its ancestor whose parent is a block (`compound_statement`, Rust's `block`). */
export function statementOf(node: Node, block: string): Node | null {
  let n: Node | null = node;
  while (n !== null && n.parent !== null && n.parent.type !== block) n = n.parent;
  return n;
}

/** The innermost block around a node. */
export function enclosingBlock(node: Node, block: string): Node | null {
  let n = node.parent;
  while (n !== null && n.type !== block) n = n.parent;
  return n;
}

/** The text of the one-line statement around `node` on `row`, spaces collapsed; null for a block, a comment or a statement over several lines. */
export function statementText(node: Node, row: number, block: string, comments: ReadonlySet<string>): string | null {
  const statement = statementOf(node, block);
  if (statement === null || statement.startPosition.row !== row || statement.endPosition.row !== row) return null;
  if (statement.type === block || comments.has(statement.type)) return null;
  return statement.text.replace(/\s+/g, ' ').trim();
}

/** The argument nodes of a call, comments left out. */
export function argumentNodes(call: Node, comments: ReadonlySet<string>): Node[] {
  const list = call.childForFieldName('arguments');
  return (list?.namedChildren ?? []).filter((n): n is Node => n !== null && !comments.has(n.type));
}
