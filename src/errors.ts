/**
 * Known errors: each prints as one line on stderr and exits 2. Anything else that escapes is a
 * bug, printed with a "please report" line (see cli/main.ts). Tests check `code`, not wording.
 */
export type ErrorCode = 'E_USAGE' | 'E_INPUT' | 'E_RULE' | 'E_GDB' | 'E_OUTPUT';

export class WaitgraphError extends Error {
  readonly code: ErrorCode;
  constructor(code: ErrorCode, message: string) {
    super(message);
    this.code = code;
    this.name = new.target.name;
  }
}

/** Wrong words on the command line: unknown option, bad --format, missing argument. */
export class UsageError extends WaitgraphError {
  constructor(message: string) {
    super('E_USAGE', message);
  }
}

/** Input that cannot be analysed: missing file, a directory, binary data, no backtrace at all. */
export class InputError extends WaitgraphError {
  constructor(message: string) {
    super('E_INPUT', message);
  }
}

/** A rule file that does not load: invalid YAML, unknown field, a pattern that could be slow. */
export class RuleError extends WaitgraphError {
  constructor(message: string) {
    super('E_RULE', message);
  }
}

/** gdb missing, a pid that cannot be traced, a core without its binary. */
export class GdbError extends WaitgraphError {
  constructor(message: string) {
    super('E_GDB', message);
  }
}

/** The report cannot be written: a full disk, a closed or failing standard output. */
export class OutputError extends WaitgraphError {
  constructor(message: string) {
    super('E_OUTPUT', message);
  }
}
