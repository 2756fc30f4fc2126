/**
 * Owner shapes: the kinds of lock whose holder memory records, named by rules
 * (`owner: pthread-mutex`) instead of gdb text. Only the names live here, so rules can check
 * them; src/live/owner-queries.ts holds the one table of what gdb is asked for each, filled only
 * with validated addresses (a rule file never puts text into a gdb command).
 */
export const OWNER_SHAPES = [
  /** glibc `pthread_mutex_t` (and what starts with one: `std::mutex`, QemuMutex): `__data.__owner`, an LWP. */
  'pthread-mutex',
  /** glibc `pthread_rwlock_t` (`std::shared_mutex`): the writer's LWP in `__data.__cur_writer`. */
  'pthread-rwlock',
  /** The CPython GIL: the last holder's `thread_id` (a pthread_t) while it is locked. */
  'gil',
  /** Julia's `jl_mutex_t`: the owner task's thread (`ptls->system_id`, a pthread_t). */
  'jl-mutex',
  /** GLib's `GRecMutex` on POSIX: `p` points to a recursive pthread mutex, whose `__owner` is an LWP. */
  'grec-mutex',
  /** CPython's `threading.RLock` (`rlockobject`): `rlock_owner`, the owner's pthread_t (0 when free). */
  'py-rlock',
  /**
   * One of the dynamic loader's recursive locks (glibc `_rtld_global._dl_load_lock`,
   * `_dl_load_write_lock`, `_dl_load_tls_lock`, each a pthread mutex): `__owner`, an LWP.
   */
  'rtld-lock',
] as const;

export type OwnerShape = (typeof OWNER_SHAPES)[number];
