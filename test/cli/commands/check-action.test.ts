/**
 * The GitHub Action (action.yml at the repository root), which runs `waitgraph check --format
 * github --sarif` (cli/commands/check.ts). It cannot run here, so its parts are
 * held to what they must be:
 * - action.yml parsed with the YAML library: every input it declares reaches the script (through
 *   env), every input it names is declared, no `${{ }}` is pasted into the script (injection);
 * - its step's script run by bash in a scratch workspace, with `npx` a shim on PATH that records
 *   its arguments and runs this checkout's CLI: the command (fixtures/golden/action/command.txt),
 *   the annotations it prints (annotations.txt), the SARIF it writes (check.sarif, also valid
 *   SARIF 2.1.0) and its step output are held to goldens (`UPDATE_GOLDEN=1` rewrites them);
 * - the README's workflow is fixtures/action/workflow.yml, byte for byte, and it uses the
 *   action's inputs and uploads the file the action writes.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { chmodSync, copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { parse } from 'yaml';
import { BIN, FIXTURES, FOUNDING, ROOT } from '../../helpers/paths.js';
import { sarifSchemaErrors } from '../../report/validators.js';

const UPDATE = process.env['UPDATE_GOLDEN'] === '1';
const GOLDEN = join(FIXTURES, 'golden', 'action');
const WORKFLOW = join(FIXTURES, 'action', 'workflow.yml');

interface ActionStep {
  id?: string;
  shell?: string;
  env?: Record<string, string>;
  run?: string;
}
interface Action {
  name: string;
  inputs: Record<string, { description: string; required?: boolean; default?: string }>;
  outputs: Record<string, { description: string; value: string }>;
  runs: { using: string; steps: ActionStep[] };
}

const action = parse(readFileSync(join(ROOT, 'action.yml'), 'utf8')) as Action;

function golden(name: string, actual: string): void {
  const path = join(GOLDEN, name);
  if (UPDATE) {
    mkdirSync(GOLDEN, { recursive: true });
    if (!existsSync(path) || readFileSync(path, 'utf8') !== actual) writeFileSync(path, actual);
    return;
  }
  assert.ok(existsSync(path), `missing golden fixtures/golden/action/${name}: run UPDATE_GOLDEN=1 npm test`);
  assert.equal(actual, readFileSync(path, 'utf8'), `fixtures/golden/action/${name} differs: review, then UPDATE_GOLDEN=1 npm test`);
}

test('action.yml: a composite action whose every input reaches the script through env, and nothing else is pasted in', () => {
  assert.equal(action.runs.using, 'composite');
  const steps = action.runs.steps;
  assert.equal(steps.length, 1);
  const step = steps[0]!;
  assert.equal(step.shell, 'bash');
  const script = step.run ?? '';
  assert.doesNotMatch(script, /\$\{\{/, 'the script has no ${{ }} expression (inputs come in through env)');
  const text = readFileSync(join(ROOT, 'action.yml'), 'utf8');
  const named = new Set([...text.matchAll(/\binputs\.([A-Za-z0-9_-]+)/g)].map((m) => m[1]!));
  const declared = Object.keys(action.inputs);
  assert.deepEqual([...named].sort(), [...declared].sort(), 'the inputs the action names are the ones it declares');
  for (const name of declared) {
    assert.ok(action.inputs[name]!.description.length > 10, `input ${name} is described`);
    const variable = Object.entries(step.env ?? {}).find(([, value]) => value === `\${{ inputs.${name} }}`)?.[0];
    assert.ok(variable, `input ${name} is passed in env`);
    assert.match(script, new RegExp(`\\$${variable}\\b|"\\$${variable}"`), `input ${name} ($${variable}) is used by the script`);
  }
  for (const [name, value] of Object.entries(step.env ?? {})) assert.ok(script.includes(`$${name}`), `env ${name} is used`);
  // The output names the step that writes it, and the step writes it.
  assert.equal(action.outputs['sarif']!.value, `\${{ steps.${step.id}.outputs.sarif }}`);
  assert.match(script, /echo "sarif=\$WAITGRAPH_SARIF" >> "\$GITHUB_OUTPUT"/);
  assert.match(script, /npx --yes --package="\$package" -- waitgraph "\$\{args\[@\]\}"/, 'the action runs npx waitgraph check');
});

interface StepRun {
  code: number;
  stdout: string;
  stderr: string;
  npxArgs: string[];
  output: string;
  workspace: string;
}

/** Runs the action's step as the runner would: bash, its env with the inputs substituted, npx a shim. */
function runStep(workspace: string, inputs: Record<string, string>): StepRun {
  const step = action.runs.steps[0]!;
  const shims = mkdtempSync(join(tmpdir(), 'wg-npx-'));
  const log = join(shims, 'npx-args.json');
  const npx = join(shims, 'npx');
  // The shim records what npx was asked to run, then runs this checkout's CLI in its place.
  writeFileSync(
    npx,
    `#!${process.execPath}\n` +
      `const { writeFileSync } = require('node:fs'); const { spawnSync } = require('node:child_process');\n` +
      `const args = process.argv.slice(2); writeFileSync(${JSON.stringify(log)}, JSON.stringify(args));\n` +
      `const rest = args.slice(args.indexOf('--') + 1); if (rest[0] !== 'waitgraph') process.exit(127);\n` +
      `const run = spawnSync(process.execPath, [${JSON.stringify(BIN)}, ...rest.slice(1)], { stdio: 'inherit' }); process.exit(run.status ?? 1);\n`,
  );
  chmodSync(npx, 0o755);
  const output = join(shims, 'github-output');
  writeFileSync(output, '');
  const env: Record<string, string> = { PATH: `${shims}:${process.env['PATH'] ?? ''}`, HOME: process.env['HOME'] ?? '/tmp', GITHUB_OUTPUT: output, NO_COLOR: '1' };
  for (const [name, value] of Object.entries(step.env ?? {})) {
    env[name] = value.replace(/\$\{\{\s*(inputs\.([A-Za-z0-9_-]+)|github\.action_path)\s*\}\}/g, (_, _all: string, input: string | undefined) => {
      if (input === undefined) return ROOT;
      return inputs[input] ?? action.inputs[input]!.default ?? '';
    });
  }
  const result = spawnSync('bash', ['-c', step.run!], { cwd: workspace, env, encoding: 'utf8', timeout: 60_000 });
  const npxArgs = existsSync(log) ? (JSON.parse(readFileSync(log, 'utf8')) as string[]) : [];
  const written = readFileSync(output, 'utf8');
  rmSync(shims, { recursive: true, force: true });
  return { code: result.status ?? -1, stdout: result.stdout, stderr: result.stderr, npxArgs, output: written, workspace };
}

