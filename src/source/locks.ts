/**
 * Reads one function of a tree-sitter tree up to one line: which locks are still held there, and
 * which calls the line makes. A lock call counts when it runs on every way to the line (not in a
 * branch the line is not in) and no release of the same lock comes between it and the line (any
 * release, in any branch: a hold is only claimed when nothing on the way could have let it go).
 * A guard counts when its block encloses the line. The vocabulary is the packs' data.
 */
import type { Node } from 'web-tree-sitter';
import type { SourceHold, SourceLockRef, SourceLockVocabulary } from '../model/source.js';
import * as tree from './tree.js';
import { contains } from './tree.js';

const BLOCK = 'compound_statement';
const FUNCTIONS: ReadonlySet<string> = new Set(['function_definition', 'lambda_expression']);
const COMMENTS: ReadonlySet<string> = new Set(['comment']);
/** C and C++: a loop's body, a `case`, an `else`, a `catch`, a lambda and a preprocessor branch may not run. */
const BRANCHING: tree.Branching = new Map<string, readonly string[]>([
  ...['if_statement', 'while_statement', 'switch_statement', 'conditional_expression'].map((t): [string, string[]] => [t, ['condition']]),
  ['for_statement', ['initializer', 'condition']],
  ['for_range_loop', ['right']],
  ...['case_statement', 'else_clause', 'catch_clause', 'lambda_expression', 'preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif'].map((t): [string, string[]] => [t, []]),
]);
const onEveryWay = (node: Node, fn: Node, row: number): boolean => tree.onEveryWay(node, fn, row, BRANCHING);
const statementOf = (node: Node): Node | null => tree.statementOf(node, BLOCK);
const enclosingBlock = (node: Node): Node | null => tree.enclosingBlock(node, BLOCK);
/** The one-line statement around `node` on `row` (comments are nodes of their own: none trail it). */
const statementText = (node: Node, row: number): string | null => tree.statementText(node, row, BLOCK, COMMENTS);
const argumentNodes = (call: Node): Node[] => tree.argumentNodes(call, COMMENTS);

/** The vocabulary by name, for lookups while walking. */
export interface CompiledVocabulary {
  acquire: Map<string, { kind: string; lockArg: number | 'all'; symbol?: string; fixed?: string[]; fixedKey?: string }>;
  /** `fixedKey`: a no-argument lock's release names the acquisition it pairs with (`bql_unlock` → `bql_lock`). */
  release: Map<string, { lockArg: number | 'all'; fixedKey?: string }>;
  methodAcquire: Map<string, string>;
  methodRelease: Set<string>;
  /** Rust: lock methods that return a guard, by name, the resource kind. */
  guardMethods: Map<string, string>;
  guards: Map<string, { kind: string; allArgs: boolean; deferred: Set<string>; release: Set<string>; retake: Set<string> }>;
  scoped: Map<string, { kind: string; block: 'enclosing' | 'following' }>;
  /** Waits that let a lock go meanwhile: by call name and by method name, the lock's argument. */
  releasingCalls: Map<string, number>;
  releasingMethods: Map<string, number>;
  callees: Map<string, Set<string>>;
}

