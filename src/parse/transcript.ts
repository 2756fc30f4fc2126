/**
 * The gdb session a pasted transcript shows, as far as owner answers need it: which thread and
 * frame are selected (`thread 5` → `[Switching to thread 5 (…)]` → `#0 …`; `frame 1` → `#1 …` and
 * its source line), what earlier answers said (`$3 = (pthread_mutex_t *) 0x… <lock_b>`, `$4 =
 * 140209899737720`), and the registers `info registers` showed. The builder feeds it the lines it
 * parses; `answer` turns a `$N = …` line into the owner hints it holds, each with what the
 * transcript says about the lock (rules-domain §1.4, §10). Linking a hint to a wait is analysis'
 * work (src/analyze/owner-links.ts): the parser only records what the text shows.
 */
import type { Frame, OwnerHint, PrintContext, ThreadInfo } from '../model/dump.js';
import { detach } from '../model/text-hygiene.js';
import { integerAddress, ownerFields, pointerAnswer, printExpression, type OwnerField } from './print-value.js';

// `frame 1`, `f 3`, `up`, `down 2`, `frame level 4`, `select-frame 2`: the next frame line gdb prints is the selected frame.
const FRAME_COMMAND = /^(?:f|fr|fra|fram|frame|up|down|do|dow|select-frame)(?:\s|$)/;
// `thread apply all p mutex`, `thread apply 5 p $rdi`, `taas p x`: each answer follows its thread's header.
const THREAD_APPLY = /^(?:thread\s+apply|t\s+a|taas|tfaas)\b/;
// `p *(pthread_mutex_t *) 0x5555555580a0` → the expression after the command word.
const PRINT_EXPRESSION = /^(?:p|print|output|call|inspect)(?:\/\w+)?\s+(.*)$/s; // `s`: `.*$` must not fail on U+2028 and backtrack over `\s+`
// What comes before the command `thread apply` runs: the thread list, its flags, a `frame apply` selection.
const THREAD_APPLY_PREFIX = /^(?:thread\s+apply\s+(?:all|[\d.\s-]{1,200}?)\s+(?:-\w+\s+)*|taas\s+|tfaas\s+)(?:frame\s+apply\s+(?:level\s+[\d\s-]{1,50}?|all|\d{1,6})\s+(?:-\w+\s+)*)?/;
// `$6 = {__data = …`, `$12 = 20595`
const ANSWER = /^\s*\$(\d{1,9}) = /;
/** History values remembered (a session rarely prints more; older ones are dropped). */
const MAX_HISTORY = 4096;

interface HistoryValue {
  /** The address the value is or points at (`(T *) 0x…`, a plain integer), or null. */
  address: string | null;
}

export class Transcript {
  /** The last print-like command's expression, until its answer (or another line) arrives. */
  private printCommand: string | null = null;
  private selection: PrintContext | null = null;
  /** The selected frame, with its arguments (for `*mutex` after `frame 1`). */
  private selectedFrame: Frame | null = null;
  private selections = 0;
  /** The next frame line is the one gdb selected (after a switch or a `frame` command). */
  wantsFrame = false;
  /** Source text is awaited for the selected frame (gdb prints it right after the frame line). */
  private wantsSource = false;
  /** Inside a `thread apply` answer: each header sets the thread the answers after it belong to. */
  private applying = false;
  private applied: PrintContext | null = null;
  private history = new Map<number, HistoryValue>();
  private lastHistory = 0;
  /** Variables whose address an answer showed (`$3 = (class std::mutex *) 0x564f29c900e0 <accounts>`). */
  private addresses = new Map<string, string>();
  private registers = new Map<string, string>();
  /**
   * Hints whose lock address the transcript did not show yet, by the lock's expression (and, for
   * one that means something only in its frame, the thread): a later `print &X` answer gives it.
   */
  private pending = new Map<string, OwnerHint[]>();

