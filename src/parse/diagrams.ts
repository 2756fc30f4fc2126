/**
 * The railroad diagram of the parser (grammar/diagrams.html), generated from the Chevrotain
 * parser itself so it cannot drift from the code; and the parser's rule and token names, which
 * test/parse/grammar.test.ts checks against grammar/gdb-backtrace.ebnf.
 */
import type { ISerializedGast } from 'chevrotain';
import { createSyntaxDiagramsCode } from './chevrotain.js';
import { backtraceParser } from './parser.js';
import { allTokens } from './tokens.js';

export type { ISerializedGast };

/** The HTML page of railroad diagrams, one per parser rule. */
export function grammarDiagramsHtml(): string {
  return createSyntaxDiagramsCode(backtraceParser().getSerializedGastProductions());
}

/** The parser's rules as plain serialisable productions (name, and nested definitions). */
export function serializedRules(): Array<ISerializedGast & { name: string }> {
  return backtraceParser().getSerializedGastProductions() as Array<ISerializedGast & { name: string }>;
}

export function tokenNames(): string[] {
  return allTokens.map((t) => t.name);
}
