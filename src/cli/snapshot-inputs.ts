/**
 * `analyze` over snapshots of one process: `--snapshots` (the inputs are snapshots, in order), or
 * several dumps recognised as one process's (the same LWPs and pthread addresses, in one file or
 * across files). The motion needs every frame, so inputs whose frames the report did not need are
 * read again with them.
 */
import { UsageError, InputError } from '../errors.js';
import type { Analysis } from '../model/analysis.js';
import type { Dump } from '../model/dump.js';
import { analyzeSeries, differentProcess, looksLikeSnapshots, snapshotThreads, splitDump } from '../analyze/snapshots/index.js';

export interface ReadInput {
  /** The name reports show (the redacted label for --redact). */
  shown: string;
  analysis: Analysis;
  /** True when the analysis kept every frame of the dump. */
  framesKept: boolean;
  /** The file as resolved (`-` for standard input): the same file named twice is not two snapshots. */
  path: string;
}

export interface SeriesReader {
  /** The dump of an input with every frame (read again when its frames were dropped), or null for standard input. */
  withFrames(index: number): Promise<Dump | null>;
  /** Analyses one snapshot's dump (frames kept) with the run's rules. */
  analyze(dump: Dump): Analysis;
  /** --interval: seconds between snapshots, or null. */
  interval: number | null;
}

/** `--interval 1.5` → 1.5 (0.05 to 3600 s). */
export function parseInterval(text: string, option = '--interval'): number {
  if (!/^\d{1,4}(?:\.\d{1,3})?$/.test(text) || Number(text) < 0.05 || Number(text) > 3600) throw new UsageError(`${option} takes seconds (0.05 to 3600), not ${JSON.stringify(text)}`);
  return Number(text);
}

/** --snapshots: every input is a snapshot (or several, cut as split.ts cuts), in order. */
export async function givenSnapshots(inputs: readonly ReadInput[], reader: SeriesReader): Promise<ReadInput> {
  const pieces: Array<{ dump: Dump; shown: string }> = [];
  let times: number[] | null = null;
  for (let i = 0; i < inputs.length; i++) {
    const dump = await reader.withFrames(i);
    if (dump === null) throw new InputError('--snapshots: internal: frames of standard input were not kept');
    const split = splitDump(dump);
    if (split !== null && inputs.length === 1) times = split.times;
    for (const d of split?.snapshots ?? [dump]) pieces.push({ dump: d, shown: (inputs[i] as ReadInput).shown });
  }
  if (pieces.length < 2) throw new UsageError('--snapshots needs two dumps of one process or more (give several files, or one file with several `thread apply all bt`)');
  for (let i = 1; i < pieces.length; i++) {
    const a = pieces[i - 1] as (typeof pieces)[number];
    const b = pieces[i] as (typeof pieces)[number];
    const why = differentProcess(a.dump, b.dump);
    if (why !== null) {
      const where = a.shown === b.shown ? `${a.shown} holds dumps` : `${a.shown} and ${b.shown} are dumps`;
      throw new InputError(`--snapshots: ${where} of two different processes (${why}); snapshots must be of one process`);
    }
  }
  if (reader.interval !== null) times = pieces.slice(1).map(() => reader.interval as number);
  const analysis = analyzeSeries(pieces.map((p) => p.dump), reader.analyze, { times, how: 'given' });
  return { shown: inputs.map((r) => r.shown).join(', '), analysis, framesKept: true, path: inputs.map((r) => r.path).join('\n') };
}

/**
 * Without --snapshots: inputs that are snapshots of one process are read as such (with a note);
 * the rest stay as they were. All inputs form one series when each next one looks like the same
 * process; otherwise each input that holds several snapshots is one series of its own.
 */
export async function recogniseSnapshots(inputs: readonly ReadInput[], reader: SeriesReader): Promise<ReadInput[]> {
  // Detection reads thread headers only, which every analysis keeps.
  const splits = inputs.map((r) => splitDump(r.analysis.dump));
  const firstOf = (i: number): Dump => splits[i]?.snapshots[0] ?? (inputs[i] as ReadInput).analysis.dump;
  const lastOf = (i: number): Dump => {
    const s = splits[i]?.snapshots;
    return s ? (s[s.length - 1] as Dump) : (inputs[i] as ReadInput).analysis.dump;
  };
  // One file named twice is one instant shown twice, not two snapshots.
  let across = inputs.length > 1 && new Set(inputs.map((r) => r.path)).size === inputs.length;
  for (let i = 1; i < inputs.length && across; i++) across = looksLikeSnapshots(snapshotThreads(lastOf(i - 1)), snapshotThreads(firstOf(i)));
  if (across) {
    const series = await seriesOf(inputs.map((_, i) => i), inputs, reader);
    return series === null ? [...inputs] : [series];
  }
  const out: ReadInput[] = [];
  for (let i = 0; i < inputs.length; i++) {
    const input = inputs[i] as ReadInput;
    out.push(splits[i] ? ((await seriesOf([i], inputs, reader)) ?? input) : input);
  }
  return out;
}

async function seriesOf(indexes: number[], inputs: readonly ReadInput[], reader: SeriesReader): Promise<ReadInput | null> {
  const dumps: Dump[] = [];
  let times: number[] | null = null;
  // attach --save-dump's marker lines say the input is snapshots: as given as --snapshots.
  let how: 'given' | 'recognised' = 'recognised';
  for (const i of indexes) {
    const dump = await reader.withFrames(i);
    if (dump === null) {
      // Standard input cannot be read twice: it stays one dump, and the report says what it holds.
      const input = inputs[i] as ReadInput;
      const count = splitDump(input.analysis.dump)?.snapshots.length ?? 1;
      input.analysis.notes.push(
        `This input looks like ${count > 1 ? `${count} snapshots` : 'a snapshot'} of one process (the same LWPs and pthread addresses); read from standard input it is analysed as one dump. Give it as a file, or add --snapshots, to compare the snapshots.`,
      );
      return null;
    }
    const split = splitDump(dump);
    if (split !== null && indexes.length === 1) {
      times = split.times;
      if (split.how === 'markers') how = 'given';
    }
    for (const d of split?.snapshots ?? [dump]) dumps.push(d);
  }
  if (dumps.length < 2) return null;
  if (reader.interval !== null) times = dumps.slice(1).map(() => reader.interval as number);
  const analysis = analyzeSeries(dumps, reader.analyze, { times, how });
  return { shown: indexes.map((i) => (inputs[i] as ReadInput).shown).join(', '), analysis, framesKept: true, path: indexes.map((i) => (inputs[i] as ReadInput).path).join('\n') };
}
