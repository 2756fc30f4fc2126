/**
 * Stage B: the Chevrotain parser over line-shaped tokens (tokens.ts). Its rules are the document
 * structure of gdb output; the written grammar is grammar/gdb-backtrace.ebnf, with the same rule
 * names (test/parse/grammar.test.ts keeps the two in step). The parser is built once and reused;
 * each rule hands what it read to a DumpBuilder through embedded actions.
 */
import { EmbeddedActionsParser, type IOrAlt, type IRecognitionException, type IToken } from './chevrotain.js';
import type { DumpBuilder } from './builder.js';
import {
  allTokens,
  BacktraceStopped,
  BlankLine,
  ElisionMarker,
  FrameLine,
  FrameRun,
  LocalLine,
  LocalsMarker,
  MarkerLine,
  MoreFramesFollow,
  NoiseLine,
  OtherLine,
  PrintAnswer,
  PromptLine,
  RegisterRow,
  SourceLine,
  QuitLine,
  ThreadHeader,
  ThreadSwitch,
  InfoThreadsRow,
} from './tokens.js';
import type { LogicalLine } from './lines.js';

/** What Chevrotain's recording phase uses of a parser, beyond its typings (chevrotain 11, recorder.ts). */
interface RecordingHooks {
  RECORDING_PHASE: boolean;
  enableRecording(): void;
}
const chevrotainRecording = EmbeddedActionsParser.prototype as unknown as RecordingHooks;

/** Tokens are the logical lines themselves (see lines.ts). */
function payload(token: IToken): LogicalLine {
  return token as LogicalLine;
}

export class BacktraceParser extends EmbeddedActionsParser {
  /** Receives the parse events of the current record; set before each `document()` call. */
  builder: DumpBuilder | null = null;

  /**
   * `validate: false` skips Chevrotain's grammar validations in the self-analysis, ~4 ms of every
   * start (issue 7, figure 4); the shared instance does, and test/parse/parser.test.ts
   * builds a validating one so a grammar error still fails the tests.
   */
  constructor(options: { validate?: boolean } = {}) {
    super(allTokens, { recoveryEnabled: false, maxLookahead: 1, skipValidations: options.validate === false });
    this.performSelfAnalysis();
  }

  /**
   * Chevrotain records the grammar (performSelfAnalysis) with ~90 recording methods (`CONSUME1`,
   * `OR2`, …) that its enableRecording puts on the parser itself, and its disableRecording deletes
   * them one by one; each delete copies the parser's ~160-property map, ~25 µs each, ~2.5 ms of
   * every start (issue 18, figure 4). Here Chevrotain's own enableRecording puts them on an object
   * put between the parser and its prototype, and disableRecording takes that object out of the
   * chain again: the same methods while recording, none after (test/parse/parser.test.ts).
   */
  enableRecording(): void {
    const layer = Object.create(Object.getPrototypeOf(this) as object) as RecordingHooks;
    chevrotainRecording.enableRecording.call(layer);
    Object.setPrototypeOf(this, layer);
    (this as unknown as RecordingHooks).RECORDING_PHASE = true;
  }

  disableRecording(): void {
    Object.setPrototypeOf(this, Object.getPrototypeOf(Object.getPrototypeOf(this) as object) as object);
    (this as unknown as RecordingHooks).RECORDING_PHASE = false;
  }

  /**
   * The errors of the parse `parseRecord` ran last. Chevrotain's own `errors` getter returns a
   * copy made by lodash's `clone`, which cost ~40 ms of CPU over the 10,000 records of the 30 MB
   * bench dump in the CLI (once per record; seen in two CLI profiles). The list handed to the
   * `errors` setter is the one Chevrotain records into (test/parse/grammar.test.ts checks it).
   */
  readonly recordErrors: IRecognitionException[] = [];

  /** Parses one record (a token list) into the builder; `recordErrors` holds what failed. */
  parseRecord(tokens: IToken[], builder: DumpBuilder): void {
    this.builder = builder;
    this.input = tokens;
    this.recordErrors.length = 0;
    this.errors = this.recordErrors;
    try {
      this.document();
    } finally {
      this.builder = null;
    }
  }

  /**
   * The builder when actions run; null while Chevrotain records the grammar. Used instead of
   * `this.ACTION(() => …)` so that no closure is allocated per token.
   */
  private get act(): DumpBuilder | null {
    return this.RECORDING_PHASE ? null : this.builder;
  }

