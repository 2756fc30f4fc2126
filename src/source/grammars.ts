/**
 * The C and C++ parsers: web-tree-sitter (tree-sitter compiled to WebAssembly) with the grammars'
 * own wasm builds from npm (tree-sitter-c, tree-sitter-cpp). No native addon is loaded. Imported
 * and loaded only when `--source` is given (the runtime alone is ~200 kB of wasm; the C++ grammar
 * 3.4 MB): a run without it never pays for them.
 */
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import type { Language, Parser } from 'web-tree-sitter';

export interface Grammars {
  c: Language;
  cpp: Language;
  /** A parser to set one of the languages on. */
  parser: Parser;
  /** How long loading the runtime and both grammars took, in ms (the bench prints it). */
  loadMs: number;
}

/** Where a grammar package keeps its wasm build (`tree-sitter-c/tree-sitter-c.wasm`). */
function wasmOf(pkg: string): string {
  const require = createRequire(import.meta.url);
  return join(dirname(require.resolve(`${pkg}/package.json`)), `${pkg}.wasm`);
}

export async function loadGrammars(): Promise<Grammars> {
  const started = performance.now();
  const { Parser: ParserClass, Language: LanguageClass } = await import('web-tree-sitter');
  await ParserClass.init();
  const [c, cpp] = await Promise.all([LanguageClass.load(wasmOf('tree-sitter-c')), LanguageClass.load(wasmOf('tree-sitter-cpp'))]);
  const parser = new ParserClass();
  return { c, cpp, parser, loadMs: performance.now() - started };
}
