/**
 * What `--source DIR` reads (src/source/) and what it is told to look for: the lock vocabulary of
 * C, C++ and Rust code (the packs' source-locks.yaml, loaded by rules/source-locks.ts), the frames it is
 * asked about, and what it found at each. Plain data, shared by rules, source and analyze.
 */

/** Calls that take and let go of a lock by function: `pthread_mutex_lock(&a)` … `pthread_mutex_unlock(&a)`. */
export interface SourceLockCall {
  acquire: string[];
  release: string[];
  /** The resource kind a hold of it is (`mutex`, `rwlock`), as the rules name the waits on it. */
  kind: string;
  /** Which argument is the lock (0-based), or `all` (`std::lock(a, b)`). Default 0. */
  lockArg: number | 'all';
  /**
   * The lock's symbol made from the argument's name, when the call is a macro that pastes it
   * (`G_LOCK(name)` locks `g__name_lock`): `{arg}` is the argument's text.
   */
  symbol?: string;
  /** The lock takes no argument and is always the same one (`bql_lock()`): its possible symbols. */
  fixed?: string[];
}

/** Member functions of a lock object: `m.lock()` … `m.unlock()`, `mu_->lock()`. */
export interface SourceLockMethod {
  acquire: string[];
  release: string[];
  kind: string;
}

/**
 * Rust's lock methods, which return a guard: `let g = m.lock().unwrap();` holds `m` while `g`
 * lives, to the end of its block or `drop(g)`; a guard bound to `_`, or never bound
 * (`*m.lock().unwrap() += 1;`), lets go at the end of its statement. Only calls without arguments
 * count: `file.read(&mut buf)` is no lock.
 */
export interface SourceLockGuardMethod {
  methods: string[];
  kind: string;
}

/** RAII guard types: a declared guard holds its lock until the end of its block (`std::lock_guard<std::mutex> g(m);`). */
export interface SourceLockGuard {
  /** Qualified type names without template arguments: `std::lock_guard`, `QMutexLocker`. */
  types: string[];
  kind: string;
  /** Every argument is a lock (`std::scoped_lock l(a, b)`), or only the first. */
  allArgs: boolean;
  /** Arguments that make the guard not take the lock (`std::defer_lock`, `std::try_to_lock`). */
  deferred: string[];
  /** Member calls on the guard that let the lock go (`lk.unlock()`) and take it again (`lk.lock()`). */
  release: string[];
  retake: string[];
}

/**
 * Calls whose lock is held until the end of the block they are in (`QEMU_LOCK_GUARD(&m);`,
 * `g_autoptr(GMutexLocker) l = g_mutex_locker_new(&m);`), or, with `block: following`, inside the
 * block that follows them (`WITH_QEMU_LOCK_GUARD(&m) { … }`).
 */
export interface SourceLockScoped {
  calls: string[];
  kind: string;
  block: 'enclosing' | 'following';
}

/**
 * Waits that let a lock go while they wait and take it back after: `pthread_cond_wait(&cv, &m)`
 * (argument 1), `cv.wait(lk)` (argument 0, a guard). A frame in one does not hold that lock.
 */
export interface SourceLockReleasing {
  calls: string[];
  methods: string[];
  lockArg: number;
}

export interface SourceLockVocabulary {
  calls: SourceLockCall[];
  releasing: SourceLockReleasing[];
  methods: SourceLockMethod[];
  /** Rust: lock methods that return a guard (src/source/rust-locks.ts). */
  guardMethods: SourceLockGuardMethod[];
  guards: SourceLockGuard[];
  scoped: SourceLockScoped[];
  /**
   * Source calls that reach a frame of another name (`pthread_join` → `__pthread_clockjoin_ex`),
   * for the check that a file still matches the dump: the frame's name (underscores stripped) by
   * the name in the code.
   */
  callees: Record<string, string[]>;
}

/** One frame `--source` is asked about: its file and line, and the frame it calls (the next toward #0). */
export interface SourceProbe {
  /** The caller's handle for the answer. */
  id: number;
  /** The path gdb printed (`abba.c`, `/cache/build/…/src/gc.c`). */
  path: string;
  line: number;
  /** The function gdb names the frame by (`take_a_then_b`, `Foo::run`). */
  function: string;
  /** The function this frame called (the frame below it), or null for frame #0. */
  callee: string | null;
}

/**
 * A lock expression as the code wrote it, and what it may be in the dump: `&lock_a` the symbol
 * `lock_a` (gdb prints `<lock_a>` after its address); `this->mu_` or `mu_` the field `mu_` of the
 * object `this` points at; `&s->lock` the field `lock` of what the argument `s` points at.
 */
export interface SourceLockRef {
  /** The expression as written: `&lock_a`, `this->mu_`. */
  text: string;
  /** The lock's possible symbols (`lock_a`; `ns::accounts`). */
  symbols: string[];
  /** A field of an object a frame argument points at: the argument (`this`, `s`) and the path (`->mu_`, `.inner.lock`). */
  member?: { root: string; path: string };
  /** The resource kind of the vocabulary entry (`mutex`). */
  kind: string;
  /**
   * Set when the lock is a variable of the file's own scope (`static pthread_mutex_t lock_a;`,
   * not a local or parameter of the function): its name. One file's `lock_a` is one lock, so a
   * hold and a wait that both name it meet even when gdb printed no address (libc without debug info).
   */
  global?: string;
}

/** A lock still held at a frame's line: taken earlier in the same function and not let go on the way. */
export interface SourceHold {
  lock: SourceLockRef;
  /** 1-based line of the acquisition, and its text (trimmed). */
  line: number;
  code: string;
  /** What took it: `pthread_mutex_lock`, `std::lock_guard`. */
  via: string;
}

export type SourceProbeStatus =
  /** Read: `holds` and `waits` are what the function shows. */
  | 'read'
  /** No file under DIR has this path (or the frame is not in any function of it). */
  | 'unmapped'
  /** Two files under DIR match the path equally well: neither is used (a note says so). */
  | 'ambiguous'
  /** The file does not match the dump (an edited checkout): no line of it is used. */
  | 'mismatch'
  /** The file is over the size cap, or cannot be read. */
  | 'skipped';

export interface SourceAnswer {
  id: number;
  status: SourceProbeStatus;
  /** The file's path relative to its DIR (`src/gc.c`), when mapped. */
  file?: string;
  /** The frame's own line, trimmed, when read. */
  code?: string;
  holds: SourceHold[];
  /** The locks the frame's own line asks for (the call it waits in), when read. */
  waits: SourceLockRef[];
  /** The locks the frame's own line lets go while it waits (a condition wait's mutex), when read. */
  released?: SourceLockRef[];
}

export interface SourceReport {
  answers: SourceAnswer[];
  /** What the reader should know: ambiguous paths, edited files, the size cap when it applied. */
  notes: string[];
}
