/**
 * Maps the paths gdb prints (`abba.c`, `/cache/build/x86_64/src/gc.c`) to files under the
 * `--source` folders: the exact relative path first, then the file whose path shares the longest
 * run of trailing components with it (`DIR/src/gc.c`). Two files sharing the longest run equally
 * are ambiguous: neither is used. Only regular files under a folder are ever named: no `..` out
 * of it, and no symbolic link whose target lies outside it.
 */
import { readdirSync, realpathSync, statSync, type Dirent } from 'node:fs';
import { isAbsolute, join, normalize, relative, sep } from 'node:path';

/** File names the suffix index keeps: C and C++ sources and headers, and Rust sources. */
const SOURCE_FILE = /\.(?:c|h|cc|cp|cpp|cxx|c\+\+|hh|hpp|hxx|h\+\+|inc|inl|ipp|tcc|C|H|rs)$/;
/** Folders never indexed: version control and package caches hold no code a frame runs. */
const SKIPPED_DIRS = new Set(['.git', '.hg', '.svn', 'node_modules']);
/** Entries walked at most per folder tree: a stray `--source /` stays bounded (noted when reached). */
export const INDEX_LIMIT = 200_000;

export interface SourceRoot {
  /** As given (for messages). */
  given: string;
  /** Its real path (symbolic links resolved), which every file must lie under. */
  real: string;
}

export type PathMatch =
  | { kind: 'file'; root: SourceRoot; real: string; shown: string }
  | { kind: 'ambiguous'; candidates: string[] }
  | { kind: 'none' };

export interface PathMapper {
  map(path: string): PathMatch;
  /** Notes about the index (the entry limit, when reached). */
  notes(): string[];
}

interface Indexed {
  root: SourceRoot;
  /** Path relative to the root, split into components. */
  parts: string[];
}

/**
 * A mapper for these folders. With `names` (the file names the frames will ask for), the folder
 * walk records only files of those names: a 5,000-file checkout costs its folder listings and
 * little else. A path whose name was not announced makes the walk record every source file
 * (once, on that first ask).
 */
export function createPathMapper(roots: readonly SourceRoot[], names?: ReadonlySet<string>): PathMapper {
  const memo = new Map<string, PathMatch>();
  let byName: Map<string, Indexed[]> | null = null;
  let indexedAll = names === undefined;
  let notes: string[] = [];
  const index = (name: string): Map<string, Indexed[]> => {
    if (byName !== null && (indexedAll || (names as ReadonlySet<string>).has(name))) return byName;
    if (byName !== null) indexedAll = true;
    byName = new Map();
    notes = [];
    for (const root of roots) walk(root, indexedAll ? null : (names as ReadonlySet<string>), byName, notes);
    return byName;
  };
  return {
    map(path) {
      let found = memo.get(path);
      if (found === undefined) {
        found = exact(roots, path) ?? bySuffix(index, path);
        memo.set(path, found);
      }
      return found;
    },
    notes: () => notes,
  };
}

/** The last component of a frame's path: the name the walk indexes files by. */
export function fileNameOf(path: string): string | undefined {
  const parts = splitPath(path);
  return parts[parts.length - 1];
}

function splitPath(path: string): string[] {
  return path.split(/[\\/]+/).filter((p) => p !== '' && p !== '.');
}

/** `abba.c`, `src/gc.c` relative to a root, or an absolute path inside one. */
function exact(roots: readonly SourceRoot[], path: string): PathMatch | null {
  for (const root of roots) {
    const candidate = isAbsolute(path) ? normalize(path) : join(root.real, normalize(path));
    const rel = relative(root.real, candidate);
    if (rel === '' || rel.startsWith('..') || isAbsolute(rel)) continue;
    const real = inside(root, candidate);
    if (real !== null) return { kind: 'file', root, real, shown: rel.split(sep).join('/') };
  }
  return null;
}

function bySuffix(index: (name: string) => Map<string, Indexed[]>, path: string): PathMatch {
  const parts = splitPath(path);
  const name = parts[parts.length - 1];
  // Only source files are indexed: any other name has no candidates (and starts no walk).
  const candidates = name === undefined || !SOURCE_FILE.test(name) ? undefined : index(name).get(name);
  if (candidates === undefined || candidates.length === 0) return { kind: 'none' };
  let best = 0;
  let winners: Indexed[] = [];
  for (const c of candidates) {
    let n = 0;
    while (n < c.parts.length && n < parts.length && c.parts[c.parts.length - 1 - n] === parts[parts.length - 1 - n]) n++;
    if (n > best) {
      best = n;
      winners = [c];
    } else if (n === best) winners.push(c);
  }
  if (winners.length > 1) return { kind: 'ambiguous', candidates: winners.map((w) => w.parts.join('/')).sort() };
  const w = winners[0] as Indexed;
  const real = inside(w.root, join(w.root.real, ...w.parts));
  return real === null ? { kind: 'none' } : { kind: 'file', root: w.root, real, shown: w.parts.join('/') };
}

/** The real path of a regular file under the root, or null (missing, a folder, or a link out of it). */
function inside(root: SourceRoot, path: string): string | null {
  let real: string;
  try {
    real = realpathSync(path);
    if (!statSync(real).isFile()) return null;
  } catch {
    return null;
  }
  const rel = relative(root.real, real);
  return rel === '' || rel.startsWith('..') || isAbsolute(rel) ? null : real;
}

/** Records the source files under the root (only those named `names`, when given) by file name. */
function walk(root: SourceRoot, names: ReadonlySet<string> | null, byName: Map<string, Indexed[]>, notes: string[]): void {
  let seen = 0;
  // Each folder with its path: a listing's entry is one name (no separator, no `..`), so appending
  // it to its folder's real path is what path.join would give, without join's normalising of the
  // whole path again for each of a checkout's ~500 folders (~1.5 ms of a `--source` run, figure 7).
  const stack: Array<{ parts: string[]; path: string }> = [{ parts: [], path: root.real }];
  while (stack.length > 0) {
    const { parts, path } = stack.pop() as { parts: string[]; path: string };
    let entries: Dirent[];
    try {
      // The entries' types come with the listing: no stat per file (5,000 files: one call a folder).
      entries = readdirSync(path, { withFileTypes: true });
    } catch {
      continue;
    }
    // Listed in name order, so which entries an index cut at the limit holds does not depend on the file system.
    entries.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
    for (const dirent of entries) {
      if (++seen > INDEX_LIMIT) {
        notes.push(`--source ${root.given}: only the first ${INDEX_LIMIT.toLocaleString('en-US')} entries were searched for the files frames name.`);
        return;
      }
      const entry = dirent.name;
      // Folders through symbolic links are not followed (they may lead out of the root, or loop).
      if (dirent.isDirectory()) {
        if (!SKIPPED_DIRS.has(entry)) stack.push({ parts: [...parts, entry], path: path.endsWith(sep) ? path + entry : path + sep + entry });
      } else if ((names === null ? SOURCE_FILE.test(entry) : names.has(entry) && SOURCE_FILE.test(entry)) && (dirent.isFile() || dirent.isSymbolicLink())) {
        const found = { root, parts: [...parts, entry] };
        const list = byName.get(entry);
        if (list) list.push(found);
        else byName.set(entry, [found]);
      }
    }
  }
}