export function compileVocabulary(v: SourceLockVocabulary): CompiledVocabulary {
  const out: CompiledVocabulary = {
    acquire: new Map(),
    release: new Map(),
    methodAcquire: new Map(),
    methodRelease: new Set(),
    guardMethods: new Map(),
    guards: new Map(),
    scoped: new Map(),
    releasingCalls: new Map(),
    releasingMethods: new Map(),
    callees: new Map(),
  };
  for (const r of v.releasing) {
    for (const name of r.calls) out.releasingCalls.set(name, r.lockArg);
    for (const name of r.methods) out.releasingMethods.set(name, r.lockArg);
  }
  for (const c of v.calls) {
    const fixedKey = c.fixed ? c.acquire[0] : undefined;
    for (const name of c.acquire) out.acquire.set(name, { kind: c.kind, lockArg: c.lockArg, ...(c.symbol ? { symbol: c.symbol } : {}), ...(c.fixed ? { fixed: c.fixed, fixedKey } : {}) });
    for (const name of c.release) out.release.set(name, { lockArg: c.lockArg, ...(fixedKey !== undefined ? { fixedKey } : {}) });
  }
  for (const m of v.methods) {
    for (const name of m.acquire) out.methodAcquire.set(name, m.kind);
    for (const name of m.release) out.methodRelease.add(name);
  }
  for (const g of v.guardMethods) for (const name of g.methods) out.guardMethods.set(name, g.kind);
  for (const g of v.guards) {
    for (const type of g.types) out.guards.set(type, { kind: g.kind, allArgs: g.allArgs, deferred: new Set(g.deferred), release: new Set(g.release), retake: new Set(g.retake) });
  }
  for (const s of v.scoped) for (const name of s.calls) out.scoped.set(name, { kind: s.kind, block: s.block });
  for (const [name, list] of Object.entries(v.callees)) out.callees.set(name, new Set(list.map(bareName)));
  return out;
}

export interface LineScan {
  /** The enclosing function's name as written (`take_a_then_b`, `Foo::run`), or null for a lambda. */
  functionName: string | null;
  /** The first and last row of the outermost function around the line (a lambda's enclosing function). */
  functionRows: [number, number];
  /** That function parsed without an error or a missing token. */
  clean: boolean;
  /** The line's code: the statement on it without a trailing comment, or the line trimmed. */
  code: string;
  /** Names of the calls the line makes (`pthread_mutex_lock`, `lock_guard` for a guard's constructor, `join`). */
  calls: string[];
  /** Locks still held at the line. */
  holds: SourceHold[];
  /** Locks the line itself asks for. */
  waits: SourceLockRef[];
  /** Locks the line lets go while it waits (a condition wait's mutex). */
  released: SourceLockRef[];
}

/** What one statement-level lock event does. */
type LockEvent =
  | { op: 'acquire'; node: Node; locks: SourceLockRef[]; via: string; guard?: GuardInfo & { name: string }; scope?: Node; deferred?: boolean }
  | { op: 'release'; node: Node; texts: string[] }
  /** `x.m()` / `x->m()`: a lock's own member call, or a guard's (`lk.unlock()`), told apart once the guards are known. */
  | { op: 'method'; node: Node; object: string; method: string; arrow: boolean; acquire: SourceLockRef | null; release: boolean };

type GuardInfo = CompiledVocabulary['guards'] extends Map<string, infer G> ? G : never;
type Held = SourceHold & { guard?: string };

/**
 * Scans the function around `line` (1-based). Null when the line is in no function: then nothing
 * of it can be said.
 */
