/**
 * grammar/ must describe the parser that runs: the rule names (lowerCamel productions) and token
 * names (UpperCamel productions) of grammar/gdb-backtrace.ebnf equal the Chevrotain parser's, each
 * rule refers to the same rules and tokens as its parser rule, every token and rule in the code
 * carries a sample line in its comment, and grammar/diagrams.html is what the parser generates
 * today (UPDATE_GOLDEN=1 regenerates it).
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { ISerializedGast } from '../../src/parse/diagrams.js';
import { ROOT } from '../helpers/paths.js';
import { grammarDiagramsHtml, serializedRules, tokenNames } from '../../src/parse/diagrams.js';
import { UPDATE_GOLDEN } from './fixtures.js';
import { DumpBuilder } from '../../src/parse/builder.js';
import { createToken, Lexer } from '../../src/parse/chevrotain.js';
import { BacktraceParser } from '../../src/parse/parser.js';
import { classify } from '../../src/parse/lines.js';
import { asToken } from '../../src/parse/tokens.js';

const EBNF_PATH = join(ROOT, 'grammar', 'gdb-backtrace.ebnf');
const DIAGRAMS_PATH = join(ROOT, 'grammar', 'diagrams.html');

/** Productions of the .ebnf (comments removed): name → the identifiers its body mentions. */
function ebnfProductions(): Map<string, Set<string>> {
  const text = readFileSync(EBNF_PATH, 'utf8').replace(/\(\*[\s\S]*?\*\)/g, ' ');
  const productions = new Map<string, Set<string>>();
  for (const m of text.matchAll(/^([A-Za-z][A-Za-z0-9_]*)\s*=([\s\S]*?);\s*$/gm)) {
    const body = m[2]!.replace(/"[^"]*"|'[^']*'/g, ' ');
    productions.set(m[1]!, new Set(body.match(/[A-Za-z][A-Za-z0-9_]*/g) ?? []));
  }
  return productions;
}

const isRule = (name: string) => /^[a-z]/.test(name);
const isToken = (name: string) => /^[A-Z][a-z]/.test(name);

/** The rules and tokens a serialized Chevrotain production refers to. */
function references(node: ISerializedGast, into = new Set<string>()): Set<string> {
  const n = node as ISerializedGast & { name?: string; definition?: ISerializedGast[] };
  if (n.type === 'NonTerminal' || n.type === 'Terminal') into.add(n.name!);
  for (const child of n.definition ?? []) references(child, into);
  return into;
}

test('grammar: .ebnf rule names equal the parser rule names', () => {
  const fromEbnf = [...ebnfProductions().keys()].filter(isRule).sort();
  const fromParser = serializedRules().map((r) => r.name).sort();
  assert.deepEqual(fromEbnf, fromParser);
});

test('grammar: .ebnf token productions equal the parser token names', () => {
  const fromEbnf = [...ebnfProductions().keys()].filter(isToken).sort();
  assert.deepEqual(fromEbnf, [...tokenNames()].sort());
});

test('grammar: each .ebnf rule refers to the same rules and tokens as its parser rule', () => {
  const productions = ebnfProductions();
  for (const rule of serializedRules()) {
    const name = rule.name;
    const inCode = [...references(rule)].sort();
    const inEbnf = [...(productions.get(name) ?? [])].filter((id) => isRule(id) || isToken(id)).sort();
    assert.deepEqual(inEbnf, inCode, `rule ${name}`);
  }
});

test('grammar: every token and rule in the code carries a sample line in its comment', () => {
  const tokens = readFileSync(join(ROOT, 'src', 'parse', 'tokens.ts'), 'utf8');
  for (const name of tokenNames()) {
    assert.match(tokens, new RegExp(`/\\*\\*[^\\n]*\`[^\\n]*\\*/\\nexport const ${name} = createToken`), `token ${name} has no sample comment`);
  }
  const grammar = readFileSync(join(ROOT, 'src', 'parse', 'parser.ts'), 'utf8');
  for (const rule of serializedRules()) {
    const name = rule.name;
    assert.match(grammar, new RegExp(`\\*/\\n\\s*${name} = this\\.RULE\\('${name}'`), `rule ${name} has no comment`);
    const comment = grammar.slice(0, grammar.indexOf(`${name} = this.RULE('${name}'`));
    const last = comment.slice(comment.lastIndexOf('/**'));
    assert.match(last, /`[^`]+`/, `rule ${name}: its comment shows no sample line`);
  }
});

test('grammar: grammar/diagrams.html is generated from the current parser', () => {
  const html = grammarDiagramsHtml();
  if (UPDATE_GOLDEN || !existsSync(DIAGRAMS_PATH)) {
    if (!UPDATE_GOLDEN) assert.fail(`${DIAGRAMS_PATH} is missing; run with UPDATE_GOLDEN=1`);
    writeFileSync(DIAGRAMS_PATH, html);
    return;
  }
  assert.equal(readFileSync(DIAGRAMS_PATH, 'utf8'), html, 'grammar/diagrams.html is stale: run the tests with UPDATE_GOLDEN=1');
});

test('grammar: parseRecord reports a failed parse in recordErrors, the list Chevrotain records into', () => {
  const parser = new BacktraceParser();
  const builder = new DumpBuilder();
  // A token type outside the parser's vocabulary: no rule takes it, so the document stops before it.
  const Foreign = createToken({ name: 'Foreign', pattern: Lexer.NA });
  const foreign = { image: 'x', startOffset: 2, startLine: 2, tokenType: Foreign, tokenTypeIdx: Foreign.tokenTypeIdx! };
  const quit = asToken(classify('Quit', 1));
  parser.parseRecord([quit, foreign], builder);
  assert.equal(parser.recordErrors.length, 1);
  assert.equal(parser.recordErrors[0]!.token, foreign);
  assert.deepEqual(parser.errors, parser.recordErrors, 'the getter copies the same list');
  assert.equal(builder.ignored.length, 1, 'the token before the failure reached the builder');
  parser.parseRecord([asToken(classify('Quit', 3))], builder);
  assert.deepEqual(parser.recordErrors, [], 'the next record starts with no errors');
  assert.equal(parser.builder, null);
});
