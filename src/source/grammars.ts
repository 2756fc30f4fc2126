/**
 * The C, C++ and Rust parsers: web-tree-sitter (tree-sitter compiled to WebAssembly) with the
 * grammars' own wasm builds from npm (tree-sitter-c, tree-sitter-cpp, tree-sitter-rust). No native
 * addon is loaded. Imported only when `--source` is given, and each grammar only when a file needs
 * it (the runtime is ~200 kB of wasm, the C grammar 0.6 MB, the C++ one 3.4 MB, Rust's 1.1 MB).
 * WebAssembly compiles off the main thread, so loading starts at once and runs while the dump is read.
 */
import { readFile } from 'node:fs';
import { createRequire } from 'node:module';
import { setFlagsFromString } from 'node:v8';
import { dirname, join } from 'node:path';
import type { Language, Parser } from 'web-tree-sitter';

export type LanguageName = 'c' | 'cpp' | 'rust';

export interface Grammars {
  /** A parser to set a language on. */
  parser: Parser;
  /** The language, loaded on first ask. */
  language(name: LanguageName): Promise<Language>;
  /** A language already loaded, or null. */
  loaded(name: LanguageName): Language | null;
  /** How long the runtime and each loaded grammar took, in ms (the bench prints it). */
  loadMs(): number;
}

/** Where a grammar package keeps its wasm build (`tree-sitter-c/tree-sitter-c.wasm`). */
function wasmOf(pkg: string): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve(`${pkg}/package.json`)), `${pkg}.wasm`);
}

const PACKAGES: Record<LanguageName, string> = { c: 'tree-sitter-c', cpp: 'tree-sitter-cpp', rust: 'tree-sitter-rust' };

/**
 * A grammar's wasm bytes, read here: given a path, web-tree-sitter reads it through
 * `await import('fs/promises')`, whose dynamic import starts Node's ES module loader (with
 * fs/promises and readline, ~4 ms of a `--source` start; bench figure 7). The callback API keeps
 * the read off the main thread, as before.
 */
function wasmBytes(path: string): Promise<Uint8Array> {
  return new Promise((resolve, reject) => readFile(path, (error, bytes) => (error ? reject(error) : resolve(bytes))));
}

export async function loadGrammars(): Promise<Grammars> {
  // One run parses a few windows of code: V8's optimising tier would recompile the parser's hot
  // WebAssembly in the background for a gain the run never sees, and the recompiling made the
  // first parses ~3× slower (measured: 8 windows of a 3,700-line file, 380 → 110 ms). The baseline
  // compiler alone it is, for this process (only `--source` runs load WebAssembly this early).
  setFlagsFromString('--liftoff-only');
  // Timed with Date.now, not the global `performance`: its first use loads the perf_hooks
  // modules (~1 ms), which nothing else in a run needs.
  let spent = 0;
  const started = Date.now();
  const { Parser: ParserClass, Language: LanguageClass } = await import('web-tree-sitter');
  await ParserClass.init();
  spent += Date.now() - started;
  const parser = new ParserClass();
  const pending = new Map<LanguageName, Promise<Language>>();
  const done = new Map<LanguageName, Language>();
  return {
    parser,
    language(name) {
      let p = pending.get(name);
      if (p === undefined) {
        const t = Date.now();
        p = wasmBytes(wasmOf(PACKAGES[name]))
          .then((bytes) => LanguageClass.load(bytes))
          .then((language) => {
            spent += Date.now() - t;
            done.set(name, language);
            return language;
          });
        pending.set(name, p);
      }
      return p;
    },
    loaded: (name) => done.get(name) ?? null,
    loadMs: () => spent,
  };
}
