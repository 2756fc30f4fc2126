import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { RuleError } from '../../src/errors.js';
import { loadRules, compilePattern, normalizeFunctionName, PatternError } from '../../src/rules/index.js';
import { analyzeText } from '../../src/analyze/index.js';
import { ROOT } from '../helpers/paths.js';
import { readFileSync } from 'node:fs';

const EXAMPLES = join(ROOT, 'test', 'rules', 'examples');
const dir = mkdtempSync(join(tmpdir(), 'waitgraph-rules-'));

const GOOD = {
  id: 'myapp.x.wait',
  pack: 'myapp',
  summary: 'A test rule.',
  match: { frames: [{ function: 'myapp_wait', args: { lock: {} } }] },
  effect: { evidence: 'proven', waits: [{ resource: 'lock:{args.lock.address}', description: 'waits' }] },
  explanation: 'x',
  fix: 'y',
  sources: ['z'],
};

function writeRule(name: string, body: string): string {
  const path = join(dir, name);
  writeFileSync(path, body);
  return path;
}

function loadError(path: string): RuleError {
  try {
    loadRules({ extraFiles: [path], cwd: dir });
  } catch (error) {
    assert.ok(error instanceof RuleError, `expected a RuleError, got ${String(error)}`);
    assert.equal(error.code, 'E_RULE');
    assert.equal(error.message.includes('\n'), false, 'one line');
    return error;
  }
  assert.fail('the rule file loaded');
}

const variant = (patch: (r: any) => void): string => {
  const r = structuredClone(GOOD) as any;
  patch(r);
  return JSON.stringify(r, null, 2);
};

test('a valid JSON rule loads next to the built-ins', () => {
  const rules = loadRules({ extraFiles: [writeRule('myapp.x.wait.json', JSON.stringify(GOOD))], cwd: dir });
  assert.ok(rules.byId.has('myapp.x.wait'));
  assert.ok(rules.byId.has('julia.gc.initiator'));
});

test('an unknown field is one line naming the file, the line and the field', () => {
  const e = loadError(writeRule('myapp.x.wait.json', variant((r) => (r.match.frames[0].funtion = 'x'))));
  assert.match(e.message, /^myapp\.x\.wait\.json:\d+: match\.frames\[0\]\.funtion: unknown field "funtion"$/);
  const y = loadError(join(EXAMPLES, 'myapp.typo.yaml'));
  assert.match(y.message, /myapp\.typo\.yaml:6: match\.frames\[0\]\.funtion: unknown field/);
});

test('invalid YAML is one line with its line number', () => {
  const e = loadError(writeRule('myapp.bad.yaml', 'id: myapp.bad\nmatch: [\n  frames: {\n'));
  assert.match(e.message, /^myapp\.bad\.yaml:\d+: invalid YAML: /);
});

test('a pattern that could backtrack badly is rejected, in user rules too', () => {
  for (const regex of ['(a+)+$', '(x|xy)*z', '.*foo.*', '(\\w+)\\1']) {
    const e = loadError(writeRule('myapp.x.wait.json', variant((r) => (r.match.frames[0].function = { regex }))));
    assert.match(e.message, /match\.frames\[0\]\.function: regex/, regex);
  }
  assert.throws(() => compilePattern({ regex: '(a*)*b' }), PatternError);
  // Safe forms load and work.
  const ok = compilePattern({ regex: 'std::future<.+>::get\\(\\)' });
  assert.equal(ok('std::future<unsigned long>::get()'), true);
  assert.equal(ok('xstd::future<int>::get()'), false, 'matched from the first character');
});

test('other load errors: id ≠ file name, unknown unlessRules, undeclared placeholder, duplicate id', () => {
  assert.match(loadError(writeRule('other.name.json', JSON.stringify(GOOD))).message, /id: the id myapp\.x\.wait must equal the file name \(other\.name\)/);
  assert.match(loadError(writeRule('myapp.x.wait.json', variant((r) => (r.match.unlessRules = ['no.such.rule'])))).message, /unknown rule id no\.such\.rule/);
  assert.match(loadError(writeRule('myapp.x.wait.json', variant((r) => (r.effect.waits[0].resource = 'lock:{args.mutex.address}')))).message, /effect\.waits\[0\]\.resource: placeholder \{args\.mutex\.address\} names argument mutex/);
  assert.match(loadError(writeRule('julia.gc.initiator.json', variant((r) => (r.id = 'julia.gc.initiator')))).message, /already defined/);
  assert.match(loadError(writeRule('myapp.x.wait.json', variant((r) => delete r.fix))).message, /fix: /);
});