  /** A prompt's command (`(gdb) frame 1`) or a bare print command (`p qemu_global_mutex`). */
  command(text: string): void {
    const command = text.trim();
    // `thread apply 2 print *(pthread_mutex_t *) $rdi`, `thread apply all frame apply level 3 p *mutex`: the print each thread answers.
    const applied = THREAD_APPLY_PREFIX.exec(command);
    const print = PRINT_EXPRESSION.exec(applied === null ? command : command.slice(applied[0].length));
    this.printCommand = print ? detach((print[1] as string).trim()) : null;
    this.wantsFrame = FRAME_COMMAND.test(command);
    this.wantsSource = false;
    this.applying = THREAD_APPLY.test(command);
    this.applied = null;
    if (/^(?:info\s+(?:r|re|reg|regi|regis|registers|all-registers)|i\s+r)\b/.test(command)) this.registers.clear();
  }

  /** Any line that is not the answer to the last print command (prose, a frame, a blank line). */
  notAnswer(): void {
    // `thread apply` answers once per thread, each after its header: the command holds until the next prompt.
    if (!this.applying) this.printCommand = null;
  }

  /** `[Switching to thread 5 (Thread 0x7f852667e700 (LWP 26936))]`: gdb selected that thread (frame #0 follows). */
  switched(thread: ThreadInfo): void {
    if (thread.gdbId === '') return;
    this.selection = { thread: thread.gdbId, lwp: thread.lwp, frame: null, from: 'switch', selection: ++this.selections };
    this.selectedFrame = null;
    this.registers.clear();
    this.wantsFrame = true;
    this.wantsSource = false;
  }

  /** A thread header: inside a `thread apply` answer, the answers after it are that thread's. */
  header(thread: ThreadInfo): void {
    this.wantsFrame = false;
    this.wantsSource = false;
    if (this.applying && thread.gdbId !== '') this.applied = { thread: thread.gdbId, lwp: thread.lwp, frame: null, from: 'thread-apply', selection: ++this.selections };
  }

  /** The frame line gdb printed for the selection (only called while `wantsFrame`). */
  frame(frame: Frame): void {
    this.wantsFrame = false;
    if (this.selection === null) return;
    if (this.selection.frame !== null) this.selection = { ...this.selection, selection: ++this.selections };
    this.selection.frame = frame.level;
    this.selection.function = detach(frame.function);
    delete this.selection.source;
    this.selectedFrame = frame;
    this.registers.clear();
    this.wantsSource = true;
  }

  /** `14\t  std::lock_guard<std::mutex> hold_journal(journal);` right after the selected frame. */
  source(text: string): void {
    if (!this.wantsSource || this.selection === null) return;
    this.wantsSource = false;
    const code = /^\s*\d+\s+(.*)$/.exec(text);
    if (code === null) return;
    const source = (code[1] as string).trim();
    // `57\t./nptl/futex-internal.c: No such file or directory.` and `42\tin abba.c` show no code.
    if (/: No such file or directory\.?$/.test(source) || /^in \S+$/.test(source)) return;
    this.selection.source = detach(source);
  }

  /** A row of `info registers`: `rdi            0x7f8529449278      140209899737720`. */
  register(name: string, value: string): void {
    const address = integerAddress(value);
    if (address !== null) this.registers.set(name, address);
  }

  /** The owner hints a `$N = …` answer holds (none for other answers, which may still be remembered). */
  answer(text: string, sourceLine: number): OwnerHint[] {
    const command = this.printCommand;
    if (!this.applying) this.printCommand = null;
    this.wantsSource = false;
    const m = ANSWER.exec(text);
    if (m === null) return [];
    const n = Number(m[1]);
    // `$1` again: a new gdb session (concatenated transcripts); its history starts over.
    if (n <= this.lastHistory) {
      this.history.clear();
      this.addresses.clear();
    }
    this.lastHistory = n;
    const value = text.slice(m[0].length);
    const hints = this.ownerHints(command, value, n, sourceLine);
    if (hints.length === 0) this.remember(command, value, n);
    return hints;
  }

  /** A `bt full` local that is a lock (`m = {__data = {…, __owner = 20496, …`): a hint about that frame's thread. */
  local(name: string, value: string, thread: ThreadInfo | null, level: number, sourceLine: number): OwnerHint[] {
    const fields = ownerFields(value);
    const context: PrintContext | undefined =
      thread !== null && thread.gdbId !== '' ? { thread: thread.gdbId, lwp: thread.lwp, frame: level, from: 'bt-full', selection: ++this.selections } : undefined;
    return fields.map((f) => {
      const hint: OwnerHint = { expression: detach(name), address: null, field: f.field, ownerLwp: f.value, sourceLine };
      hint.lockExpression = lockExpressionOf(detach(name), f);
      if (f.readers !== undefined) hint.readers = f.readers;
      if (f.lockWord !== undefined) hint.lockWord = f.lockWord;
      if (f.shared === true) hint.shared = true;
      if (context !== undefined) hint.context = context;
      return hint;
    });
  }

