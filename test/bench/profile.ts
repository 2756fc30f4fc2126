/**
 * `npm run bench -- --profile [--quick]`: runs the real CLI once under `node --cpu-prof` on the
 * 30 MB dump (3 MB with --quick) and prints where the time goes: the top functions by self time
 * and by inclusive time (each function counted once per sample, recursion included once).
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';

interface CallFrame {
  functionName: string;
  url: string;
  lineNumber: number;
}
interface ProfileNode {
  id: number;
  callFrame: CallFrame;
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

export interface ProfileSummary {
  totalMs: number;
  self: Array<[string, number]>;
  inclusive: Array<[string, number]>;
}

function label(frame: CallFrame): string {
  const file = frame.url === '' ? '' : frame.url.replace(/^file:\/\//, '').split('/').slice(-2).join('/');
  return `${frame.functionName || '(anonymous)'} ${file}${file ? `:${frame.lineNumber + 1}` : ''}`;
}

/** Self and inclusive time per function (by name and location) of a `.cpuprofile`. */
export function summarizeProfile(profile: CpuProfile): ProfileSummary {
  const byId = new Map(profile.nodes.map((n) => [n.id, n]));
  const parent = new Map<number, number>();
  for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
  const sampleTime = new Map<number, number>();
  profile.samples.forEach((id, i) => sampleTime.set(id, (sampleTime.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0)));
  const self = new Map<string, number>();
  const inclusive = new Map<string, number>();
  let total = 0;
  for (const [id, t] of sampleTime) {
    total += t;
    const node = byId.get(id);
    if (node === undefined) continue;
    const own = label(node.callFrame);
    self.set(own, (self.get(own) ?? 0) + t);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const key = label((byId.get(at) as ProfileNode).callFrame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + t);
    }
  }
  const toMs = (m: Map<string, number>): Array<[string, number]> => [...m].map(([k, v]): [string, number] => [k, v / 1000]).sort((a, b) => b[1] - a[1]);
  return { totalMs: total / 1000, self: toMs(self), inclusive: toMs(inclusive) };
}

/** Runs `run(profileDir)` (which must start node with `--cpu-prof --cpu-prof-dir=profileDir`) and summarises the profile. */
export async function profileRun(dir: string, run: (profileDir: string) => Promise<void>): Promise<ProfileSummary> {
  const profileDir = mkdtempSync(join(dir, 'cpuprof-'));
  try {
    await run(profileDir);
    const file = readdirSync(profileDir).find((f) => f.endsWith('.cpuprofile'));
    if (file === undefined) throw new Error('node wrote no .cpuprofile');
    return summarizeProfile(JSON.parse(readFileSync(join(profileDir, file), 'utf8')) as CpuProfile);
  } finally {
    rmSync(profileDir, { recursive: true, force: true });
  }
}

export function printProfile(summary: ProfileSummary, top = 25): void {
  console.log(`profile: ${summary.totalMs.toFixed(0)} ms sampled`);
  console.log('  self ms   function');
  for (const [k, v] of summary.self.slice(0, top)) console.log(`  ${v.toFixed(0).padStart(7)}   ${k}`);
  console.log('  incl ms   function');
  for (const [k, v] of summary.inclusive.slice(0, top)) console.log(`  ${v.toFixed(0).padStart(7)}   ${k}`);
}