export function scanLine(root: Node, line: number, vocabulary: CompiledVocabulary, lines: readonly string[]): LineScan | null {
  const row = line - 1;
  const found = tree.functionAtLine(root, row, lines, FUNCTIONS);
  if (found === null) return null;
  const { at, fn: func, text } = found;
  const body = func.childForFieldName('body') as Node;

  const before: LockEvent[] = [];
  const onLine: LockEvent[] = [];
  const releasing: Node[] = [];
  const calls: string[] = [];
  const cxxMember = func.type === 'function_definition' && (functionNameOf(func)?.includes('::') ?? false);
  const visit = (node: Node): void => {
    // A lambda's body is another function: what it locks, it locks when it runs.
    if (node !== func && (node.type === 'lambda_expression' || node.type === 'function_definition') && !contains(node, row)) return;
    const covers = contains(node, row);
    let event: LockEvent | null = null;
    if (node.type === 'call_expression') {
      event = callEvent(node, vocabulary, cxxMember);
      const name = callName(node);
      if (covers && name !== null) calls.push(name);
      const released = covers ? releasedArgument(node, vocabulary) : null;
      if (released !== null) releasing.push(released);
    } else if (node.type === 'declaration' || node.type === 'new_expression') {
      const type = node.childForFieldName('type');
      if (covers && type !== null) calls.push(bareName(type.text));
      if (node.type === 'declaration') event = guardEvent(node, vocabulary, cxxMember);
    }
    if (event !== null) {
      if (node.endPosition.row < row) before.push(event);
      else if (covers) onLine.push(event);
    }
    // Nothing after the line matters; what starts after it is not walked.
    for (const child of node.namedChildren) if (child !== null && child.startPosition.row <= row) visit(child);
  };
  visit(body);

  const holds: Held[] = [];
  const guards = new Map<string, { info: GuardInfo; taken: Held[] }>();
  const codeAt = (node: Node): string => statementText(node, node.startPosition.row) ?? (lines[node.startPosition.row] ?? '').trim();
  for (const e of before) {
    if (e.op === 'acquire') {
      if (!onEveryWay(e.node, func, row)) continue;
      if (e.scope !== undefined && !contains(e.scope, row)) continue;
      const taken: Held[] = e.locks.map((lock) => ({ lock, line: e.node.startPosition.row + 1, code: codeAt(e.node), via: e.via, ...(e.guard !== undefined ? { guard: e.guard.name } : {}) }));
      if (e.guard !== undefined) guards.set(e.guard.name, { info: e.guard, taken });
      if (!e.deferred) holds.push(...taken);
    } else if (e.op === 'release') {
      removeWhere(holds, (h) => e.texts.includes(lockKey(h.lock.text)));
    } else {
      const guard = e.arrow ? undefined : guards.get(e.object);
      if (guard !== undefined) {
        if (guard.info.release.has(e.method)) removeWhere(holds, (h) => h.guard === e.object);
        else if (guard.info.retake.has(e.method) && onEveryWay(e.node, func, row) && !holds.some((h) => h.guard === e.object)) {
          holds.push(...guard.taken.map((h) => ({ ...h, line: e.node.startPosition.row + 1, code: codeAt(e.node) })));
        }
      } else if (e.release) removeWhere(holds, (h) => lockKey(h.lock.text) === lockKey(e.arrow ? `*${e.object}` : e.object));
      else if (e.acquire !== null && onEveryWay(e.node, func, row)) holds.push({ lock: e.acquire, line: e.node.startPosition.row + 1, code: codeAt(e.node), via: e.method });
    }
  }
  // A release the line itself makes: the frame is letting the lock go (a thread in
  // pthread_mutex_unlock's futex wake), so it is not claimed as held.
  for (const e of onLine) {
    if (e.op === 'release') removeWhere(holds, (h) => e.texts.includes(lockKey(h.lock.text)));
    else if (e.op === 'method') {
      const guard = e.arrow ? undefined : guards.get(e.object);
      if (guard !== undefined && guard.info.release.has(e.method)) removeWhere(holds, (h) => h.guard === e.object);
      else if (guard === undefined && e.release) removeWhere(holds, (h) => lockKey(h.lock.text) === lockKey(e.arrow ? `*${e.object}` : e.object));
    }
  }
  // A condition wait on the line lets its mutex (or its guard's) go while it waits.
  const released: SourceLockRef[] = [];
  for (const arg of releasing) {
    const key = lockKey(arg.text);
    const guard = guards.get(arg.text);
    if (guard !== undefined) {
      released.push(...guard.taken.map((h) => h.lock));
      removeWhere(holds, (h) => h.guard === arg.text);
    } else {
      released.push(pointerRef(arg, 'mutex', cxxMember));
      removeWhere(holds, (h) => lockKey(h.lock.text) === key || lockKey(h.lock.text) === lockKey(`&${arg.text}`) || `&${lockKey(h.lock.text)}` === key);
    }
  }
  const waits: SourceLockRef[] = [];
  for (const e of onLine) {
    if (e.op === 'acquire' && !e.deferred) waits.push(...e.locks);
    else if (e.op === 'method') {
      const guard = e.arrow ? undefined : guards.get(e.object);
      if (guard !== undefined) {
        if (guard.info.retake.has(e.method)) waits.push(...guard.taken.map((h) => h.lock));
      } else if (e.acquire !== null) waits.push(e.acquire);
    }
  }
  // A name the function does not declare (no parameter, no local) is the file's own variable:
  // C declares before use, so it is declared at file scope. Not in a C++ method (it may be a
  // member) or a lambda (it may be a captured local of the enclosing function).
  if (func.type === 'function_definition' && !cxxMember) tree.markFileScope([...holds.map((h) => h.lock), ...waits, ...released], declaredNames(func));
  let outer: Node = func;
  while (outer.parent !== null && outer.parent.type !== 'translation_unit' && !['declaration_list', 'namespace_definition', 'linkage_specification', 'preproc_if', 'preproc_ifdef', 'preproc_else', 'preproc_elif'].includes(outer.parent.type)) outer = outer.parent;
  return {
    functionName: func.type === 'function_definition' ? functionNameOf(func) : null,
    functionRows: [outer.startPosition.row, outer.endPosition.row],
    clean: !outer.hasError,
    code: statementText(at, row) ?? text.trim(),
    calls,
    holds: holds.map(({ lock, line: l, code, via }) => ({ lock, line: l, code, via })),
    waits,
    released,
  };
}