/** A repository with dumps of each kind: a match, a mismatch, a hang, a file with no sidecar. */
function workspace(): string {
  const dir = mkdtempSync(join(tmpdir(), 'wg-action-'));
  mkdirSync(join(dir, 'dumps', 'older'), { recursive: true });
  copyFileSync(FOUNDING, join(dir, 'dumps', 'founding.txt'));
  writeFileSync(join(dir, 'dumps', 'founding.expect.json'), '{"verdict": "deadlock", "cycles": [[7, 8, 9]]}\n');
  const abba = readFileSync(join(FIXTURES, 'check', 'abba-with-owners.txt'), 'utf8');
  writeFileSync(join(dir, 'dumps', 'abba.bt'), abba);
  writeFileSync(join(dir, 'dumps', 'abba.expect.json'), '{"verdict": "ok", "cycles": []}\n');
  writeFileSync(join(dir, 'dumps', 'older', 'abba-no-owners.log'), abba.slice(0, abba.indexOf('(gdb) p *')));
  writeFileSync(join(dir, 'dumps', 'older', 'abba-no-owners.expect.json'), '{"verdict": "hang", "cycles": []}\n');
  writeFileSync(join(dir, 'dumps', 'notes.txt'), 'Thread 1 (LWP 7):\n#0  0x1 in main () at m.c:3\n');
  return dir;
}

