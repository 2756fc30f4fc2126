/**
 * Everything a command may touch of the outside world, passed in so commands stay testable and
 * `cli/main.ts` remains the only module that reads `process`.
 */
export interface CliIO {
  /** Write report text to stdout (no newline added). */
  out(text: string): void;
  /** Write a diagnostic line to stderr (no newline added). */
  err(text: string): void;
  /** Standard input as a stream of UTF-8 chunks. */
  stdin: AsyncIterable<string | Buffer>;
  /** Whether stdout / stderr are terminals (colour, progress bars). */
  stdoutIsTTY: boolean;
  /** Whether stdin is a terminal: then a run with no file waits for nobody (analyze hints instead). */
  stdinIsTTY?: boolean;
  /** The terminal's width in columns when stdout is a terminal (the text report wraps to it). */
  stdoutColumns?: number;
  stderrIsTTY: boolean;
  /** Environment (NO_COLOR, FORCE_COLOR, …). */
  env: Readonly<Record<string, string | undefined>>;
  /** Working directory for relative paths. */
  cwd: string;
}

/** Receives the exit code of whichever command's action ran (program.ts reads it after the run). */
export interface ExitSink {
  code: number;
}