function removeWhere<T>(list: T[], test: (item: T) => boolean): void {
  for (let i = list.length - 1; i >= 0; i--) if (test(list[i] as T)) list.splice(i, 1);
}

/** Parameters and locals a function declares (any nesting). */
function declaredNames(fn: Node): Set<string> {
  const out = new Set<string>();
  const visit = (node: Node): void => {
    if (node.type === 'declaration' || node.type === 'parameter_declaration') for (const name of declaratorNames(node)) out.add(name);
    for (const child of node.namedChildren) if (child !== null) visit(child);
  };
  visit(fn);
  return out;
}

/** The names a declaration declares: `int a, *b = 0, c[4];` → a, b, c. */
function declaratorNames(decl: Node): string[] {
  const out: string[] = [];
  for (const d of decl.childrenForFieldName('declarator')) {
    let n: Node | null = d;
    while (n !== null && n.type !== 'identifier' && n.type !== 'field_identifier') n = n.childForFieldName('declarator');
    if (n !== null && n.type === 'identifier') out.push(n.text);
  }
  return out;
}

/** The lock event of a call, if the vocabulary knows it. */
function callEvent(node: Node, v: CompiledVocabulary, cxxMember: boolean): LockEvent | null {
  const fnNode = node.childForFieldName('function');
  const args = argumentNodes(node);
  if (fnNode === null) return null;
  if (fnNode.type === 'field_expression') {
    // `m.lock()`, `mu_->lock()`, `lk.unlock()`.
    const object = fnNode.childForFieldName('argument');
    const method = fnNode.childForFieldName('field')?.text ?? '';
    if (object === null || method === '') return null;
    const arrow = fieldOperator(fnNode) === '->';
    const kind = v.methodAcquire.get(method);
    const guardMethod = [...v.guards.values()].some((g) => g.release.has(method) || g.retake.has(method));
    if (kind === undefined && !v.methodRelease.has(method) && !guardMethod) return null;
    const acquire = kind === undefined ? null : arrow ? derefRef(object, kind) : objectRef(object, kind, cxxMember);
    return { op: 'method', node, object: object.text, method, arrow, acquire, release: v.methodRelease.has(method) };
  }
  const name = normalizeCallee(fnNode.text);
  const acquire = v.acquire.get(name);
  if (acquire !== undefined) {
    if (acquire.fixed !== undefined) return { op: 'acquire', node, locks: [{ text: `${acquire.fixedKey ?? name}()`, symbols: acquire.fixed, kind: acquire.kind }], via: name };
    const chosen = acquire.lockArg === 'all' ? args : args.slice(acquire.lockArg, acquire.lockArg + 1);
    if (chosen.length === 0) return null;
    const locks = chosen.map((a) => (acquire.symbol !== undefined ? { text: a.text, symbols: [acquire.symbol.replace('{arg}', a.text)], kind: acquire.kind } : pointerRef(a, acquire.kind, cxxMember)));
    return { op: 'acquire', node, locks, via: name };
  }
  const release = v.release.get(name);
  if (release !== undefined) {
    if (release.fixedKey !== undefined) return { op: 'release', node, texts: [lockKey(`${release.fixedKey}()`)] };
    const chosen = release.lockArg === 'all' ? args : args.slice(release.lockArg as number, (release.lockArg as number) + 1);
    return { op: 'release', node, texts: chosen.map((a) => lockKey(a.text)) };
  }
  const scoped = v.scoped.get(name);
  if (scoped !== undefined && args[0] !== undefined) {
    const statement = statementOf(node);
    let scope: Node | null = null;
    if (scoped.block === 'following') {
      scope = statement?.nextNamedSibling ?? null;
      if (scope?.type !== 'compound_statement') return null;
    } else scope = enclosingBlock(node);
    if (scope === null) return null;
    return { op: 'acquire', node, locks: [pointerRef(args[0], scoped.kind, cxxMember)], via: name, scope };
  }
  return null;
}

