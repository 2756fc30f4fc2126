/**
 * The rule file format, as zod schemas. One rule a file (YAML or JSON); the format is documented
 * for users in src/rules/README.md. Unknown fields are errors (strict objects), so a typo in a
 * user rule never silently turns a condition off.
 */
import { z } from 'zod';
import { OWNER_SHAPES } from '../model/owner-shapes.js';

const name = z.string().min(1);
const nameOrList = z.union([name, z.array(name).min(1)]);

/** A function / symbol / library name pattern: a plain string (exact), a list (exact, any of), or an object. */
export const NamePatternSchema = z.union([
  name,
  z.array(name).min(1),
  z.strictObject({
    exact: nameOrList.optional(),
    prefix: nameOrList.optional(),
    glob: nameOrList.optional(),
    regex: name.optional(),
    underscores: z.enum(['ignore', 'exact']).optional(),
  }),
]);

/** Conditions on one named argument of a frame: `mutex=0x78411d5ca900 <safepoint_lock>`. */
export const ArgConditionSchema = z.strictObject({
  /** The `<symbol>` after the pointer. */
  symbol: NamePatternSchema.optional(),
  /** The whole value as printed (`0`, `JL_GC_AUTO`, `0x0`). */
  value: NamePatternSchema.optional(),
  /** The argument must (true) or must not (false) carry a readable address. */
  address: z.boolean().optional(),
});

/** Where a frame may stand in the stack. */
export const PositionSchema = z.union([
  /** `top`: frame #0 (the innermost printed frame); `anywhere`: no constraint. */
  z.enum(['top', 'anywhere']),
  /** Within the first N frames of the stack. */
  z.strictObject({ top: z.number().int().min(1) }),
  /** Within the first N frames after the wait primitives (futex, pthread_cond_wait, …) at the top. */
  z.strictObject({ within: z.number().int().min(1) }),
]);

export const FrameConditionSchema = z.strictObject({
  /** The normalised function name. */
  function: NamePatternSchema.optional(),
  /** The `from LIB` shared object (or `at LIB` of frame filters). */
  library: NamePatternSchema.optional(),
  /** The `at FILE:LINE` file. */
  file: NamePatternSchema.optional(),
  /** `?? ()` with no library and no file: code in anonymous memory, i.e. JIT-generated code. */
  jitCode: z.boolean().optional(),
  at: PositionSchema.optional(),
  /** Must be the frame right after the previous condition's frame (one level further out). */
  next: z.boolean().optional(),
  /** At most this many frames between the previous condition's frame and this one. */
  maxGap: z.number().int().min(0).optional(),
  args: z.record(name, ArgConditionSchema).optional(),
  /** This frame is the rule's site (default: the first condition's frame). */
  site: z.boolean().optional(),
});

/** One stack shape; every field given must hold. */
export const ShapeSchema = z.strictObject({
  /** Frame conditions in inner → outer order ("X above Y"): each is found further out than the one before. */
  frames: z.array(FrameConditionSchema).min(1).optional(),
  /** No frame of the stack may match any of these. */
  none: z.array(FrameConditionSchema).min(1).optional(),
  /** true: the stack starts with wait primitives (the thread is blocked); false: it does not. */
  blocked: z.boolean().optional(),
  /** true: gdb or the paste cut the stack (`(More stack frames follow...)`); false: complete. */
  truncated: z.boolean().optional(),
  /** Some backtrace of the same dump (any thread) has a frame matching each of these. */
  processHas: z.array(FrameConditionSchema).min(1).optional(),
});

export const ThreadMatchSchema = ShapeSchema.extend({
  /** At least one of these shapes must hold as well. */
  anyOf: z.array(ShapeSchema).min(1).optional(),
  /** The rule does not fire on a thread where any of these rules fired. */
  unlessRules: z.array(name).min(1).optional(),
});

const template = z.string().min(1);

