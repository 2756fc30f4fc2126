/**
 * Which frames belong to a known runtime, for `--redact all`: their function, file and library
 * names are public (glibc's `pthread_mutex_lock`, libstdc++'s `std::future<…>::get`, Julia's
 * `jl_safepoint_wait_gc`) and the rules need them, so they are kept; every other frame is the
 * user's own code, whose names are replaced.
 *
 * A frame is a runtime's when one of two sources knows it:
 * - the rule set in use: any name a frame condition of any rule, wait primitive or lock wrapper
 *   could match (its function, library or file test alone), so a redacted dump still matches
 *   every rule the original matched — user packs (`--rules`) included;
 * - the libraries of the runtimes the packs cover (RUNTIMES below): the frames a rule never names
 *   but every stack of that runtime shows (`start_thread`, `clone3`, `jl_apply`, `PyEval_*`).
 */
import type { Frame } from '../../model/dump.js';
// From the modules themselves, not rules/index.js: that re-exports the YAML loader, whose zod
// schemas would then be built on every start (~8 ms of the founding report).
import { normalizeFunctionName } from '../../rules/function-names.js';
import { compilePattern } from '../../rules/pattern.js';
import type { FrameCondition, LoadedRules } from '../../rules/types.js';

interface Runtime {
  /** The pack (or runtime) the names come from. */
  runtime: string;
  /** Globs on the normalised function name (leading underscores ignored). */
  functions?: string[];
  /** Globs on the `from LIB` shared object (or LLDB's module). */
  libraries?: string[];
  /** Globs on the `at FILE` path. */
  files?: string[];
}

/** Directories of glibc's source tree, as its debug info names them (`./nptl/pthread_mutex_lock.c`). */
const GLIBC_DIRS = ['nptl', 'sysdeps', 'misc', 'io', 'posix', 'signal', 'stdlib', 'string', 'libio', 'malloc', 'elf', 'dlfcn', 'csu', 'assert', 'time', 'socket', 'resolv', 'inet', 'stdio-common', 'setjmp', 'debug', 'rt', 'login', 'htl'];

