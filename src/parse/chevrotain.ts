/**
 * Chevrotain's runtime, loaded from the single-file ESM bundle the package ships
 * (`lib/chevrotain.mjs`). The package's only export, `lib/src/api.js`, is the same code as ~100
 * modules that pull in ~600 lodash-es modules: about 300 ms of module loading on every start,
 * against about 20 ms for the bundle (measured with `npm run bench`, issue 7 figure 4). The
 * `exports` map does not list the bundle, so it is imported by file URL next to the resolved entry.
 * Everything in parse/ takes Chevrotain from here, so tokens and parser come from one copy.
 */
import { createRequire } from 'node:module';
import { pathToFileURL } from 'node:url';
import type * as ChevrotainApi from 'chevrotain';

async function load(): Promise<typeof ChevrotainApi> {
  try {
    const entry = createRequire(import.meta.url).resolve('chevrotain');
    return (await import(new URL('../chevrotain.mjs', pathToFileURL(entry)).href)) as typeof ChevrotainApi;
  } catch {
    // A Chevrotain without the bundle (a future layout): the regular entry, slower to load.
    return await import('chevrotain');
  }
}

const chevrotain = await load();

export const { createToken, createTokenInstance, createSyntaxDiagramsCode, EmbeddedActionsParser, Lexer } = chevrotain;
export type { IOrAlt, IRecognitionException, IToken, TokenType } from 'chevrotain';