export const WaitSchema = z.union([
  z.strictObject({
    /** Resource template: `mutex:{args.mutex.address}`, `orc:lazy-compile`. */
    resource: template,
    /** Sentence fragment after "Thread N": `waits for the lazy compile of a JIT trampoline`. */
    description: template,
    /** Short noun for titles: `LLVM ORC lazy compile`. */
    label: z.string().min(1).optional(),
    /** A wait on something with a holder (lock-like). false for condition variables, which any running thread may signal. */
    lockLike: z.boolean().optional(),
    /**
     * false when the waiter cannot be what it waits for: a recursive lock (its owner takes it again
     * without waiting) or the GIL (a thread asks for it only after dropping it). Default true: a
     * normal mutex relocked by its owner is a self-deadlock, so the waiter is a possible holder.
     */
    waiterMayHold: z.boolean().optional(),
    /** Several threads may hold it at once (read locks), so other waiters for it are possible holders too. */
    shared: z.boolean().optional(),
    /**
     * The same frames are also how a thread waits to be woken: a Python Condition, Event or Queue
     * wait sleeps in the acquire of a lock of its own, which notify() releases (no holder to find).
     * With no holder known, such a wait counts as one to be woken where the verdict asks whether
     * the process may only be idle until a signal comes.
     */
    mayBeWakeUp: z.boolean().optional(),
    /**
     * Only the thread the resource names can end the wait (pthread_join): no other thread is a
     * possible holder, and when that thread is not in the dump (it has exited) the wait is not stuck.
     */
    namedHolder: z.boolean().optional(),
    /**
     * The holder shows in its own stack (a rule names it with `holds`: the thread running a
     * one-time initializer, a lazy compile, a collection). When no thread is named, only a thread
     * whose stack is cut short could be it, not any thread as for a mutex.
     */
    holderShows: z.boolean().optional(),
    /**
     * Where to look for the holder when memory cannot name it (a lock that records no owner): a
     * clause the report adds after "it records no owner;", e.g. `the Python stacks show who holds
     * it: thread apply all py-bt`.
     */
    holderHint: z.string().min(1).optional(),
    /**
     * How memory names the holder (model/owner-shapes.ts): `pthread-mutex`, `pthread-rwlock`, `gil`,
     * `jl-mutex`, `grec-mutex`. Reports print its gdb command, live mode asks it; the resource's
     * identity must then be the lock's address (except for `gil`).
     */
    owner: z.enum(OWNER_SHAPES).optional(),
    /** For a lock no owner shape covers (a user's own): a gdb command that prints the holder, shown in reports and never run. */
    ownerQuery: template.optional(),
    /** What the owner query answers: an LWP or a pthread_t. */
    ownerAnswer: z.enum(['lwp', 'ptid']).optional(),
  }),
  z.strictObject({
    /** An all-of wait: one edge to every other thread whose state is this one. */
    allThreadsInState: name,
    /** The resource the all-of wait is about (shown in titles, not a graph node of its own). */
    resource: template,
    description: template,
    label: z.string().min(1).optional(),
  }),
]);

export const HoldSchema = z.strictObject({
  resource: template,
  /** Sentence fragment after "held by Thread N": `is compiling the function behind it`. */
  description: template.optional(),
});

export const ThreadEffectSchema = z.strictObject({
  state: name.optional(),
  stateText: z.string().min(1).optional(),
  /** When several rules set a state, the highest priority wins (default 0; ties: first rule in load order). */
  priority: z.number().int().optional(),
  waits: z.array(WaitSchema).min(1).optional(),
  holds: z.array(HoldSchema).min(1).optional(),
  /** `proven`: the frames show it; `inferred`: concluded from the shape. */
  evidence: z.enum(['proven', 'inferred']),
  /** The wait has a time limit (sleep, timed wait): never a hang. */
  timed: z.boolean().optional(),
  /** An idle pool / listener thread: never a hang, listed in a counted group. */
  idle: z.boolean().optional(),
  /**
   * The thread waits on the outside world (I/O, a connection, a signal, a child process): it is
   * never blocked forever, and a chain of waits that reaches it can still end.
   */
  outside: z.boolean().optional(),
  /**
   * A signal handler may end the wait (sem_post is async-signal-safe): when every blocked thread
   * only waits to be woken, the process may be idle until a signal comes (a daemon waiting in
   * sem_wait for SIGTERM), which is no hang.
   */
  signalWake: z.boolean().optional(),
  /**
   * The frames look like a wait but the thread runs: an unlock path waking a waiter
   * (pthread_mutex_unlock → __lll_lock_wake → futex_wake), or a lock's fast path before it sleeps
   * (frame #0 in pthread_mutex_lock itself, not in the futex wait). It counts as not blocked.
   */
  running: z.boolean().optional(),
});

export const CycleMatchSchema = z.strictObject({
  cycle: z.strictObject({
    /** Every one of these rules produced an edge or a state on the cycle's threads. */
    rules: z.array(name).min(1),
  }),
});

export const CycleEffectSchema = z.strictObject({
  /** The kind of deadlock, for the title: `Julia GC stop-the-world ↔ LLVM ORC lazy compile`. */
  title: z.string().min(1),
});