/** The argument a releasing wait lets go (`&m` of `pthread_cond_wait(&cv, &m)`, `lk` of `cv.wait(lk)`), or null. */
function releasedArgument(call: Node, v: CompiledVocabulary): Node | null {
  const f = call.childForFieldName('function');
  if (f === null) return null;
  const index = f.type === 'field_expression' ? v.releasingMethods.get(f.childForFieldName('field')?.text ?? '') : v.releasingCalls.get(normalizeCallee(f.text));
  return index === undefined ? null : (argumentNodes(call)[index] ?? null);
}

/** A guard declaration (`std::lock_guard<std::mutex> g(m);`), as the lock event it is. */
function guardEvent(node: Node, v: CompiledVocabulary, cxxMember: boolean): LockEvent | null {
  const typeNode = node.childForFieldName('type');
  if (typeNode === null) return null;
  const guard = guardOf(v, typeNode.text);
  if (guard === undefined) return null;
  const declarator = node.childForFieldName('declarator');
  if (declarator === null) return null;
  let name: string | null = null;
  let args: Node[] = [];
  if (declarator.type === 'init_declarator') {
    name = declarator.childForFieldName('declarator')?.text ?? null;
    const value = declarator.childForFieldName('value');
    if (value !== null) args = value.type === 'argument_list' || value.type === 'initializer_list' ? value.namedChildren.filter((n): n is Node => n !== null && n.type !== 'comment') : value.type === 'call_expression' ? argumentNodes(value) : [];
  } else if (declarator.type === 'function_declarator') {
    // The most vexing parse: `std::lock_guard<std::mutex> g(m);` reads as a function declaration
    // whose parameters are the arguments' names.
    name = declarator.childForFieldName('declarator')?.text ?? null;
    const params = declarator.childForFieldName('parameters');
    args = (params?.namedChildren ?? []).filter((n): n is Node => n !== null && n.type === 'parameter_declaration').map((p) => p.childForFieldName('type') ?? p);
  }
  if (name === null || args.length === 0) return null;
  const deferred = args.slice(1).some((a) => guard.value.deferred.has(a.text) || guard.value.deferred.has(a.text.replace(/^std::/, '')) || [...guard.value.deferred].some((d) => d.endsWith(`::${a.text}`)));
  const lockArgs = guard.value.allArgs ? args : args.slice(0, 1);
  const locks = lockArgs.map((a) => objectRef(a, guard.value.kind, cxxMember));
  const scope = enclosingBlock(node);
  if (scope === null) return null;
  return { op: 'acquire', node, locks, via: guard.type, guard: { ...guard.value, name }, scope, deferred };
}