test('{unknown} is a resource id of its own for each waiting thread, and only a resource id may say it', () => {
  const path = writeRule('myapp.x.wait.json', variant((r) => {
    r.match.frames = [{ function: 'myapp_wait' }];
    r.effect.waits[0].resource = 'myapp-lock:{unknown}';
  }));
  const rules = loadRules({ extraFiles: [path], cwd: dir });
  const dump = [1, 2].map((n) => `Thread ${n} (LWP ${100 + n}):\n#0  0x0000000000401000 in myapp_wait () from /usr/lib/libmyapp.so\n#1  0x0000000000401100 in worker_${n} () at app.c:${n}\n`).join('\n');
  const a = analyzeText(dump, { rules });
  assert.deepEqual(a.threads.map((t) => t.waitsFor), [['myapp-lock:unknown@1'], ['myapp-lock:unknown@2']]);
  assert.deepEqual(a.unresolved.map((u) => u.resource), ['myapp-lock:unknown@1', 'myapp-lock:unknown@2']);
  const bad = writeRule('myapp.x.wait.json', variant((r) => {
    r.match.frames = [{ function: 'myapp_wait' }];
    r.effect.waits[0].resource = 'myapp-lock:{unknown}';
    r.effect.waits[0].description = 'waits for {unknown}';
  }));
  assert.match(loadError(bad).message, /effect\.waits\[0\]\.description: \{unknown\} stands for a lock the frames do not identify and may only end a resource id/);
});

test('name patterns: exact, prefix, glob, underscores', () => {
  assert.equal(compilePattern(['a', 'b'])('b'), true);
  assert.equal(compilePattern({ prefix: ['jl_', 'julia_'] })('julia_f_1'), true);
  const g = compilePattern({ glob: 'llvm::orc::LocalTrampolinePool<*>::reenter*' });
  assert.equal(g('llvm::orc::LocalTrampolinePool<llvm::orc::OrcX86_64_SysV>::reenter(void*, void*)'), true);
  assert.equal(g('llvm::orc::LocalTrampolinePool<X>::reenterX'), true);
  assert.equal(g('llvm::orc::TrampolinePool::reenter'), false);
  assert.equal(compilePattern({ glob: 'a?c' })('abc'), true);
  assert.equal(compilePattern({ glob: 'a\\*c' })('abc'), false);
  const u = compilePattern({ exact: 'pthread_mutex_lock', underscores: 'ignore' });
  assert.equal(u('___pthread_mutex_lock'), true);
  assert.equal(compilePattern('pthread_mutex_lock')('___pthread_mutex_lock'), false);
  // A glob on a long name stays fast (no backtracking blow-up).
  const long = 'a'.repeat(20000);
  const start = process.hrtime.bigint();
  assert.equal(compilePattern({ glob: '*a*a*a*a*b' })(long), false);
  assert.ok(process.hrtime.bigint() - start < 2_000_000_000n);
});

test('a glob is tokenized on first use, but a lone trailing backslash is refused when it is compiled', () => {
  for (const bad of ['a\\', 'a\\\\\\', '\\']) assert.throws(() => compilePattern({ glob: bad }), /ends with a lone backslash/, bad);
  // An escaped backslash at the end is a literal backslash.
  assert.equal(compilePattern({ glob: 'a\\\\' })('a\\'), true);
  assert.equal(compilePattern({ glob: '*\\*' })('x*'), true);
  assert.equal(compilePattern({ glob: '*\\*' })('xy'), false);
  // The leading characters the matcher indexes on: an escape's character, none for a wildcard.
  assert.deepEqual([...(compilePattern({ glob: ['\\?x*', 'pthread_*'] }).leading?.chars ?? [])].sort(), ['?'.charCodeAt(0), 'p'.charCodeAt(0)].sort());
  assert.equal(compilePattern({ glob: ['*x', 'p*'] }).leading, undefined);
  assert.equal(compilePattern({ glob: ['?x'] }).leading, undefined);
});

test('function names are normalised before matching', () => {
  assert.equal(normalizeFunctionName('sem_wait@@GLIBC_2.2.5'), 'sem_wait');
  // An unnamed function: `?? ()`, and under a frame filter `in  ()` (GDB 13) or `in ??? ()` (GDB 14).
  for (const unnamed of ['??', '', '???']) assert.equal(normalizeFunctionName(unnamed), '??', JSON.stringify(unnamed));
  assert.equal(normalizeFunctionName('pthread_cond_wait@plt'), 'pthread_cond_wait');
  assert.equal(normalizeFunctionName('__new_sem_wait_slow.constprop.0'), '__new_sem_wait_slow');
  assert.equal(normalizeFunctionName('do_futex_wait.isra.1.part.0'), 'do_futex_wait');
  assert.equal(normalizeFunctionName('__GI___lll_lock_wait'), '__lll_lock_wait');
  assert.equal(normalizeFunctionName('ijl_gc_collect'), 'jl_gc_collect');
  assert.equal(normalizeFunctionName('std::sys::sync::mutex::futex::Mutex::lock_contended::h0123456789abcdef'), 'std::sys::sync::mutex::futex::Mutex::lock_contended');
  assert.equal(normalizeFunctionName('??'), '??');
});