  private ownerHints(command: string | null, value: string, n: number, sourceLine: number): OwnerHint[] {
    const fields: OwnerField[] = ownerFields(value);
    if (fields.length === 0 && command !== null) {
      const scalar = scalarOwner(command, value);
      if (scalar !== null) fields.push(scalar);
    }
    if (fields.length === 0) return [];
    const expression = command === null ? null : printExpression(command);
    const base = expression === null ? null : this.resolve(expression);
    const context = this.applied ?? this.selection;
    return fields.map((f) => {
      const hint: OwnerHint = { expression: command, address: null, field: f.field, ownerLwp: f.value, history: n, sourceLine };
      const lockAtValueStart = expression !== null && expression.members.length === 0 && f.atStart;
      if (base !== null && base.address !== null && lockAtValueStart) {
        hint.address = base.address;
        hint.addressFrom = base.from;
      }
      if (expression !== null && expression.base.kind === 'variable' && lockAtValueStart) hint.variable = expression.base.name;
      if (command !== null && f.field !== 'thread_id') hint.lockExpression = lockExpressionOf(command, f);
      if (f.readers !== undefined) hint.readers = f.readers;
      if (f.lockWord !== undefined) hint.lockWord = f.lockWord;
      if (f.shared === true) hint.shared = true;
      if (context !== null) hint.context = { ...context };
      if (hint.address === null && hint.lockExpression !== undefined) this.await(hint);
      return hint;
    });
  }

  /** Keeps a hint without an address until a `print &LOCK` answer shows it. */
  private await(hint: OwnerHint): void {
    if (this.pending.size >= MAX_HISTORY) this.pending.clear();
    // The lock itself (`qemu_global_mutex.lock`), and the variable it starts at (`qemu_global_mutex`).
    for (const expression of new Set([hint.lockExpression as string, ...(hint.variable !== undefined ? [hint.variable] : [])])) {
      const key = pendingKey(expression, hint.context ?? null);
      const list = this.pending.get(key);
      if (list) list.push(hint);
      else this.pending.set(key, [hint]);
    }
  }

  /** The address an expression's base stands for, from the transcript, and how it is known. */
  private resolve(e: NonNullable<ReturnType<typeof printExpression>>): { address: string | null; from: NonNullable<OwnerHint['addressFrom']> } | null {
    const base = e.base;
    switch (base.kind) {
      case 'address':
        return { address: base.address, from: 'expression' };
      case 'variable': {
        const address = this.addresses.get(base.name);
        return address === undefined ? null : { address, from: 'answer' };
      }
      case 'pointer': {
        const arg = this.selectedFrame?.args.find((a) => a.name === base.name);
        const pointer = arg === undefined ? null : pointerAnswer(arg.value.replace(/^@/, ''));
        return pointer === null ? null : { address: pointer.address, from: 'frame-arg' };
      }
      case 'convenience': {
        if (/^\d+$/.test(base.name)) {
          const value = this.history.get(Number(base.name));
          return value?.address && base.deref ? { address: value.address, from: 'history' } : null;
        }
        const register = this.registers.get(base.name);
        return register !== undefined && base.deref ? { address: register, from: 'register' } : null;
      }
    }
  }