function guardOf(v: CompiledVocabulary, typeText: string): { type: string; value: CompiledVocabulary['guards'] extends Map<string, infer G> ? G : never } | undefined {
  const bare = stripTemplates(typeText).replace(/\s+/g, '');
  const direct = v.guards.get(bare);
  if (direct !== undefined) return { type: bare, value: direct };
  // `lock_guard<mutex>` under `using namespace std;`.
  for (const [type, value] of v.guards) if (type.endsWith(`::${bare}`)) return { type, value };
  return undefined;
}

function fieldOperator(field: Node): string {
  const op = field.childForFieldName('operator');
  if (op !== null) return op.type;
  const arg = field.childForFieldName('argument');
  const name = field.childForFieldName('field');
  if (arg === null || name === null) return '.';
  return field.text.slice(arg.endIndex - field.startIndex, name.startIndex - field.startIndex).trim();
}

/** A C lock argument, a pointer to the lock: `&lock_a`, `&s->lock`, `m` (a pointer parameter), `&mu_`. */
function pointerRef(arg: Node, kind: string, cxxMember: boolean): SourceLockRef {
  const text = arg.text;
  if (arg.type === 'pointer_expression' && arg.text.startsWith('&')) {
    const target = arg.childForFieldName('argument');
    if (target !== null) return { ...objectRef(target, kind, cxxMember), text };
  }
  if (arg.type === 'identifier') return { text, symbols: [], member: { root: arg.text, path: '' }, kind };
  return { text, symbols: [], kind };
}

/** A lock object itself (a C++ reference, a method's object): `accounts`, `this->mu_`, `s->m`, `*p`. */
function objectRef(node: Node, kind: string, cxxMember: boolean): SourceLockRef {
  const text = node.text;
  if (node.type === 'identifier' || node.type === 'type_identifier') {
    return { text, symbols: [text], ...(cxxMember ? { member: { root: 'this', path: `->${text}` } } : {}), kind };
  }
  if (node.type === 'qualified_identifier') return { text, symbols: [text.replace(/\s+/g, '')], kind };
  if (node.type === 'field_expression') {
    const path = memberPath(node);
    if (path !== null) return { text, symbols: [], member: path, kind };
  }
  if (node.type === 'pointer_expression' && text.startsWith('*')) {
    const target = node.childForFieldName('argument');
    if (target?.type === 'identifier') return { text, symbols: [], member: { root: target.text, path: '' }, kind };
  }
  if (node.type === 'pointer_expression' && text.startsWith('&')) {
    const target = node.childForFieldName('argument');
    if (target !== null) return { ...objectRef(target, kind, cxxMember), text };
  }
  return { text, symbols: [], kind };
}

/** `p->lock()`: the lock is what `p` points at. */
function derefRef(object: Node, kind: string): SourceLockRef {
  const text = `*${object.text}`;
  if (object.type === 'identifier') return { text, symbols: [], member: { root: object.text, path: '' }, kind };
  return { text, symbols: [], kind };
}

/** `this->mu_` → this, `->mu_`; `s->inner.lock` → s, `->inner.lock`. Null when the root is not a name. */
function memberPath(node: Node): { root: string; path: string } | null {
  const parts: string[] = [];
  let n: Node | null = node;
  while (n !== null && n.type === 'field_expression') {
    const field = n.childForFieldName('field');
    if (field === null) return null;
    parts.unshift(`${fieldOperator(n)}${field.text}`);
    n = n.childForFieldName('argument');
  }
  if (n === null || (n.type !== 'identifier' && n.type !== 'this')) return null;
  return { root: n.text, path: parts.join('') };
}

/** A lock expression's text for pairing releases with acquisitions: no spaces. */
export function lockKey(text: string): string {
  // In a method, `this->mu_` and `mu_` are one lock.
  return text.replace(/\s+/g, '').replace(/\bthis->/g, '');
}

