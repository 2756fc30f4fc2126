/**
 * `npm run fixtures:capture`: re-captures every test program's dump into fixtures/live —
 * `<name>.txt` with libc debug symbols, `<name>.nodebug.txt` with them hidden — so the dump-only
 * tests also run where gdb cannot attach, and writes each one's `check` sidecar
 * (`<name>.expect.json`) from what the catalogue says the text must get (programs.ts, never from
 * what waitgraph says of it). A program whose telling shape only some instants show
 * (spec.catches) is captured again until one does. Does nothing unless run with `--write` (node's
 * test runner loads every file under dist/test, and this must not capture during `npm test`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROGRAMS, WAIT_ZOO, type ProgramSpec } from './programs.js';
import { buildPrograms, captureBacktraces, captureProgram, LIVE_FIXTURES, liveSkipReason, normaliseCapture, withProgram } from './harness.js';
import { writeZooCaptures, ZOOS } from '../rules/zoos.js';

/** The sidecar `waitgraph check` holds a captured dump to, as `check --update` writes it. */
export function sidecarFor(spec: Pick<ProgramSpec, 'textVerdict'>): string {
  return `{"verdict": "${spec.textVerdict}", "cycles": []}\n`;
}

async function captureOne(spec: ProgramSpec, hideLibcDebug: boolean, log: (line: string) => void): Promise<string> {
  const wanted = hideLibcDebug ? spec.catches?.nodebug : spec.catches?.debug;
  const attempts = wanted ? (spec.catches?.attempts ?? 1) : 1;
  for (let attempt = 1; attempt <= attempts; attempt++) {
    const text = await withProgram(spec.name, (p) => captureProgram(spec, p.pid, { hideLibcDebug }));
    if (!wanted || wanted(text)) {
      if (wanted) log(`${spec.name}${hideLibcDebug ? ' (no libc debug info)' : ''}: ${spec.catches?.what} on attempt ${attempt}`);
      return text;
    }
  }
  throw new Error(`${spec.name}: ${attempts} captures and none caught ${spec.catches?.what}`);
}

export async function captureAll(log: (line: string) => void, only: string[] = []): Promise<void> {
  const unknown = only.filter((name) => name !== WAIT_ZOO && !PROGRAMS.some((p) => p.name === name) && !ZOOS.some((z) => z.name === name));
  // A misspelt name would otherwise capture nothing and say nothing.
  if (unknown.length > 0) throw new Error(`no program or zoo named ${unknown.join(', ')}`);
  const reason = await liveSkipReason();
  if (reason) throw new Error(`cannot capture: ${reason}`);
  const dir = await buildPrograms();
  for (const spec of PROGRAMS) {
    if (only.length > 0 && !only.includes(spec.name)) continue;
    const full = await captureOne(spec, false, log);
    const bare = await captureOne(spec, true, log);
    writeFileSync(join(LIVE_FIXTURES, `${spec.name}.txt`), normaliseCapture(full, dir));
    writeFileSync(join(LIVE_FIXTURES, `${spec.name}.nodebug.txt`), normaliseCapture(bare, dir));
    for (const variant of ['', '.nodebug']) writeFileSync(join(LIVE_FIXTURES, `${spec.name}${variant}.expect.json`), sidecarFor(spec));
    log(`captured ${spec.name}`);
  }
  if (only.length === 0 || only.includes(WAIT_ZOO)) {
    await withProgram(WAIT_ZOO, async (p) => {
      writeFileSync(join(LIVE_FIXTURES, `${WAIT_ZOO}.txt`), normaliseCapture(await captureBacktraces(p.pid), dir));
      writeFileSync(join(LIVE_FIXTURES, `${WAIT_ZOO}.nodebug.txt`), normaliseCapture(await captureBacktraces(p.pid, { hideLibcDebug: true }), dir));
      log(`captured ${WAIT_ZOO} (pid ${p.pid})`);
    });
  }
  // The rule packs' wait zoos (Rust, OpenMP, …): test/rules/zoos.ts.
  await writeZooCaptures(log, only);
}

// `npm run fixtures:capture -- NAME …` re-captures only those programs and zoos.
if (process.argv.includes('--write')) {
  await captureAll((line) => console.log(line), process.argv.slice(2).filter((a) => !a.startsWith('--')));
}