const RUNTIMES: readonly Runtime[] = [
  {
    runtime: 'glibc',
    functions: ['pthread_*', 'start_thread', 'clone', 'clone3', 'clone_internal', 'libc_*', 'GI_*', 'lll_*', 'futex_*', 'syscall', 'syscall_cancel*', 'internal_syscall_cancel', 'raise', 'abort', 'assert_fail*', 'libc_start_main*', 'libc_start_call_main', 'start', 'main', 'dl_*', 'new_sem_*', 'sem_*', 'nanosleep', 'clock_nanosleep*', 'poll', 'ppoll', 'epoll_*', 'select', 'read', 'write', 'accept', 'accept4', 'wait4', 'waitpid', 'sigwait*', 'sleep', 'usleep', 'kill', 'tgkill', 'malloc*', 'free', 'calloc', 'realloc', 'int_malloc', 'int_free', 'fork', 'libc_fork', 'run_exit_handlers', 'exit', 'GI_exit'],
    libraries: ['*libc.so*', '*libc-2.*', '*libpthread*', '*ld-linux*', '*ld64.so*', '*libm.so*', '*libdl.so*', '*librt.so*', '*libgcc_s*', '*linux-vdso*', '*libresolv*'],
    // Older gdb and distributions print glibc's sources by base name (`at lowlevellock.c:52`).
    files: [...GLIBC_DIRS.flatMap((d) => [`./${d}/*`, `../${d}/*`]), '*/glibc-*', '*/glibc/*', '/usr/src/debug/glibc*', 'pthread_*.c', 'lowlevellock*.c', 'futex-internal.*', 'sem_wait*.c', 'sem_timedwait.c', 'pthread_*.h', 'libc-start.c', 'libc_start_call_main.h', 'clone*.S', 'syscall*.S', 'syscall_cancel.S', 'cancellation.S', 'clock_nanosleep.c', 'nanosleep.c', 'poll.c', 'ppoll.c', 'select.c', 'epoll_wait.c', 'read.c', 'write.c', 'recv.c', 'recvmsg.c', 'accept.c', 'accept4.c', 'wait4.c', 'waitpid.c', 'raise.c', 'abort.c', 'malloc.c', 'arena.c', 'dl-*.c', 'sleep.c', 'usleep.c', 'sigwait.c', 'sigtimedwait.c', 'exit.c', 'fork.c', 'assert.c', 'elision-lock.c', 'old_pthread_cond_wait.c'],
  },
  {
    runtime: 'libstdcxx',
    functions: ['std::*', 'gnu_cxx::*', 'cxxabiv1::*', 'cxa_*', 'gthread_*', 'gxx_*', 'Unwind_*', 'execute_native_thread_routine*', 'std::__1::*'],
    libraries: ['*libstdc++*', '*libc++*', '*libsupc++*', '*libgcc*'],
    files: ['/usr/include/c++/*', '*/include/c++/*', '*/libstdc++-v3/*', '/usr/src/debug/gcc*', '*/libcxx/*'],
  },
  {
    runtime: 'julia',
    functions: ['jl_*', 'ijl_*', 'jlplt_*', 'jfptr_*', 'julia.*', 'ctx_switch', 'start_task', 'uv_*', 'uv__*', 'signal_listener', 'try_yieldto', 'task_done_hook', 'wait', 'macro expansion', 'unknown function*'],
    libraries: ['*libjulia*', '*/julia/sys.so*', '*/julia/*.so*', '*libuv*', '*libopenlibm*'],
    files: ['./*.jl', '*/share/julia/base/*', '*/share/julia/stdlib/*', '*/julia/src/*', '*/julia-release-*', '*/julialang/*', '*/libuv/*'],
  },
  {
    runtime: 'llvm',
    functions: ['llvm::*', '(anonymous namespace)::*'],
    libraries: ['*libLLVM*'],
    files: ['*/llvm/*', '*/llvm-project/*'],
  },
  {
    runtime: 'cpython',
    functions: ['Py*', '_Py*', 'PyEval_*', 'take_gil', 'drop_gil', 'pymain_*', 'pythread_wrapper', 't_bootstrap', 'thread_run', 'method_vectorcall*', 'cfunction_*', 'slot_tp_*', 'lock_PyThread_*', 'rlock_*', 'acquire_timed', 'builtin_*', 'time_sleep', 'pysleep', 'gil_*', 'function_code_fastcall', 'object_vacall'],
    libraries: ['*libpython*', '*/bin/python*', '*/python3*/lib-dynload/*'],
    files: ['*/Python/*.c', '*/Objects/*.c', '*/Modules/*.c', '*/Include/*', '*/Python-3*', '*/cpython/*'],
  },
  {
    runtime: 'glib',
    functions: ['g_*', 'glib_*', 'gio_*', 'gobject_*', 'g_main_*'],
    libraries: ['*libglib-2.0*', '*libgio-2.0*', '*libgobject-2.0*', '*libgthread-2.0*', '*libgmodule-2.0*'],
    files: ['*/glib/*', '*/gio/*', '*/gobject/*', '../glib/*'],
  },
  {
    runtime: 'qt',
    functions: ['Q*::*', 'QThread*', 'QMutex*', 'QWaitCondition*', 'QEventLoop*', 'QCoreApplication*', 'qt_*', 'QtPrivate::*'],
    libraries: ['*libQt*', '*/Qt*.framework/*'],
    files: ['*/qtbase/*', '*/qt5/*', '*/qt6/*'],
  },
  {
    runtime: 'rust',
    functions: ['core::*', 'alloc::*', '<core::*', '<alloc::*', '<std::*', 'rust_*', 'rust_begin_unwind', 'tokio::*', '<tokio::*', 'parking_lot*', '<parking_lot*', 'parking_lot_core::*', 'crossbeam*', '<crossbeam*', 'rayon_core::*', '<rayon_core::*', 'futures*', 'std_detect::*'],
    files: ['/rustc/*', '*/.cargo/registry/*', '*/rustlib/*'],
  },
  {
    runtime: 'openmp',
    functions: ['gomp_*', 'GOMP_*', 'kmp_*', 'kmpc_*', 'omp_*', 'kmp_flag*'],
    libraries: ['*libgomp*', '*libomp*', '*libiomp*'],
  },
  {
    runtime: 'mpi',
    functions: ['MPI_*', 'PMPI_*', 'ompi_*', 'opal_*', 'mca_*', 'ucp_*', 'ucs_*', 'uct_*', 'MPID*', 'MPIR_*', 'MPIDI_*', 'PMIx_*', 'pmix_*', 'fi_*'],
    libraries: ['*libmpi*', '*libopen-pal*', '*libopen-rte*', '*libucp*', '*libucs*', '*libuct*', '*libfabric*', '*libpmix*', '*libmpich*'],
  },
  {
    runtime: 'macos',
    functions: ['dispatch_*', 'psynch_*', 'ulock_*', 'os_unfair_lock*', 'os_*', 'CF*', 'mach_msg*', 'semaphore_*', 'objc_*', '-[NS*', '+[NS*', 'NS*', 'workq_*', 'thread_start', 'start_wqthread', 'pthread_*'],
    libraries: ['*libsystem_*', '*libdispatch*', '*CoreFoundation*', '*Foundation*', '*libobjc*', '*dyld*', '*libc++*'],
  },
];