  // Alternatives are built once per parser (Chevrotain's advice): `this.OR([...])` with a fresh
  // array would allocate on every call, i.e. several objects per input line.
  private altsDocument?: IOrAlt<void>[];
  private altsBacktraceStart?: IOrAlt<void>[];
  private altsBacktraceLine?: IOrAlt<void>[];
  private altsFrame?: IOrAlt<void>[];
  private altsLocals?: IOrAlt<void>[];
  /** The `first` argument of the frameBlock being parsed (the alternatives are built once). */
  private frameFirst = false;
  private altsTrailer?: IOrAlt<void>[];
  private altsInterlude?: IOrAlt<void>[];
  private altsLooseLine?: IOrAlt<void>[];
  private manyBacktrace?: { GATE: () => boolean; DEF: () => void };

  /**
   * The whole input: backtraces, and the lines between them that belong to none — a bug report
   * from its title (`Deadlock with autodiff_deferred`) to its last line.
   */
  document = this.RULE('document', () => {
    this.MANY(() => {
      this.OR((this.altsDocument ??= [{ ALT: () => this.SUBRULE(this.backtrace) }, { ALT: () => this.SUBRULE(this.looseLine) }]));
    });
  });

  /**
   * `Thread 9 (Thread 0x7840ebe006c0 (LWP 45438) "julia"):` and its frames, or a plain `bt`
   * starting at `#0  jl_gc_wait_for_the_world (…)`. A frame whose level does not go on starts
   * the next backtrace (gated on the builder's last level).
   */
  backtrace = this.RULE('backtrace', () => {
    this.OR(
      (this.altsBacktraceStart ??= [
        { ALT: () => this.SUBRULE(this.threadHeader) },
        { ALT: () => this.SUBRULE(this.frameBlock, { ARGS: [true] }) },
      ]),
    );
    this.MANY(
      (this.manyBacktrace ??= {
        GATE: () => {
          const next = this.LA(1) as LogicalLine;
          return (next.tokenType !== FrameLine && next.tokenType !== FrameRun) || this.builder === null || this.builder.continues(next.level);
        },
        DEF: () => this.SUBRULE(this.backtraceLine),
      }),
    );
  });

  /** `Thread 12 (Thread 0x7840dfe006c0 (LWP 45441) "julia"):` */
  threadHeader = this.RULE('threadHeader', () => {
    const token = this.CONSUME(ThreadHeader);
    this.act?.header(payload(token));
  });

  /**
   * What may follow inside a backtrace: frames (`#1  0x000078411e054ed9 in pthread_cond_wait ()
   * from /usr/lib/libc.so.6`), elisions, trailers, blank and noise lines.
   */
  backtraceLine = this.RULE('backtraceLine', () => {
    this.OR(
      (this.altsBacktraceLine ??= [
        { ALT: () => this.SUBRULE(this.frameBlock, { ARGS: [false] }) },
        { ALT: () => this.SUBRULE(this.elision) },
        { ALT: () => this.SUBRULE(this.trailer) },
        { ALT: () => this.SUBRULE(this.interlude) },
      ]),
    );
  });

  /**
   * `#1  ijl_gc_collect (collection=collection@entry=JL_GC_AUTO) at …/src/gc.c:3508` and its `bt full`
   * locals; or a run of frame lines with rising levels (one token instead of one per line: the
   * common case of a plain `thread apply all bt`), the locals then belonging to its last frame.
   */
  frameBlock = this.RULE('frameBlock', (first: boolean) => {
    this.frameFirst = first;
    this.OR(
      (this.altsFrame ??= [
        {
          ALT: () => {
            const token = this.CONSUME(FrameLine);
            this.act?.frame(payload(token), this.frameFirst);
          },
        },
        {
          ALT: () => {
            const token = this.CONSUME(FrameRun);
            this.act?.frameRun(payload(token), this.frameFirst);
          },
        },
      ]),
    );
    this.OPTION(() => this.SUBRULE(this.locals));
  });

  /** `        cfg = {` … `        }` / `        i = 0`, or `No locals.` */
  locals = this.RULE('locals', () => {
    this.OR(
      (this.altsLocals ??= [
        {
          ALT: () => {
            const token = this.CONSUME(LocalsMarker);
            this.act?.localsMarker(payload(token));
          },
        },
        {
          ALT: () => {
            this.AT_LEAST_ONE(() => {
              const token = this.CONSUME(LocalLine);
              this.act?.local(payload(token));
            });
          },
        },
      ]),
    );
  });

  /** `...` between `#2` and `#156`: frames a person cut out. */
  elision = this.RULE('elision', () => {
    const token = this.CONSUME(ElisionMarker);
    this.act?.elision(payload(token));
  });