/** The called name of a call (`pthread_mutex_lock`, `join` for `t.join()`), or null. */
function callName(node: Node): string | null {
  const f = node.childForFieldName('function');
  if (f === null) return null;
  if (f.type === 'field_expression') return f.childForFieldName('field')?.text ?? null;
  if (f.type === 'identifier' || f.type === 'qualified_identifier' || f.type === 'template_function') return bareName(f.text);
  return null;
}

function functionNameOf(fn: Node): string | null {
  let d = fn.childForFieldName('declarator');
  while (d !== null && d.type !== 'function_declarator') d = d.childForFieldName('declarator');
  const name = d?.childForFieldName('declarator');
  if (name === null || name === undefined) return null;
  return ['identifier', 'qualified_identifier', 'field_identifier', 'destructor_name', 'operator_name'].includes(name.type) ? name.text : null;
}

/** `std::lock_guard<std::mutex>` → `std::lock_guard`. */
export function stripTemplates(text: string): string {
  let out = '';
  let depth = 0;
  for (const ch of text) {
    if (ch === '<') depth++;
    else if (ch === '>') depth = Math.max(0, depth - 1);
    else if (depth === 0) out += ch;
  }
  return out.trim();
}

/** A called name as the vocabulary has it: templates and spaces dropped (`std::lock`). */
function normalizeCallee(text: string): string {
  return stripTemplates(text).replace(/\s+/g, '');
}

/**
 * A function name reduced for comparing a frame with a call: the last `::` part, no templates or
 * parameters, no symbol version or clone suffix, no glibc-internal prefix or leading underscores.
 * `___pthread_mutex_lock` → `pthread_mutex_lock`; `std::lock_guard<std::mutex>::lock_guard` → `lock_guard`.
 */
export function bareName(name: string): string {
  // Rust's legacy mangling hash (`abba::a_then_b::h0123456789abcdef`) is no part of the name.
  let n = stripTemplates(name.trim().replace(/::h[0-9a-f]{16}$/, ''));
  const paren = n.indexOf('(');
  if (paren > 0) n = n.slice(0, paren);
  n = n.replace(/@.*$/, '');
  const colon = n.lastIndexOf('::');
  if (colon >= 0) n = n.slice(colon + 2);
  const dot = n.indexOf('.');
  if (dot > 0) n = n.slice(0, dot);
  n = n.replace(/^\*/, '').replace(/^_*GI_+/, '').replace(/^_+/, '').replace(/^libc_/, '');
  return n.trim();
}

/**
 * Whether a line that makes these calls can be where a frame called `callee`: one of them is the
 * callee (allowing for a wrapper's `_impl` or a libc entry's `__` prefix), a pack says the call
 * reaches it (`pthread_join` → `__pthread_clockjoin_ex`), or the line calls a macro, whose
 * expansion the code does not show. Null when nothing can be said (a destructor or operator the
 * line calls implicitly, a signal frame).
 */
export function lineCallsCallee(calls: readonly string[], callee: string, v: CompiledVocabulary): boolean | null {
  const target = bareName(callee);
  if (target === '' || callee.startsWith('<') || callee === '??' || /operator|~|lambda|\{/.test(callee)) return null;
  // Rust's Fn traits: calling a closure or a fn value (`f()`, `(self.hook)(x)`) reaches
  // `core::ops::function::FnOnce::call_once`, a name the line never writes.
  if (target === 'call_once' || target === 'call_mut' || target === 'call') return null;
  for (const call of calls) {
    const c = bareName(call);
    if (c === '') continue;
    if (/^[A-Z][A-Z0-9_]*$/.test(c)) return true;
    if (c === target || target.startsWith(c) || target.endsWith(c) || c.endsWith(target)) return true;
    if (v.callees.get(c)?.has(target)) return true;
  }
  return false;
}
