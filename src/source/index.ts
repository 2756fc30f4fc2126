/**
 * `--source DIR`: reads the code the frames point at. Each frame's `file:line` is mapped into the
 * folders (paths.ts), each file a frame names is parsed once with tree-sitter (grammars.ts), and
 * the function around the line is read up to it (locks.ts): the locks taken on the way and still
 * held, and the locks the line asks for. A file whose lines do not fit the dump (an edited
 * checkout: a line that does not make the call the frame below it shows, or lies in another
 * function) is noted and not used at all.
 *
 * Safety: only regular files under the folders are read (no `..`, no symbolic link out of them),
 * only files frames name, each read once, and none over the size cap (noted when it applies).
 * A file is parsed around the frames' lines, in windows widened until each function lies whole
 * in one (see readFile), never once per frame.
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import type { Tree } from 'web-tree-sitter';
import { InputError } from '../errors.js';
import type { SourceAnswer, SourceLockVocabulary, SourceProbe, SourceReport } from '../model/source.js';
import { loadGrammars, type Grammars, type LanguageName } from './grammars.js';
import { bareName, compileVocabulary, lineCallsCallee, scanLine, type CompiledVocabulary, type LineScan } from './locks.js';
import { scanRustLine } from './rust-locks.js';
import { createPathMapper, fileNameOf, type PathMapper, type SourceRoot } from './paths.js';

export { bareName, lineCallsCallee, scanLine, compileVocabulary, type CompiledVocabulary, type LineScan } from './locks.js';
export { createPathMapper, type PathMapper, type PathMatch, type SourceRoot } from './paths.js';
export { loadGrammars, type Grammars, type LanguageName } from './grammars.js';

/** Files larger than this are not parsed (generated tables, amalgamations): stated in the note when it applies. */
export const DEFAULT_MAX_FILE_BYTES = 4 * 1024 * 1024;

export interface SourceReaderOptions {
  /** The `--source` folders, as given. */
  dirs: readonly string[];
  cwd: string;
  vocabulary: SourceLockVocabulary;
  maxFileBytes?: number;
}

export interface SourceReader {
  /**
   * Loads what reading these frame paths needs (the grammars of their files' languages); all
   * grammars when no paths are given. `read` needs it done.
   */
  prepare(paths?: readonly string[]): Promise<void>;
  /** Answers each probe; notes say what could not be used and why. */
  read(probes: readonly SourceProbe[]): SourceReport;
  /** How long the runtime and the grammars loaded so far took, in ms. */
  grammarLoadMs(): number;
}

/** The folders, checked: each must exist and be a folder (else one line, exit 2). */
export function sourceRoots(dirs: readonly string[], cwd: string): SourceRoot[] {
  return dirs.map((given) => {
    const path = resolve(cwd, given);
    let real: string;
    try {
      real = realpathSync(path);
    } catch {
      throw new InputError(`--source ${given}: no such folder`);
    }
    if (!statSync(real).isDirectory()) throw new InputError(`--source ${given}: not a folder`);
    return { given, real };
  });
}

/** The grammar a file is parsed with: C for `.c` and `.h` (a header that C cannot parse is tried as C++ when that is loaded), Rust for `.rs`, C++ otherwise. */
function languageOf(real: string): LanguageName {
  const ext = extname(real);
  return ext === '.c' || ext === '.h' ? 'c' : ext === '.rs' ? 'rust' : 'cpp';
}

export async function openSourceReader(options: SourceReaderOptions): Promise<SourceReader> {
  const roots = sourceRoots(options.dirs, options.cwd);
  // Started now: WebAssembly compiles off the main thread while the caller reads the dump.
  const grammars = loadGrammars();
  void grammars.then((g) => g.language('c')).catch(() => undefined);
  const vocabulary = compileVocabulary(options.vocabulary);
  const cap = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  // The mapper prepare() filled serves the read that follows it; a later read maps afresh (the
  // folders may have changed between two analyses).
  let mapper: PathMapper | null = null;
  let ready: Grammars | null = null;
  return {
    async prepare(paths) {
      // Mapped (the folder walk included) while WebAssembly compiles the grammars off the main thread.
      const names = paths === undefined ? undefined : new Set(paths.map(fileNameOf).filter((n): n is string => n !== undefined));
      const fresh = createPathMapper(roots, names);
      mapper = fresh;
      const wanted = new Set<LanguageName>(['c']);
      if (paths === undefined) {
        wanted.add('cpp');
        wanted.add('rust');
      } else {
        for (const path of paths) {
          const match = fresh.map(path);
          if (match.kind === 'file') wanted.add(languageOf(match.real));
        }
      }
      const g = await grammars;
      await Promise.all([...wanted].map((name) => g.language(name)));
      ready = g;
    },
    read(probes) {
      if (ready === null) throw new Error('source reader: read() before prepare()');
      const used = mapper ?? createPathMapper(roots);
      mapper = null;
      return readProbes(probes, used, ready, vocabulary, cap);
    },
    grammarLoadMs: () => ready?.loadMs() ?? 0,
  };
}

