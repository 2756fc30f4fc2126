/**
 * Function-name normalisation applied before any rule pattern is tested (rules-domain §1.3), so
 * one pattern covers the spellings gdb prints for the same function across builds:
 * `sem_wait@@GLIBC_2.2.5`, `do_futex_wait.constprop.0`, `__GI___lll_lock_wait` (`_GI__pthread_mutex_lock` as
 * mail archives mangle it), `ijl_gc_collect`,
 * Rust's `…::h0123456789abcdef`.
 */

/** `@plt`, `@@GLIBC_2.3.2`, `@GLIBC_2.2.5`: symbol versions and PLT stubs. */
const VERSION_SUFFIX = /@{1,2}[A-Za-z0-9_.]+$/;
/**
 * GCC clone suffixes, possibly stacked: `.constprop.0`, `.isra.3`, `.part.7`, `.cold`, `.lto_priv.0`.
 * Stripped from the end by stripCloneSuffixes (an unanchored `(?:…)+$` regex is quadratic on a
 * name made of thousands of `.part`).
 */
const CLONE_NAMES = ['constprop', 'isra', 'part', 'cold', 'lto_priv', 'localalias'];

function stripCloneSuffixes(name: string): string {
  let end = name.length;
  for (;;) {
    let digits = end;
    while (digits > 0 && name.charCodeAt(digits - 1) >= 48 && name.charCodeAt(digits - 1) <= 57) digits--;
    // `(?:\.\d+)?` after the clone name.
    const nameEnd = digits < end && digits > 0 && name.charCodeAt(digits - 1) === 46 ? digits - 1 : end;
    const clone = CLONE_NAMES.find((c) => nameEnd > c.length && name.charCodeAt(nameEnd - c.length - 1) === 46 && name.endsWith(c, nameEnd));
    if (clone === undefined) break;
    end = nameEnd - clone.length - 1;
  }
  return end === name.length ? name : name.slice(0, end);
}
/** Rust legacy mangling hash. */
const RUST_HASH = /::h[0-9a-f]{16}$/;

/**
 * The name rules see. `??` (also for the frame filters' empty name and `???`) and pseudo frames are kept as printed. Julia's exported runtime entry
 * points carry an `ijl_` prefix in libjulia-internal (`ijl_gc_collect`); they are folded onto
 * their `jl_` name so one pattern covers 1.9–1.12 builds.
 */
export function normalizeFunctionName(name: string): string {
  let n = name.trim();
  // A function gdb could not name: `?? ()`, and under a Python frame filter (GLib's, loaded for
  // every GLib program) `in  ()` with GDB ≤ 13 and `in ??? ()` with GDB ≥ 14 (docs/gdb-format.md).
  // Rules see one spelling for all three.
  if (n === '' || n === '???') return '??';
  if (n === '??' || n.startsWith('<')) return n;
  n = n.replace(VERSION_SUFFIX, '');
  n = stripCloneSuffixes(n);
  n = n.replace(RUST_HASH, '');
  // Old gdb (7.x) prints some glibc-internal symbols with a leading `*`: `*__GI___poll` (corpus 026).
  if (n.startsWith('*')) n = n.slice(1);
  if (n.startsWith('__GI_')) n = n.slice('__GI_'.length);
  // A paste that lost underscores (mail archives and Markdown eat `__`): `_GI__pthread_mutex_lock`.
  else if (n.startsWith('_GI_')) n = n.slice('_GI_'.length);
  if (n.startsWith('ijl_')) n = n.slice(1);
  return n;
}

/** The name with leading underscores removed: `___pthread_mutex_lock` → `pthread_mutex_lock`. */
export function stripLeadingUnderscores(name: string): string {
  let i = 0;
  while (i < name.length && name.charCodeAt(i) === 95 /* _ */) i++;
  return i === 0 ? name : name.slice(i);
}