  /**
   * `(More stack frames follow...)`, `Backtrace stopped: Cannot access memory at address 0x0`,
   * `Quit`, and a dialect's marker inside a backtrace (Julia's `(sticky: 1, started: 1, state: 0, tid: 7)`)
   */
  trailer = this.RULE('trailer', () => {
    this.OR(
      (this.altsTrailer ??= [
        {
          ALT: () => {
            const token = this.CONSUME(MarkerLine);
            this.act?.trailer(payload(token), 'marker');
          },
        },
        {
          ALT: () => {
            const token = this.CONSUME(MoreFramesFollow);
            this.act?.trailer(payload(token), 'more');
          },
        },
        {
          ALT: () => {
            const token = this.CONSUME(BacktraceStopped);
            this.act?.trailer(payload(token), 'stopped');
          },
        },
        {
          ALT: () => {
            const token = this.CONSUME(QuitLine);
            this.act?.trailer(payload(token), 'quit');
          },
        },
      ]),
    );
  });

  /**
   * An empty line, `[New LWP 45431]`, a pager prompt, or gdb's source line
   * (`14\t  std::lock_guard<std::mutex> hold_journal(journal);`): neither ends nor extends a backtrace.
   */
  interlude = this.RULE('interlude', () => {
    this.OR(
      (this.altsInterlude ??= [
        {
          ALT: () => {
            const token = this.CONSUME(BlankLine);
            this.act?.interlude(payload(token));
          },
        },
        {
          ALT: () => {
            const token = this.CONSUME(NoiseLine);
            this.act?.interlude(payload(token));
          },
        },
        {
          ALT: () => {
            const token = this.CONSUME(SourceLine);
            this.act?.sourceLine(payload(token));
          },
        },
      ]),
    );
  });

  /**
   * `$1 = {__data = {__lock = 2, __count = 0, __owner = 20496, …` (a lock and its owner), `$6 = 20595`,
   * `$3 = (pthread_mutex_t *) 0x5555555580a0 <lock_b>`: any answer of gdb's `print`.
   */
  printAnswer = this.RULE('printAnswer', () => {
    const token = this.CONSUME(PrintAnswer);
    this.act?.printAnswer(payload(token));
  });

  /** `rdi            0x7f8529449278      140209899737720` (a row of `info registers`) */
  registerRow = this.RULE('registerRow', () => {
    const token = this.CONSUME(RegisterRow);
    this.act?.registerRow(payload(token));
  });

  /** `(gdb) bt` */
  prompt = this.RULE('prompt', () => {
    const token = this.CONSUME(PromptLine);
    this.act?.prompt(payload(token));
  });

  /** `[Switching to thread 2 (Thread 0x7ffff7a00640 (LWP 5151))]`: the thread a following plain `bt` belongs to. */
  threadSwitch = this.RULE('threadSwitch', () => {
    const token = this.CONSUME(ThreadSwitch);
    this.act?.threadSwitch(payload(token));
  });

  /**
   * `* 1    Thread 0x7ffff7d8a740 (LWP 5150) "app"     0x00007ffff7e8e7ed in __pthread_clockjoin_ex () from /lib/libc.so.6`:
   * a thread and its current frame, kept for threads no backtrace shows.
   */
  infoThreadsRow = this.RULE('infoThreadsRow', () => {
    const token = this.CONSUME(InfoThreadsRow);
    this.act?.threadRow(payload(token));
  });

  /**
   * A line outside any backtrace: prose (`The two locks involved are:`), prompts, print answers, register rows, and
   * stray locals or trailers (the builder attaches those to a backtrace left open at a record seam).
   */
  looseLine = this.RULE('looseLine', () => {
    this.OR(
      (this.altsLooseLine ??= [
        { ALT: () => this.SUBRULE(this.prompt) },
        { ALT: () => this.SUBRULE(this.printAnswer) },
        { ALT: () => this.SUBRULE(this.threadSwitch) },
        { ALT: () => this.SUBRULE(this.infoThreadsRow) },
        { ALT: () => this.SUBRULE(this.registerRow) },
        { ALT: () => this.SUBRULE(this.locals) },
        { ALT: () => this.SUBRULE(this.elision) },
        { ALT: () => this.SUBRULE(this.trailer) },
        { ALT: () => this.SUBRULE(this.interlude) },
        {
          ALT: () => {
            const token = this.CONSUME(OtherLine);
            this.act?.other(payload(token));
          },
        },
      ]),
    );
  });
}

let shared: BacktraceParser | null = null;

/** The one parser instance (building a Chevrotain parser is costly; parsing is synchronous). */
export function backtraceParser(): BacktraceParser {
  shared ??= new BacktraceParser({ validate: false });
  return shared;
}
