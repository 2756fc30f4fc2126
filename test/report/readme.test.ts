import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { ROOT } from '../helpers/paths.js';

const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');

test('README shows the founding deadlock\'s SVG, and every relative link in it resolves', () => {
  assert.match(readme, /!\[[^\]]+\]\(fixtures\/golden\/enzyme-autodiff-deferred\.svg\)/);
  assert.match(readFileSync(join(ROOT, 'fixtures/golden/enzyme-autodiff-deferred.svg'), 'utf8'), /<svg /);
  for (const [, target] of readme.matchAll(/\]\(((?!https?:|#)[^)\s]+)\)/g)) {
    assert.ok(existsSync(join(ROOT, target!)), `README links to ${target}, which does not exist`);
  }
});

test('README\'s Markdown sample is the current report (regenerate it when the golden changes)', () => {
  const golden = readFileSync(join(ROOT, 'fixtures/golden/enzyme-autodiff-deferred.md'), 'utf8');
  // The README demotes `##` to `####`; the table and the Mermaid block are pasted unchanged.
  const table = golden.split('\n').filter((line) => line.startsWith('| '));
  const mermaid = /```mermaid\n[\s\S]*?```/.exec(golden)![0];
  for (const line of table) assert.ok(readme.includes(line), `README lacks the table row: ${line}`);
  assert.ok(readme.includes(mermaid), 'README lacks the current Mermaid block');
});

test('README\'s text sample is lines of the current text report', () => {
  const golden = readFileSync(join(ROOT, 'fixtures/golden/enzyme-autodiff-deferred.txt'), 'utf8').split('\n');
  const sample = /```console\n\$ waitgraph fixtures\/enzyme-autodiff-deferred\.txt\n([\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(sample, 'README has the text sample');
  for (const line of sample.split('\n').filter((l) => l !== '' && l !== '…')) {
    assert.ok(golden.includes(line), `README's text sample has a line the report no longer prints: ${line}`);
  }
});