/** One test over a frame's names. */
interface NamesTest {
  (name: string, library: string | null, file: string | null): boolean;
  /** The library and file lists alone. */
  where(path: string): boolean;
}

function runtimeTable(): NamesTest {
  const fn = compilePattern({ glob: RUNTIMES.flatMap((r) => r.functions ?? []), underscores: 'ignore' });
  // Libraries and files are one list: Julia's dumps put a shared object where gdb puts a file
  // (`jfptr_… at …/lib/julia/sys.so (unknown line)`).
  const where = compilePattern({ glob: RUNTIMES.flatMap((r) => [...(r.libraries ?? []), ...(r.files ?? [])]) });
  return Object.assign((name: string, library: string | null, path: string | null) => fn(name) || (library !== null && where(library)) || (path !== null && where(path)), { where });
}

/** Every frame condition of the rule set: rules' frames, `none` and `processHas`, primitives, lock wrappers. */
function ruleConditions(rules: LoadedRules): FrameCondition[] {
  const out: FrameCondition[] = [...rules.primitives, ...rules.lockWrappers, ...rules.processConditions];
  for (const rule of rules.threadRules) for (const shape of [rule.base, ...rule.anyOf]) out.push(...shape.frames, ...shape.none);
  return out;
}

export interface RuntimeVocabulary {
  /** True when the frame's names are a known runtime's (or the frame has no name to hide). */
  frameIsRuntime(frame: Frame): boolean;
  /** True when a function name alone is a runtime's (a function pointer's `<std::terminate()>`). */
  nameIsRuntime(name: string): boolean;
  /** True when a file or library path is a runtime's (`./nptl/pthread_mutex_lock.c`, `/lib/…/libc.so.6`) or a rule tests it. */
  pathIsRuntime(path: string): boolean;
}

export function runtimeVocabulary(rules: LoadedRules): RuntimeVocabulary {
  const table = runtimeTable();
  const conditions = ruleConditions(rules);
  const byRules = (name: string, library: string | null, file: string | null): boolean =>
    conditions.some((c) => (c.fn !== undefined && c.fn(name)) || (c.library !== undefined && library !== null && c.library(library)) || (c.file !== undefined && file !== null && c.file(file)));
  const memo = new Map<string, boolean>();
  return {
    frameIsRuntime(frame) {
      if (frame.kind !== 'normal' || frame.function === '??' || frame.function === '') return true;
      const key = `${frame.function}\u0000${frame.library ?? ''}\u0000${frame.file ?? ''}`;
      let known = memo.get(key);
      if (known === undefined) {
        const name = normalizeFunctionName(frame.function);
        known = table(name, frame.library, frame.file) || byRules(name, frame.library, frame.file);
        memo.set(key, known);
      }
      return known;
    },
    nameIsRuntime(name) {
      const n = normalizeFunctionName(name);
      return table(n, null, null) || byRules(n, null, null);
    },
    pathIsRuntime(path) {
      return table.where(path) || conditions.some((c) => (c.file !== undefined && c.file(path)) || (c.library !== undefined && c.library(path)));
    },
  };
}