test('the action\'s step: the command it runs, its annotations, its SARIF and its output, held to goldens', () => {
  const dir = workspace();
  try {
    const run = runStep(dir, { paths: '  dumps/\n\n', strict: 'true' });
    assert.equal(run.code, 1, `a mismatch and a dump without a sidecar (--strict) fail the step\n${run.stderr}`);
    assert.equal(run.stderr, '');
    golden('command.txt', `${run.npxArgs.join('\n')}\n`);
    assert.deepEqual(run.npxArgs.slice(0, 4), ['--yes', `--package=waitgraph@${(JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version}`, '--', 'waitgraph']);
    golden('annotations.txt', run.stdout);
    // Every line before the table is a workflow command; no text of a dump starts a line of its own.
    const commands = run.stdout.slice(0, run.stdout.indexOf('file ')).split('\n').filter(Boolean);
    for (const line of commands) assert.match(line, /^::(error|warning|notice) [^:]*::\S/);
    assert.ok(commands.some((l) => l.startsWith('::error file=dumps/founding.txt,line=57,')), 'the founding deadlock on thread 7\'s wait');
    assert.ok(commands.some((l) => l.startsWith('::error file=dumps/abba.bt,title=waitgraph check%3A mismatch::expected ok')));
    assert.ok(commands.some((l) => l.startsWith('::warning file=dumps/older/abba-no-owners.log,line=')), 'the hang');
    assert.ok(commands.some((l) => l.startsWith('::error file=dumps/notes.txt,title=waitgraph check%3A no sidecar::')));
    assert.equal(run.output, 'sarif=waitgraph.sarif\n');
    const sarifText = readFileSync(join(dir, 'waitgraph.sarif'), 'utf8');
    const sarif = JSON.parse(sarifText) as { runs: Array<{ results: Array<{ ruleId: string; locations: Array<{ physicalLocation: { artifactLocation: { uri: string }; region: { startLine: number } } }> }> }> };
    assert.equal(sarifSchemaErrors(sarif), '');
    assert.equal(sarif.runs.length, 1, 'one run (code scanning takes one per tool)');
    const results = sarif.runs[0]!.results;
    assert.deepEqual(results.map((r) => `${r.ruleId} ${r.locations[0]!.physicalLocation.artifactLocation.uri}`), [
      'waitgraph/deadlock dumps/abba.bt',
      'waitgraph/deadlock dumps/founding.txt',
      'waitgraph/hang dumps/older/abba-no-owners.log',
    ]);
    assert.equal(results[1]!.locations[0]!.physicalLocation.region.startLine, 57, 'located on the dump line where thread 7 waits');
    golden('check.sarif', sarifText);
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

test('the action\'s step with its defaults: the whole workspace, not strict; a version input names the package', () => {
  const dir = workspace();
  try {
    rmSync(join(dir, 'dumps', 'abba.expect.json'));
    const run = runStep(dir, { version: 'latest' });
    assert.equal(run.code, 0, run.stdout + run.stderr);
    assert.deepEqual(run.npxArgs, ['--yes', '--package=waitgraph@latest', '--', 'waitgraph', 'check', '--format', 'github', '--sarif', 'waitgraph.sarif', '--', '.']);
    assert.match(run.stdout, /^::notice title=waitgraph check::2 matched, 0 mismatched, 2 unchecked/m);
    const bad = runStep(dir, { strict: 'yes' });
    assert.equal(bad.code, 2);
    assert.match(bad.stdout, /^::error title=waitgraph::the strict input must be true or false$/m);
    assert.deepEqual(bad.npxArgs, [], 'nothing is run');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

interface Workflow {
  permissions: Record<string, string>;
  jobs: Record<string, { steps: Array<{ uses?: string; with?: Record<string, string>; if?: string }> }>;
}

test('README: the workflow is fixtures/action/workflow.yml, which uses the action\'s inputs and uploads its SARIF', () => {
  const readme = readFileSync(join(ROOT, 'README.md'), 'utf8');
  const file = readFileSync(WORKFLOW, 'utf8');
  const block = /```yaml\n(# \.github\/workflows\/waitgraph\.yml[\s\S]*?)```/.exec(readme)?.[1];
  assert.ok(block, 'README has the workflow block');
  assert.equal(block, file, 'the README block is fixtures/action/workflow.yml');
  const workflow = parse(file) as Workflow;
  assert.equal(workflow.permissions['security-events'], 'write', 'code scanning uploads need security-events: write');
  const steps = Object.values(workflow.jobs).flatMap((job) => job.steps);
  const check = steps.find((s) => /\/waitgraph@/.test(s.uses ?? ''));
  assert.ok(check, 'a step uses the action');
  for (const key of Object.keys(check.with ?? {})) assert.ok(key in action.inputs, `the workflow passes ${key}, an input of the action`);
  const upload = steps.find((s) => s.uses?.startsWith('github/codeql-action/upload-sarif@'));
  assert.ok(upload, 'a step uploads the SARIF');
  assert.equal(upload.with?.['sarif_file'], check.with?.['sarif'] ?? action.inputs['sarif']!.default);
  assert.match(upload.if ?? '', /failure\(\)/, 'it uploads when the check fails too');
  assert.ok(steps.indexOf(upload) > steps.indexOf(check));
  // The two lines the README names for the upload are the workflow's.
  assert.ok(readme.includes('uses: github/codeql-action/upload-sarif@v3\n') && readme.includes('sarif_file: waitgraph.sarif'));
});
