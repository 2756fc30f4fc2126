/**
 * `--format github` (report/github.ts): workflow commands on the dump's lines, escaped as the
 * runner reads them. The action's goldens (test/action) hold the same through `check`.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { escapeData, escapeProperty, githubAnnotations, renderGithub, workflowCommand } from '../../src/report/github.js';
import { FOUNDING } from '../helpers/paths.js';
import { analyzeFile } from './pipeline.js';
import { readFileSync } from 'node:fs';

test('founding report: one error on thread 7\'s wait with the cycle, the fix and the signature; notices on the other waits and the hold', () => {
  const analysis = analyzeFile(FOUNDING);
  const annotations = githubAnnotations(analysis);
  assert.equal(annotations.filter((a) => a.level === 'error').length, 1);
  const error = annotations[0]!;
  assert.equal(error.level, 'error');
  const lines = readFileSync(FOUNDING, 'utf8').split('\n');
  assert.match(lines[error.line! - 1]!, /LocalTrampolinePool.*reenter/, 'the line is the frame where thread 7 waits');
  assert.match(error.message, /^Threads 7, 8, 9 wait for each other \(evidence: inferred; signature 11a56d618b1d\)\.\nthread 7 waits for the lazy compile/);
  assert.match(error.message, /\nFix: Make the call into the lazily compiled code GC-safe/);
  const noticeLines = annotations.filter((a) => a.level === 'notice').map((a) => a.line!);
  assert.equal(new Set(noticeLines).size, noticeLines.length, 'one annotation a line');
  assert.match(lines[annotations.find((a) => /holds orc:lazy-compile/.test(a.message))!.line! - 1]!, /julia___materialize_7661/);
  const text = renderGithub(analysis, { file: 'fixtures/enzyme-autodiff-deferred.txt' });
  assert.ok(text.startsWith(`::error file=fixtures/enzyme-autodiff-deferred.txt,line=${error.line},title=waitgraph%3A Deadlock%3A Julia GC`));
  assert.equal(text.split('\n').length, annotations.length + 1);
});

test('escapes as @actions/core: %, CR, LF in data; and : , in properties', () => {
  assert.equal(escapeData('a%b\r\nc'), 'a%25b%0D%0Ac');
  assert.equal(escapeProperty('a:b,c%\n'), 'a%3Ab%2Cc%25%0A');
  assert.equal(workflowCommand({ level: 'warning', line: 3, title: 't: x', message: 'm\nn' }, 'd,1.txt'), '::warning file=d%2C1.txt,line=3,title=t%3A x::m%0An\n');
  assert.equal(workflowCommand({ level: 'notice', title: 't', message: 'm' }), '::notice title=t::m\n');
  assert.equal(workflowCommand({ level: 'notice', title: 't', message: 'm' }, '-'), '::notice title=t::m\n', 'standard input names no file');
});