test('the README example rule, loaded as a user rule, changes the result', () => {
  const text = readFileSync(join(EXAMPLES, 'spin.txt'), 'utf8');
  const before = analyzeText(text, { rules: loadRules() });
  assert.equal(before.verdict, 'ok');
  const after = analyzeText(text, { rules: loadRules({ extraFiles: [join(EXAMPLES, 'myapp.spinlock.wait.yaml')] }) });
  assert.equal(after.verdict, 'hang');
  assert.deepEqual(after.hung, ['1', '2']);
  assert.deepEqual(after.threads.map((t) => t.state), ['spin-wait', 'spin-wait']);
  assert.equal(after.unresolved[0]?.gdbCommand, 'print ((struct myapp_spinlock *) 0x55f1c2a04060)->owner_tid');
});

test('--rules may name a folder: every rule file in it loads; an empty folder is an error', () => {
  const folder = mkdtempSync(join(tmpdir(), 'waitgraph-rule-dir-'));
  writeFileSync(join(folder, 'myapp.x.wait.json'), JSON.stringify(GOOD));
  writeFileSync(join(folder, 'notes.txt'), 'not a rule');
  const rules = loadRules({ extraFiles: [folder] });
  assert.ok(rules.byId.has('myapp.x.wait'));
  const empty = mkdtempSync(join(tmpdir(), 'waitgraph-rule-empty-'));
  assert.throws(() => loadRules({ extraFiles: [empty] }), RuleError);
  assert.throws(() => loadRules({ extraFiles: [join(empty, 'missing.yaml')] }), /rule file not found/);
});

test('built-in rules are ordered so every rule comes after the rules its unlessRules name', () => {
  const rules = loadRules();
  const position = new Map(rules.threadRules.map((r, i) => [r.id, i]));
  for (const rule of rules.threadRules) {
    for (const other of rule.unlessRules) assert.ok((position.get(other) ?? Infinity) < (position.get(rule.id) ?? -1), `${other} before ${rule.id}`);
  }
});

test('a glob matches what the same glob as a regex matches (random globs and names, escapes and wildcards anywhere)', () => {
  // The reference: each `*` any run, each `?` one character, `\x` the character x, the rest literal.
  const reference = (glob: string): RegExp => {
    let source = '';
    for (let i = 0; i < glob.length; i++) {
      const c = glob[i] as string;
      if (c === '\\') source += (glob[++i] as string).replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
      else if (c === '*') source += '[\\s\\S]*';
      else if (c === '?') source += '[\\s\\S]';
      else source += c.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
    }
    return new RegExp(`^${source}$`);
  };
  const globChar = fc.constantFrom('a', 'b', '_', ':', '*', '?', '\\');
  const nameChar = fc.constantFrom('a', 'b', '_', ':', '*', '?', '\\');
  fc.assert(
    fc.property(fc.array(globChar, { maxLength: 8 }), fc.array(fc.array(nameChar, { maxLength: 9 }), { minLength: 1, maxLength: 6 }), (globChars, names) => {
      let glob = globChars.join('');
      let trailing = 0;
      while (glob[glob.length - 1 - trailing] === '\\') trailing++;
      if (trailing % 2 === 1) glob += 'a';
      const test = compilePattern({ glob });
      const re = reference(glob);
      for (const name of names.map((n) => n.join(''))) assert.equal(test(name), re.test(name), `${JSON.stringify(glob)} on ${JSON.stringify(name)}`);
    }),
    { numRuns: 3000 },
  );
});

test('a glob of stars and text only (matched with startsWith, endsWith and indexOf) matches what its regex matches, overlaps included', () => {
  // Two letters, so that runs overlap and repeat: `*ab*ba`, `a*a`, `*aa*a*`.
  fc.assert(
    fc.property(fc.array(fc.constantFrom('a', 'b', '*'), { maxLength: 8 }), fc.array(fc.array(fc.constantFrom('a', 'b'), { maxLength: 10 }), { minLength: 1, maxLength: 8 }), (globChars, names) => {
      const glob = globChars.join('');
      const test = compilePattern({ glob });
      const re = new RegExp(`^${glob.replaceAll('*', '[\\s\\S]*')}$`);
      for (const name of names.map((n) => n.join(''))) assert.equal(test(name), re.test(name), `${JSON.stringify(glob)} on ${JSON.stringify(name)}`);
    }),
    { numRuns: 3000 },
  );
});
