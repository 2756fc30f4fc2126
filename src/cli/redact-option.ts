/**
 * `--redact [all]`, shared by `analyze` and `parse`, and the text a redacting command reads. The
 * dump is read whole before it is analysed: a user name first seen on line 900 is hidden on
 * line 1 too (analyze/redact/).
 */
import type { Command } from 'commander';
import type { CliIO } from './io.js';
import { readInputChunks } from './read-input.js';
import type { RedactLevel } from '../analyze/redact/index.js';

export const REDACT_HELP =
  'hide home directories, user and host names and string arguments before analysing (same verdict, cycle and signature); `--redact all` also hides the function, file and library names of your own code (frames outside the known runtimes)';

export function addRedactOption(command: Command): Command {
  return command.option('--redact [all]', REDACT_HELP);
}

/**
 * The level `--redact` asks for, and the files: commander reads `--redact dump.txt` as the option's
 * value, so a value other than `all` is the first file.
 */
export function redactLevel(value: string | boolean | undefined, files: readonly string[]): { level: RedactLevel | null; files: string[] } {
  if (value === undefined || value === false) return { level: null, files: [...files] };
  if (value === true || value === 'basic') return { level: 'basic', files: [...files] };
  if (value === 'all') return { level: 'all', files: [...files] };
  return { level: 'basic', files: [value, ...files] };
}

/** The whole input as text (the same checks and decoding as a streamed read). */
export async function readInputText(file: string | undefined, io: CliIO): Promise<string> {
  const parts: string[] = [];
  for await (const chunk of readInputChunks(file, io)) parts.push(chunk);
  return parts.join('');
}

/** A text as the one chunk of a stream (for the stream-reading parser). */
export async function* asChunks(text: string): AsyncGenerator<string> {
  yield text;
}
