/**
 * The parser's public face: gdb text in, the Dump model out (src/model/dump.ts). Streams: text is
 * pushed in chunks of any size, cut into classified logical lines (stage A), gathered into
 * records at safe boundaries (a thread header, a prompt, or a size cap) and each record parsed by
 * the one Chevrotain parser (stage B). Never throws on input.
 */
import type { Backtrace, Dump } from '../model/dump.js';
import { DumpBuilder } from './builder.js';
import { backtraceParser } from './parser.js';
import { Kind, LineReader, type LogicalLine } from './lines.js';
import { asToken, FrameRun } from './tokens.js';

export interface ParseOptions {
  /**
   * Called with each backtrace as soon as it is complete, in input order — except partial views
   * (`source` set: an `info threads` row, a frame gdb echoed on `thread N`), which are held until
   * their thread's backtrace arrives or the input ends. `index` counts calls. The returned Dump
   * lists every backtrace in input order.
   */
  onBacktrace?: (bt: Backtrace, index: number) => void;
  /**
   * false: after `onBacktrace` saw a backtrace, its frames are dropped from the returned Dump
   * (thread, startLine, truncated stay), so memory stays bounded on huge dumps.
   */
  keepFrames?: boolean;
  /**
   * false: every frame line reaches the grammar as its own FrameLine token, never inside a
   * FrameRun. The result is the same either way (test/parse/fast-paths.test.ts checks it); runs
   * are only faster.
   */
  frameRuns?: boolean;
}

/** Records are cut at the latest after this many lines, so memory does not grow with input. */
const MAX_RECORD_LINES = 2048;
/** A FrameRun token holds at most this many frame lines (a record seam may also end it). */
const MAX_RUN_LINES = 256;

export class DumpParser {
  private readonly builder: DumpBuilder;
  private readonly reader: LineReader;
  private tokens: LogicalLine[] = [];
  /** Logical lines in `tokens` (a FrameRun token holds several). */
  private recordLines = 0;
  /** The FrameRun or FrameLine token that the next frame line may extend, or null. */
  private runHead: LogicalLine | null = null;
  /** Level of the last frame line of `runHead`. */
  private runLevel = -1;
  private done: Dump | null = null;
  private readonly frameRuns: boolean;

  constructor(options: ParseOptions = {}) {
    this.builder = new DumpBuilder(options);
    this.frameRuns = options.frameRuns !== false;
    // Frames dropped after onBacktrace are read only by it: their arguments can wait until read.
    this.reader = new LineReader((line) => this.take(line), options.keepFrames === false);
  }

  /** Feeds a chunk; boundaries may fall anywhere (mid-line, mid-CRLF, mid-pager-prompt). */
  push(chunk: string): void {
    if (this.done !== null) return;
    this.reader.push(chunk);
  }

  /** Flushes and returns the Dump. Calling it again returns the same Dump. */
  end(): Dump {
    if (this.done !== null) return this.done;
    this.reader.end();
    this.flush();
    this.builder.end(this.reader.endedMidLine);
    this.done = this.builder.toDump(this.reader.lines);
    if (this.reader.capped.length > 0) this.done.capped = this.reader.capped;
    return this.done;
  }

  private take(line: LogicalLine): void {
    // Safe seams: before a header or a prompt nothing of the previous record can continue.
    // (Cutting only every few hundred lines was tried: no faster, and more young objects live.)
    if (this.tokens.length > 0 && (line.kind === Kind.Header || line.kind === Kind.Prompt || this.recordLines >= MAX_RECORD_LINES)) {
      this.flush();
    }
    this.recordLines++;
    if (line.kind === Kind.Frame) {
      // A frame line right after a frame line, one level further out: it joins that token's run.
      // The parser then sees one FrameRun token where it would see FrameLine, FrameLine, …; the
      // builder gets the same frame calls in the same order (levels rise, so each continues).
      const head = this.runHead;
      if (head !== null && line.level > this.runLevel && (head.run === null || head.run.length < MAX_RUN_LINES - 1)) {
        if (head.run === null) {
          head.run = [];
          head.tokenType = FrameRun;
          head.tokenTypeIdx = FrameRun.tokenTypeIdx!;
        }
        head.run.push(line);
        this.runLevel = line.level;
        return;
      }
      this.tokens.push(asToken(line));
      this.runHead = this.frameRuns ? line : null;
      this.runLevel = line.level;
      return;
    }
    this.runHead = null;
    this.tokens.push(asToken(line));
  }

  /** The logical lines of a record's tokens, a FrameRun token's lines in order. */
  private linesOf(tokens: LogicalLine[]): LogicalLine[] {
    const lines: LogicalLine[] = [];
    for (const token of tokens) {
      lines.push(token);
      if (token.run !== null) lines.push(...token.run);
    }
    return lines;
  }

  private flush(): void {
    if (this.tokens.length === 0) return;
    const parser = backtraceParser();
    try {
      parser.parseRecord(this.tokens, this.builder);
    } catch {
      // A bug, not an input problem (the grammar accepts every token sequence and the builder
      // never throws by design). Parsing must not throw: keep every line of the record visible.
      for (const token of this.linesOf(this.tokens)) this.builder.other(token);
      this.clearRecord();
      return;
    }
    const errors = parser.recordErrors;
    if (errors.length > 0) {
      // The grammar accepts every token sequence; should that ever fail, no line may be lost:
      // what the parser did not reach is handed over as unrecognised lines.
      const at = this.tokens.indexOf(errors[0]!.token as LogicalLine);
      for (const token of this.linesOf(this.tokens.slice(at < 0 ? this.tokens.length : at))) this.builder.other(token);
    }
    this.clearRecord();
  }

  private clearRecord(): void {
    this.tokens = [];
    this.recordLines = 0;
    this.runHead = null;
    this.runLevel = -1;
  }
}

/** Parses a whole text. Never throws. */
export function parseDump(text: string): Dump {
  const parser = new DumpParser();
  parser.push(text);
  return parser.end();
}

/** Parses a stream of chunks (strings, or UTF-8 Buffers decoded across chunk boundaries). */
export async function parseDumpStream(chunks: AsyncIterable<string | Buffer>, options: ParseOptions = {}): Promise<Dump> {
  const parser = new DumpParser(options);
  const decoder = new TextDecoder('utf-8', { fatal: false });
  for await (const chunk of chunks) {
    parser.push(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
  }
  const tail = decoder.decode();
  if (tail) parser.push(tail);
  return parser.end();
}
