/**
 * `--source DIR`: reads the code the frames point at. Each frame's `file:line` is mapped into the
 * folders (paths.ts), each file a frame names is parsed once with tree-sitter (grammars.ts), and
 * the function around the line is read up to it (locks.ts): the locks taken on the way and still
 * held, and the locks the line asks for. A file whose lines do not fit the dump (an edited
 * checkout: a line that does not make the call the frame below it shows, or lies in another
 * function) is noted and not used at all.
 *
 * Safety: only regular files under the folders are read (no `..`, no symbolic link out of them),
 * only files frames name, each once, and none over the size cap (noted when it applies).
 */
import { readFileSync, realpathSync, statSync } from 'node:fs';
import { extname, resolve } from 'node:path';
import type { Node } from 'web-tree-sitter';
import { InputError } from '../errors.js';
import type { SourceAnswer, SourceLockVocabulary, SourceProbe, SourceReport } from '../model/source.js';
import { loadGrammars, type Grammars } from './grammars.js';
import { bareName, compileVocabulary, fileScopeNames, lineCallsCallee, scanLine, type CompiledVocabulary } from './locks.js';
import { createPathMapper, type SourceRoot } from './paths.js';

export { bareName, lineCallsCallee, scanLine, compileVocabulary, type CompiledVocabulary, type LineScan } from './locks.js';
export { createPathMapper, type PathMapper, type PathMatch, type SourceRoot } from './paths.js';
export { loadGrammars, type Grammars } from './grammars.js';

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
  /** Answers each probe; notes say what could not be used and why. */
  read(probes: readonly SourceProbe[]): SourceReport;
  /** How long the grammars took to load, in ms. */
  readonly grammarLoadMs: number;
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

export async function openSourceReader(options: SourceReaderOptions): Promise<SourceReader> {
  const roots = sourceRoots(options.dirs, options.cwd);
  const grammars = await loadGrammars();
  const vocabulary = compileVocabulary(options.vocabulary);
  const cap = options.maxFileBytes ?? DEFAULT_MAX_FILE_BYTES;
  return {
    grammarLoadMs: grammars.loadMs,
    read: (probes) => readProbes(probes, roots, grammars, vocabulary, cap),
  };
}

function readProbes(probes: readonly SourceProbe[], roots: SourceRoot[], grammars: Grammars, vocabulary: CompiledVocabulary, cap: number): SourceReport {
  const mapper = createPathMapper(roots);
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
  for (const note of mapper.notes()) notes.push(note);
  const order = new Map(probes.map((p, i) => [p.id, i]));
  answers.sort((a, b) => (order.get(a.id) ?? 0) - (order.get(b.id) ?? 0));
  return { answers, notes };
}

/** One file's probes, answered from one parse; all of them `mismatch` when any line does not fit. */
function readFile(text: string, shown: string, real: string, probes: SourceProbe[], grammars: Grammars, vocabulary: CompiledVocabulary, notes: string[]): SourceAnswer[] {
  const parsed = parse(text, real, grammars);
  try {
    const lines = text.split('\n');
    const fileScope = fileScopeNames(parsed.root);
    const answers: SourceAnswer[] = [];
    for (const probe of probes) {
      const scan = scanLine(parsed.root, probe.line, vocabulary, lines, fileScope);
      const code = (lines[probe.line - 1] ?? '').trim();
      const misfit = misfitOf(probe, scan, code, vocabulary);
      if (misfit !== null) {
        notes.push(`--source: ${shown} does not match the dump (an edited checkout?): ${misfit}. None of its lines are used.`);
        return probes.map((p) => ({ id: p.id, status: 'mismatch' as const, file: shown, holds: [], waits: [] }));
      }
      answers.push(scan === null ? { id: probe.id, status: 'unmapped', file: shown, holds: [], waits: [] } : { id: probe.id, status: 'read', file: shown, code: scan.code, holds: scan.holds, waits: scan.waits, ...(scan.released.length > 0 ? { released: scan.released } : {}) });
    }
    return answers;
  } finally {
    parsed.tree.delete();
  }
}

/** Why a frame's line cannot be the line the dump ran, or null when it fits (or nothing can be said). */
function misfitOf(probe: SourceProbe, scan: ReturnType<typeof scanLine>, code: string, vocabulary: CompiledVocabulary): string | null {
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

interface ParsedTree {
  tree: { delete(): void };
  root: Node;
}

/** C for `.c`; C++ for C++ extensions; a header in whichever parses it with fewer errors (C first). */
function parse(text: string, real: string, grammars: Grammars): ParsedTree {
  const ext = extname(real);
  const tryWith = (language: Grammars['c']): ParsedTree | null => {
    grammars.parser.setLanguage(language);
    const tree = grammars.parser.parse(text);
    return tree === null ? null : { tree, root: tree.rootNode };
  };
  let parsed: ParsedTree | null;
  if (ext === '.c') parsed = tryWith(grammars.c);
  else if (ext === '.h') {
    parsed = tryWith(grammars.c);
    if (parsed !== null && parsed.root.hasError) {
      const other = tryWith(grammars.cpp);
      if (other !== null && !other.root.hasError) {
        parsed.tree.delete();
        parsed = other;
      } else other?.tree.delete();
    }
  } else parsed = tryWith(grammars.cpp);
  if (parsed === null) throw new InputError(`--source: tree-sitter could not parse ${real}`);
  return parsed;
}

function megabytes(bytes: number): string {
  return `${(bytes / (1024 * 1024)).toFixed(1).replace(/\.0$/, '')} MB`;
}
