/**
 * `npm run fixtures:capture`: re-captures every test program's dump into fixtures/live —
 * `<name>.txt` with libc debug symbols, `<name>.nodebug.txt` with them hidden — so the dump-only
 * tests also run where gdb cannot attach. Does nothing unless run with `--write` (node's test
 * runner loads every file under dist/test, and this must not capture during `npm test`).
 */
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROGRAMS, WAIT_ZOO } from './programs.js';
import { buildPrograms, captureBacktraces, LIVE_FIXTURES, liveSkipReason, normaliseCapture, withProgram } from './harness.js';
import { writeZooCaptures } from '../rules/zoos.js';

export async function captureAll(log: (line: string) => void): Promise<void> {
  const reason = await liveSkipReason();
  if (reason) throw new Error(`cannot capture: ${reason}`);
  const dir = await buildPrograms();
  for (const name of [...PROGRAMS.map((p) => p.name), WAIT_ZOO]) {
    await withProgram(name, async (p) => {
      const full = await captureBacktraces(p.pid);
      const bare = await captureBacktraces(p.pid, { hideLibcDebug: true });
      writeFileSync(join(LIVE_FIXTURES, `${name}.txt`), normaliseCapture(full, dir));
      writeFileSync(join(LIVE_FIXTURES, `${name}.nodebug.txt`), normaliseCapture(bare, dir));
      log(`captured ${name} (pid ${p.pid})`);
    });
  }
  // The rule packs' wait zoos (Rust, OpenMP, …): test/rules/zoos.ts.
  await writeZooCaptures(log);
}

if (process.argv.includes('--write')) {
  await captureAll((line) => console.log(line));
}
