/**
 * Golden JSON for the founding report and every shape fixture (fixtures/parse/shapes), compared
 * exactly. `UPDATE_GOLDEN=1 npm test` rewrites them; review the diff before committing.
 * Also: every input line of every fixture is accounted for, and streaming in small chunks gives
 * the same Dump as parsing the whole text.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { DumpParser, parseDump } from '../../src/parse/index.js';
import { countLines, FOUNDING, FOUNDING_GOLDEN, goldenText, shapeFixtures, unaccountedLines, UPDATE_GOLDEN } from './fixtures.js';

const all = [{ name: 'enzyme-autodiff-deferred (founding)', txt: FOUNDING, json: FOUNDING_GOLDEN }, ...shapeFixtures()];

test('golden: at least 40 shape fixtures exist', () => {
  assert.ok(shapeFixtures().length >= 40, `only ${shapeFixtures().length} fixtures`);
});

for (const fixture of all) {
  test(`golden: ${fixture.name}`, () => {
    const text = readFileSync(fixture.txt, 'utf8');
    const dump = parseDump(text);
    const actual = goldenText(dump);
    if (UPDATE_GOLDEN || !existsSync(fixture.json)) {
      if (!UPDATE_GOLDEN) assert.fail(`${fixture.json} is missing; run with UPDATE_GOLDEN=1 to create it`);
      writeFileSync(fixture.json, actual);
      return;
    }
    assert.equal(actual, readFileSync(fixture.json, 'utf8'));
  });

  test(`accounting: ${fixture.name} — every line parsed or ignored, counts agree`, () => {
    const text = readFileSync(fixture.txt, 'utf8');
    const dump = parseDump(text);
    assert.equal(dump.stats.lines, countLines(text));
    assert.deepEqual(unaccountedLines(dump), []);
    assert.equal(dump.stats.ignoredLines, dump.ignored.length);
    assert.equal(dump.stats.backtraces, dump.backtraces.length);
    assert.equal(dump.stats.frames, dump.backtraces.reduce((n, bt) => n + bt.frames.length, 0));
    const lines = dump.ignored.map((i) => i.line);
    assert.deepEqual(lines, [...lines].sort((a, b) => a - b), 'ignored lines in input order');
    const starts = dump.backtraces.map((bt) => bt.startLine);
    assert.deepEqual(starts, [...starts].sort((a, b) => a - b), 'backtraces in input order');
  });

  test(`streaming: ${fixture.name} — 1-, 3- and 7-character chunks give the same Dump`, () => {
    const text = readFileSync(fixture.txt, 'utf8');
    const whole = goldenText(parseDump(text));
    for (const size of [1, 3, 7]) {
      const parser = new DumpParser();
      for (let i = 0; i < text.length; i += size) parser.push(text.slice(i, i + size));
      assert.equal(goldenText(parser.end()), whole, `chunk size ${size}`);
    }
  });
}