  /** Remembers what a non-owner answer says: a pointer (`$3 = (pthread_mutex_t *) 0x… <lock_b>`) or an integer (`$4 = 140209899737720`). */
  private remember(command: string | null, value: string, n: number): void {
    if (this.history.size >= MAX_HISTORY) this.history.clear();
    const pointer = pointerAnswer(value);
    const address = pointer?.address ?? integerAddress(value);
    this.history.set(n, { address });
    if (pointer === null) return;
    // `p &lock_b` / `p lock_ptr`: the variable's address; a `<lock_b>` in the answer names it too.
    const named = command === null ? null : /^&\s*([A-Za-z_]\w*(?:::[A-Za-z_]\w*)*)$/.exec(command.trim());
    if (named !== null) this.addresses.set(named[1] as string, pointer.address);
    // `print &qemu_global_mutex`, `print &(*mutex)`: the address an earlier owner answer lacked.
    const of = command === null ? null : /^&\s*(?:\((.*)\)|(.*))$/s.exec(command.trim());
    if (of !== null) {
      const key = pendingKey((of[1] ?? of[2] ?? '') as string, this.applied ?? this.selection);
      for (const hint of this.pending.get(key) ?? []) {
        if (hint.address !== null) continue;
        hint.address = pointer.address;
        hint.addressFrom = 'answer';
      }
      this.pending.delete(key);
    }
    if (pointer.symbol !== null && !pointer.symbol.includes('+') && this.addresses.size < MAX_HISTORY) this.addresses.set(detach(pointer.symbol), pointer.address);
  }
}

/**
 * A scalar answer to an owner expression: `print ((pthread_mutex_t *) 0x…)->__data.__owner` → `$1 = 428`;
 * the GIL's holder (`_PyRuntime.ceval.gil.locked._value ? ((PyThreadState *) …)->thread_id : 0`).
 */
function scalarOwner(command: string, value: string): OwnerField | null {
  const v = value.trim();
  if (!/^-?\d{1,19}$/.test(v)) return null;
  const n = Number(v);
  if (!Number.isSafeInteger(n)) return null;
  // `((pthread_mutex_t *) 0x…)->__data.__owner`, `((pthread_mutex_t *) *(void **) 0x…)->__data.__owner` (a GRecMutex's inner mutex).
  const last = /(?:->|\.)\s*(__owner|__cur_writer|__writer|system_id)\s*$/.exec(command)?.[1];
  if (last === '__owner') return { field: '__owner', value: n, lockPath: [], atStart: true };
  if (last === '__cur_writer' || last === '__writer') return { field: '__cur_writer', value: n, lockPath: [], atStart: true };
  // A jl_mutex_t's owner task's thread: `((jl_task_t *) ((jl_mutex_t *) 0x…)->owner)->ptls->system_id` (a pthread_t).
  if (last === 'system_id' && /\bjl_mutex_t\b/.test(command)) return { field: 'thread_id', value: n, lockPath: [], atStart: true };
  // Only the form that checks `locked`: a last holder that has released the GIL is not its owner.
  if (/\bgil\b/.test(command) && /\blocked\b/.test(command) && /thread_id\s*:\s*0\s*$/.test(command)) return { field: 'thread_id', value: n, lockPath: [], atStart: true };
  return null;
}

/**
 * The key under which a hint waits for its lock's address: the expression without spaces, and the
 * thread for one that reads a frame (an argument, a register, `this`).
 */
function pendingKey(lockExpression: string, context: PrintContext | null): string {
  const e = lockExpression.replace(/\s+/g, '');
  const base = printExpression(lockExpression)?.base;
  const global = base !== undefined && (base.kind === 'address' || base.kind === 'variable');
  return global || context === null ? e : `${context.thread}|${e}`;
}

/** `qemu_global_mutex` + `['lock']` → `qemu_global_mutex.lock`; a complex expression is parenthesised. */
function lockExpressionOf(expression: string, field: OwnerField): string {
  const e = printExpression(expression);
  let base = expression.trim();
  if (e !== null && e.last !== null && e.members.length === 0) {
    // `((pthread_mutex_t *) 0x…)->__data.__owner` names the field: the lock is what precedes the transparent members.
    base = base.replace(/\s*(?:(?:\.|->)\s*(?:__data|_data|__owner|__cur_writer|__writer|__readers|__lock)\s*)+$/, '');
    if (/->$|\.$/.test(base)) base = base.slice(0, -1);
    if (base.startsWith('(') && !base.startsWith('(*') && /\)\s*$/.test(base) && e.base.kind === 'address') base = `*${base}`;
  }
  if (field.lockPath.length === 0) return base;
  const simple = /^[A-Za-z_][\w:]*$/.test(base);
  return `${simple ? base : `(${base})`}.${field.lockPath.join('.')}`;
}