function readProbes(probes: readonly SourceProbe[], mapper: PathMapper, grammars: Grammars, vocabulary: CompiledVocabulary, cap: number): SourceReport {
  const answers: SourceAnswer[] = [];
  const notes: string[] = [];
  const byFile = new Map<string, { shown: string; probes: SourceProbe[] }>();
  const ambiguous = new Map<string, string[]>();
  for (const probe of probes) {
    const match = mapper.map(probe.path);
    if (match.kind === 'file') {
      const entry = byFile.get(match.real);
      if (entry) entry.probes.push(probe);
      else byFile.set(match.real, { shown: match.shown, probes: [probe] });
    } else {
      if (match.kind === 'ambiguous' && !ambiguous.has(probe.path)) ambiguous.set(probe.path, match.candidates);
      answers.push({ id: probe.id, status: match.kind === 'ambiguous' ? 'ambiguous' : 'unmapped', holds: [], waits: [] });
    }
  }
  for (const [path, candidates] of ambiguous) {
    notes.push(`--source: ${path} matches ${candidates.length} files equally well (${candidates.join(', ')}); neither is used.`);
  }
  for (const [real, { shown, probes: mine }] of byFile) {
    const size = statSync(real).size;
    if (size > cap) {
      notes.push(`--source: ${shown} is ${megabytes(size)}, over the ${megabytes(cap)} size cap for a source file; it was not read.`);
      for (const p of mine) answers.push({ id: p.id, status: 'skipped', file: shown, holds: [], waits: [] });
      continue;
    }
    let text: string;
    try {
      text = readFileSync(real, 'utf8');
    } catch {
      notes.push(`--source: ${shown} cannot be read; it was not used.`);
      for (const p of mine) answers.push({ id: p.id, status: 'skipped', file: shown, holds: [], waits: [] });
      continue;
    }
    answers.push(...readFile(text, shown, real, mine, grammars, vocabulary, notes));
  }
  for (const note of mapper.notes()) if (!notes.includes(note)) notes.push(note);
  const order = new Map(probes.map((p, i) => [p.id, i]));
  answers.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  return { answers, notes };
}

/** A parse of some of a file's lines: rows `start` up to (not including) `end`. */
interface Window {
  start: number;
  end: number;
  lines: string[];
  tree: Tree;
}

/** Lines before and after a frame's line parsed at first; doubled until its function is whole in the window. */
const WINDOW_BEFORE = 100;
const WINDOW_AFTER = 30;

/**
 * One file's probes, answered from parses of the text around their lines (not the whole file: a
 * 4,000-line file costs a WebAssembly parse of 100 kB per frame otherwise): a window is widened
 * until the function around the line lies whole inside it, parsed without error, or the window is
 * the file. Each window is parsed once and serves every frame whose function it holds. All of
 * the file's probes are `mismatch` when any line does not fit the dump.
 */