const common = {
  id: z.string().regex(/^[a-z0-9][a-z0-9_-]*(\.[a-z0-9][a-z0-9_-]*)+$/, 'ids are dotted lower-case words, e.g. julia.gc.initiator'),
  /** The pack; by default the name of the folder the rule file sits in (built-in rules give none). */
  pack: z.string().regex(/^[a-z0-9][a-z0-9_-]*$/, 'a pack is one lower-case word').optional(),
  summary: z.string().min(1).refine((s) => !s.includes('\n'), 'the summary is one line'),
  explanation: z.string().min(1),
  fix: z.string().min(1),
  sources: z.array(z.string().min(1)).min(1),
  /** This rule replaces the rule with that id (a built-in, or one loaded before it): same place, and references to the old id mean this one. */
  overrides: z.string().min(1).optional(),
};

/**
 * One member of a `bt full` local's printed value (`_M_device = @0x55e87e3180e0`, `lock: 0x563abe658af0`,
 * `_M_owns = true`): what it must look like. A member that gives the lock's address is captured for
 * templates (`{local._M_device.address}`).
 */
export const LocalFieldSchema = z.strictObject({
  /** The member is a pointer or reference with a non-null address (`0x… <sym>`, `@0x…`). */
  address: z.boolean().optional(),
  /** Every pointer or reference inside the member (a tuple of references: `std::tuple containing = {[1] = @0x…, [2] = @0x…}`); one hold each. */
  addresses: z.boolean().optional(),
  /** An integer holding a pointer whose low bit is set while locked (Qt 5's `QMutexLocker::val`): the address is the value without that bit. */
  taggedPointer: z.boolean().optional(),
  /** The member's whole printed value (`true`). */
  value: NamePatternSchema.optional(),
});

/** A `bt full` local that is a held guard: its printed value (type, members) and optionally its name. */
export const LocalConditionSchema = z.strictObject({
  /** The local's name (`hold_accounts`, `locker`). */
  name: NamePatternSchema.optional(),
  /** The type gdb prints before the value, when it does (Rust: `std::sync::poison::mutex::MutexGuard<u64> {lock: …}`). */
  type: NamePatternSchema.optional(),
  /** The value is a bare pointer (`locker = 0x5555555580a0 <mutex>`), captured as `{local.value.address}`. */
  pointer: z.boolean().optional(),
  /** Members the printed value must have (top level), each with its condition. */
  fields: z.record(name, LocalFieldSchema).optional(),
  /** The value has no other top-level members (default true), so a larger struct that merely contains one never matches. */
  exact: z.boolean().optional(),
});

export const LocalsMatchSchema = z.strictObject({
  local: LocalConditionSchema,
  /** The function the local belongs to must not be one of these (lock internals, the guard's own methods). */
  notIn: NamePatternSchema.optional(),
});

export const LocalHoldSchema = z.strictObject({
  /** Resource template from the local's captures: `mutex:{local._M_device.address}`. */
  resource: template,
  /** Sentence fragment after "held by Thread N": `as its std::lock_guard {local.name} in {frame.function} shows (bt full locals)`. */
  description: template.optional(),
});

export const LocalsEffectSchema = z.strictObject({
  holds: z.array(LocalHoldSchema).min(1),
  /** `proven`: the guard's value shows the lock is held; `inferred`: the local is taken for a guard by its name alone. */
  evidence: z.enum(['proven', 'inferred']),
  /**
   * The guard names its lock before it takes it (std::lock_guard binds its reference, then locks):
   * while it waits, the guard being built already shows the address it waits for. Such a guard in
   * the frame that waits is the lock being taken, not a hold.
   */
  boundBeforeLocked: z.boolean().optional(),
});

export const ThreadRuleSchema = z.strictObject({ ...common, match: ThreadMatchSchema, effect: ThreadEffectSchema });
export const CycleRuleSchema = z.strictObject({ ...common, match: CycleMatchSchema, effect: CycleEffectSchema });
/** A locals rule: a `bt full` local that is a held guard gives a hold (match.local instead of frames). */
export const LocalsRuleSchema = z.strictObject({ ...common, match: LocalsMatchSchema, effect: LocalsEffectSchema });

export type NamePatternRaw = z.infer<typeof NamePatternSchema>;
export type FrameConditionRaw = z.infer<typeof FrameConditionSchema>;
export type ShapeRaw = z.infer<typeof ShapeSchema>;
export type ThreadMatchRaw = z.infer<typeof ThreadMatchSchema>;
export type WaitRaw = z.infer<typeof WaitSchema>;
export type ThreadEffectRaw = z.infer<typeof ThreadEffectSchema>;
export type ThreadRuleRaw = z.infer<typeof ThreadRuleSchema>;
export type CycleRuleRaw = z.infer<typeof CycleRuleSchema>;
export type LocalsRuleRaw = z.infer<typeof LocalsRuleSchema>;
export type LocalConditionRaw = z.infer<typeof LocalConditionSchema>;