function readFile(text: string, shown: string, real: string, probes: SourceProbe[], grammars: Grammars, vocabulary: CompiledVocabulary, notes: string[]): SourceAnswer[] {
  const lines = text.split('\n');
  const windows: Window[] = [];
  const languageName = languageOf(real);
  const language = grammars.loaded(languageName);
  const cpp = grammars.loaded('cpp');
  const scanner = languageName === 'rust' ? scanRustLine : scanLine;
  const parseRows = (start: number, end: number): Window => {
    const part = lines.slice(start, end);
    const source = part.join('\n');
    grammars.parser.setLanguage(language);
    let tree = grammars.parser.parse(source);
    // A header C cannot parse may be C++.
    if (tree !== null && tree.rootNode.hasError && extname(real) === '.h' && cpp !== null) {
      grammars.parser.setLanguage(cpp);
      const other = grammars.parser.parse(source);
      if (other !== null && !other.rootNode.hasError) {
        tree.delete();
        tree = other;
      } else other?.delete();
    }
    if (tree === null) throw new InputError(`--source: tree-sitter could not parse ${shown}`);
    const w = { start, end, lines: part, tree };
    windows.push(w);
    return w;
  };
  /** The scan of `line` from a window whose parse holds its whole function, or the widest tried. */
  const scanAt = (line: number): ReturnType<typeof scanLine> => {
    const row = line - 1;
    for (const w of windows) {
      if (row < w.start || row >= w.end) continue;
      const scan = scanner(w.tree.rootNode, line - w.start, vocabulary, w.lines);
      if (scan !== null && whole(scan, w, lines.length)) return shift(scan, w.start);
    }
    let before = WINDOW_BEFORE;
    let after = WINDOW_AFTER;
    for (;;) {
      const start = Math.max(0, row - before);
      const end = Math.min(lines.length, row + after + 1);
      const w = parseRows(start, end);
      const scan = scanner(w.tree.rootNode, line - start, vocabulary, w.lines);
      if ((scan !== null && whole(scan, w, lines.length)) || (start === 0 && end === lines.length)) return scan === null ? null : shift(scan, start);
      before *= 4;
      after *= 4;
    }
  };
  try {
    if (language === null) {
      notes.push(`--source: ${shown} was not read (its grammar was not loaded).`);
      return probes.map((p) => ({ id: p.id, status: 'skipped' as const, file: shown, holds: [], waits: [] }));
    }
    const answers: SourceAnswer[] = [];
    for (const probe of probes) {
      const scan = probe.line >= 1 && probe.line <= lines.length ? scanAt(probe.line) : null;
      const code = (lines[probe.line - 1] ?? '').trim();
      const misfit = misfitOf(probe, scan, code, vocabulary);
      if (misfit !== null) {
        notes.push(`--source: ${shown} does not match the dump (an edited checkout?): ${misfit}. None of its lines are used.`);
        return probes.map((p) => ({ id: p.id, status: 'mismatch' as const, file: shown, holds: [], waits: [] }));
      }
      answers.push(
        scan === null
          ? { id: probe.id, status: 'unmapped', file: shown, holds: [], waits: [] }
          : { id: probe.id, status: 'read', file: shown, code: scan.code, holds: scan.holds, waits: scan.waits, ...(scan.released.length > 0 ? { released: scan.released } : {}) },
      );
    }
    return answers;
  } finally {
    for (const w of windows) w.tree.delete();
  }
}

/** Whether the window holds the scanned function whole (not cut at either end) and parsed it cleanly. */
function whole(scan: LineScan, w: Window, total: number): boolean {
  const [first, last] = scan.functionRows;
  const cutAtStart = first === 0 && w.start > 0;
  const cutAtEnd = last >= w.end - w.start - 1 && w.end < total;
  return scan.clean && !cutAtStart && !cutAtEnd;
}

/** A window's scan with its lines counted from the file's start. */
function shift(scan: LineScan, by: number): LineScan {
  if (by === 0) return scan;
  return { ...scan, holds: scan.holds.map((h) => ({ ...h, line: h.line + by })), functionRows: [scan.functionRows[0] + by, scan.functionRows[1] + by] };
}

/** Why a frame's line cannot be the line the dump ran, or null when it fits (or nothing can be said). */
function misfitOf(probe: SourceProbe, scan: LineScan | null, code: string, vocabulary: CompiledVocabulary): string | null {
  const where = `line ${probe.line} of ${probe.function}`;
  if (scan === null) {
    if (code === '' || /^(\/\/|\/\*|\*|#|\}|\{)/.test(code) || probe.callee !== null) return `${where} is ${code === '' ? 'empty or past the end' : `\`${code}\``}, outside any function's code`;
    return null;
  }
  const named = bareName(probe.function);
  if (scan.functionName !== null && named !== '' && probe.function !== '??' && !/[{}]|lambda/.test(probe.function) && bareName(scan.functionName) !== named) {
    return `${where} is in ${scan.functionName}`;
  }
  if (probe.callee !== null && lineCallsCallee(scan.calls, probe.callee, vocabulary) === false) {
    return `${where} reads \`${code}\`, which does not call ${bareName(probe.callee)} (the frame below it)`;
  }
  return null;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}
