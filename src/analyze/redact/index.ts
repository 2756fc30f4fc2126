/**
 * `--redact`: the dump as it can be attached to a public issue. The text is rewritten line for
 * line (the same lines, so every line number a report cites still points at the same place) and
 * then analysed as any dump; every report is made from the redacted text, so no format can show
 * what redaction took out.
 *
 * What is replaced, each by a stable placeholder (the same text gets the same one, numbered in
 * order of first appearance):
 * - home directories at the start of a path (`/home/alice`, `/Users/alice`, `/root`,
 *   `C:\Users\alice`) → `<home>` (`<home#2>` for a second user's), the rest of the path kept;
 * - the user names found in them, and the user and host of shell prompts, wherever they recur
 *   → `<user>`, `<host>`; host names in banners (`Hostname:`, `uname -a`, syslog lines,
 *   gdbserver) likewise;
 * - string literals (`"…"`) in arguments, locals, prints and other lines → `<str#3>`; a thread's
 *   own name (in its header) stays;
 * - with `all`: the function, file and library names of frames outside the known runtimes
 *   (runtimes.ts) → `<fn#12>`, `<file#2>`, `<lib#1>` wherever they recur (a function pointer's
 *   `<audit()>` too). Data symbols (`<table_lock>`) stay: owner prints name them.
 * Addresses, numbers, thread ids, runtime frames and gdb's own words are kept: the redacted dump
 * re-analyses to the same verdict and cycle (and, without `all`, the same signature), which
 * test/analyze/redact/same-verdict.test.ts holds every fixture to.
 */
import type { Dump, Frame } from '../../model/dump.js';
import type { LoadedRules } from '../../rules/types.js';
import { parseDump } from '../../parse/index.js';
import { discover, homePattern, type Found } from './discover.js';
import { LineEdit } from './line-edit.js';
import { runtimeVocabulary, type RuntimeVocabulary } from './runtimes.js';

/** `basic` (`--redact`): paths, people, machines, strings. `all` (`--redact all`): also the user's own code names. */
export type RedactLevel = 'basic' | 'all';

export interface RedactOptions {
  level: RedactLevel;
  /** The rule set the dump will be analysed with: every name its rules test is kept. */
  rules: LoadedRules;
}

/** How many distinct things each kind of placeholder stands for. */
export type RedactCounts = Record<'home' | 'user' | 'host' | 'str' | 'fn' | 'file' | 'lib', number>;

export interface Redacted {
  text: string;
  /** Backtraces the parser found in the input (0: this is no dump). */
  backtraces: number;
  counts: RedactCounts;
  /** Redacts a text that is not part of the dump but goes into reports (the dump's file name). */
  label(text: string): string;
}

/** `<home>`, `<home#2>`: the first of a kind needs no number. Strings and code names always have one. */
class Placeholders {
  private readonly maps = new Map<keyof RedactCounts, Map<string, number>>();

  number(kind: keyof RedactCounts, value: string): number {
    let map = this.maps.get(kind);
    if (!map) this.maps.set(kind, (map = new Map()));
    let n = map.get(value);
    if (n === undefined) map.set(value, (n = map.size + 1));
    return n;
  }

  /** `<user>`, `<user#2>` (people and machines: usually one). */
  person(kind: 'home' | 'user' | 'host', value: string): string {
    const n = this.number(kind, value);
    return n === 1 ? `<${kind}>` : `<${kind}#${n}>`;
  }

  /** `str#3`, without brackets (a symbol's placeholder goes inside gdb's own `<…>`). */
  bare(kind: 'str' | 'fn' | 'file' | 'lib', value: string): string {
    return `${kind}#${this.number(kind, value)}`;
  }

  counts(): RedactCounts {
    const c = (k: keyof RedactCounts): number => this.maps.get(k)?.size ?? 0;
    return { home: c('home'), user: c('user'), host: c('host'), str: c('str'), fn: c('fn'), file: c('file'), lib: c('lib') };
  }
}

const escapeRe = (s: string): string => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Words that recur as whole words: not inside a longer name (`alice` in `malice` stays). */
function wordsPattern(words: readonly string[]): RegExp | null {
  if (words.length === 0) return null;
  const sorted = [...words].sort((a, b) => b.length - a.length || (a < b ? -1 : 1));
  return new RegExp(`(?<![A-Za-z0-9])(?:${sorted.map(escapeRe).join('|')})(?![A-Za-z0-9])`, 'g');
}

/** A string literal, or a char literal (kept: one character, and `'"'` must not open a string). */
const literalPattern = (): RegExp => /'(?:\\[0-7]{1,3}|\\x[0-9a-fA-F]+|\\.|[^'\\])'|"(?:[^"\\]|\\.)*(?:"|$)/g;

/** A symbol gdb prints after an address: `0x… <table_lock>`, `0x… <worker_a+16>`, `0x… <fill_cache()>`. */
const symbolPattern = (): RegExp => /(?<=0x[0-9a-fA-F]+ )<([A-Za-z_][\w:.$]*(?:\(\))?)(\+\d+)?>/g;

/** An identifier, possibly qualified (`ns::Cls::run`): where a redacted function name recurs. */
const identifierPattern = (): RegExp => /(?<![\w$])[A-Za-z_$][\w$]*(?:::~?[A-Za-z_$][\w$]*)*(?![\w$])/g;

interface LineRoles {
  /** Frames starting on each line (several when gdb glued them). */
  frames: Map<number, Frame[]>;
  /** Continuation lines of a frame → the frame. */
  frameParts: Map<number, Frame>;
  /** Thread names (headers, signal lines, info-threads rows show them quoted). */
  threadNames: Set<string>;
  /** Lines of values: `bt full` locals and prints (their strings are arguments' kin). */
  values: Set<number>;
}

function rolesOf(dump: Dump): LineRoles {
  const frames = new Map<number, Frame[]>();
  const frameParts = new Map<number, Frame>();
  const threadNames = new Set<string>();
  const values = new Set<number>();
  for (const bt of dump.backtraces) {
    if (bt.thread?.name) threadNames.add(bt.thread.name);
    for (const f of bt.frames) {
      const list = frames.get(f.sourceLine);
      if (list) list.push(f);
      else frames.set(f.sourceLine, [f]);
      for (const l of f.continuationLines ?? []) frameParts.set(l, f);
      for (const local of f.locals ?? []) for (const l of [local.sourceLine, ...(local.continuationLines ?? [])]) values.add(l);
    }
  }
  for (const hint of dump.ownerHints) for (const l of [hint.sourceLine, ...(hint.continuationLines ?? [])]) values.add(l);
  return { frames, frameParts, threadNames, values };
}

/** Physical lines as the parser numbers them (LF, or CR alone for classic-Mac text), with their ends. */
function physicalLines(text: string): { bodies: string[]; ends: string[] } {
  const sep = text.includes('\n') ? '\n' : text.includes('\r') ? '\r' : '\n';
  const raw = text.split(sep);
  const bodies: string[] = [];
  const ends: string[] = [];
  raw.forEach((piece, i) => {
    const last = i === raw.length - 1;
    const cr = sep === '\n' && piece.endsWith('\r');
    bodies.push(cr ? piece.slice(0, -1) : piece);
    ends.push(last ? '' : cr ? '\r\n' : sep);
  });
  return { bodies, ends };
}

class Redactor {
  private readonly ph = new Placeholders();
  private readonly home = homePattern();
  private readonly literals = literalPattern();
  private readonly symbols = symbolPattern();
  private readonly identifiers = identifierPattern();
  private readonly people: RegExp | null;
  private readonly homeIndex: Map<string, string>;
  /** `all`: the function names of frames outside the runtimes. */
  private readonly hiddenFunctions = new Set<string>();

  constructor(
    private readonly found: Found,
    private readonly level: RedactLevel,
    private readonly vocabulary: RuntimeVocabulary,
    private readonly roles: LineRoles,
    bodies: readonly string[],
  ) {
    this.people = wordsPattern([...found.hosts, ...found.users]);
    this.homeIndex = new Map(found.homes.map((u) => [u, u]));
    // Numbered in the order they were found, so `<home#2>` and `<user#2>` are the same person.
    for (const u of found.homes) this.ph.person('home', u);
    for (const u of found.users) this.ph.person('user', u);
    for (const h of found.hosts) this.ph.person('host', h);
    if (level === 'all') {
      for (const list of roles.frames.values()) for (const f of list) if (!vocabulary.frameIsRuntime(f)) this.hiddenFunctions.add(f.function);
      // Functions only pointed at (`__f=@0x…: 0x… <audit()>`, C++ prints a function's symbol with its `()`).
      const symbols = symbolPattern();
      for (const body of bodies) {
        if (!body.includes('()>')) continue;
        for (let m = symbols.exec(body); m !== null; m = symbols.exec(body)) {
          const name = (m[1] as string).replace(/\(\)$/, '');
          if (name !== m[1] && !vocabulary.nameIsRuntime(name)) this.hiddenFunctions.add(name);
        }
      }
    }
  }

  line(body: string, lineNo: number): string {
    if (body.length === 0) return body;
    const edit = new LineEdit(body);
    const frames = this.roles.frames.get(lineNo) ?? [];
    const part = this.roles.frameParts.get(lineNo);
    for (const f of frames) this.frameName(edit, f);
    if (this.level === 'all') for (const f of part ? [...frames, part] : frames) this.frameWhere(edit, f);
    // Strings: all but a thread's own name (headers, signal lines and `info threads` rows show it).
    // Elsewhere (gdb's banner, py-bt's `File "…"`) a quoted path is a path: home redaction reads it.
    if (body.includes('"')) {
      const values = frames.length > 0 || part !== undefined || this.roles.values.has(lineNo);
      // gdb/MI stream records (`~"#0  0x… in f (s=0x1 \\"text\\")\\n"`): the record is a string; the strings are inside it.
      const mi = /^[~@&]"/.test(body);
      if (mi) edit.replace(/\\"(?:[^"\\]|\\\\.)*?\\"/g, (m) => `<${this.ph.bare('str', m[0])}>`);
      else edit.replace(this.literals, (m) => {
        const s = m[0];
        if (s.startsWith("'")) return null;
        if (!values && /^"(?:\/|[A-Za-z]:\\)[^"\s]*"$/.test(s)) return null;
        if (this.roles.threadNames.has(s.slice(1, -1))) return null;
        return `<${this.ph.bare('str', s)}>`;
      });
    }
    // Symbols first: a runtime frame's arguments can point at the user's code (`__f=… <audit()>`).
    if (this.level === 'all' && this.hiddenFunctions.size > 0 && body.includes('<')) edit.replace(this.symbols, (m) => this.symbol(m));
    for (const f of frames) if (this.vocabulary.frameIsRuntime(f)) this.fixRuntimeFrame(edit, f);
    if (body.includes('/') || body.includes('\\')) {
      edit.replace(this.home, (m) => this.ph.person('home', this.homeIndex.get(m[2] ?? m[3] ?? 'root') ?? 'root'));
    }
    if (this.level === 'all' && this.hiddenFunctions.size > 0) {
      edit.replace(this.identifiers, (m) => (this.hiddenFunctions.has(m[0]) ? `<${this.ph.bare('fn', m[0])}>` : null));
    }
    if (this.people) edit.replace(this.people, (m) => this.person(m[0]));
    return edit.toString();
  }

  label(text: string): string {
    const edit = new LineEdit(text);
    edit.replace(this.home, (m) => this.ph.person('home', this.homeIndex.get(m[2] ?? m[3] ?? 'root') ?? 'root'));
    if (this.people) edit.replace(this.people, (m) => this.person(m[0]));
    return edit.toString();
  }

  counts(): RedactCounts {
    return this.ph.counts();
  }

  private person(word: string): string {
    return this.found.hosts.includes(word) ? this.ph.person('host', word) : this.ph.person('user', word);
  }

  /** The frame's function: kept as printed for a runtime's, `<fn#N>` for the user's own with `all`. */
  private frameName(edit: LineEdit, f: Frame): void {
    const text = edit.toString();
    const marker = f.level >= 0 ? text.indexOf(`#${f.level}`) : -1;
    const at = text.indexOf(f.function, marker < 0 ? 0 : marker + 1 + String(f.level).length);
    const runtime = this.vocabulary.frameIsRuntime(f);
    if (at < 0) {
      // Julia prints C++ frames mangled and the parser demangles them: hide the mangled name.
      if (!runtime && this.level === 'all') edit.replace(/(?<![\w$])_Z[\w.$]+/g, () => `<${this.ph.bare('fn', f.function)}>`);
      return;
    }
    if (runtime) edit.fix(at, at + f.function.length);
    else if (this.level === 'all') edit.put(at, at + f.function.length, `<${this.ph.bare('fn', f.function)}>`);
  }

  /** `all`: a file or library that is no runtime's (also under a runtime's function: `main () at app.c:40`). */
  private frameWhere(edit: LineEdit, f: Frame): void {
    const exactly = (path: string): RegExp => new RegExp(`(?<![\\w./\\\\-])${escapeRe(path)}(?![\\w/\\\\-])`, 'g');
    const file = f.file;
    const library = f.library;
    if (file !== null && file.length > 1 && !this.vocabulary.pathIsRuntime(file)) edit.replace(exactly(file), () => `<${this.ph.bare('file', file)}>`);
    if (library !== null && library.length > 1 && !this.vocabulary.pathIsRuntime(library)) edit.replace(exactly(library), () => `<${this.ph.bare('lib', library)}>`);
  }

  /**
   * A runtime frame's line stays as the rules read it — its arguments' names and values — except
   * its file and library paths (a home directory, a user name in them) and the strings, already
   * replaced.
   */
  private fixRuntimeFrame(edit: LineEdit, f: Frame): void {
    const text = edit.toString();
    const keepFrom = Math.max(0, text.indexOf(`#${f.level}`));
    const open: Array<[number, number]> = [];
    for (const path of [f.file, f.library]) {
      if (path === null) continue;
      const at = text.lastIndexOf(path);
      if (at >= keepFrom) open.push([at, at + path.length]);
    }
    open.sort((a, b) => a[0] - b[0]);
    let from = keepFrom;
    for (const [a, b] of open) {
      if (a > from) edit.fix(from, a);
      from = Math.max(from, b);
    }
    if (from < text.length) edit.fix(from, text.length);
  }

  /** A symbol in a value that names one of the user's functions (`__f=… <audit()>`): the function's placeholder. */
  private symbol(m: RegExpExecArray): string | null {
    const name = (m[1] as string).replace(/\(\)$/, '');
    if (!this.hiddenFunctions.has(name)) return null;
    return `<${this.ph.bare('fn', name)}${m[1] === name ? '' : '()'}${m[2] ?? ''}>`;
  }
}

/**
 * The widths at which the parser takes a line that does not start with a blank as the rest of a
 * frame a terminal cut (parse/lines.ts WRAP_WIDTHS, gdb-format.md §2.5).
 */
const WRAP_WIDTHS = [80, 100, 120, 132, 160, 200];

/** The 0-based lines of each frame a terminal hard-wrapped: every line but the last as wide as a terminal, the next starting in column 0. */
function hardWrapped(dump: Dump, bodies: readonly string[]): number[][] {
  const groups: number[][] = [];
  for (const bt of dump.backtraces) {
    for (const f of bt.frames) {
      const more = f.continuationLines ?? [];
      if (more.length === 0) continue;
      const lines = [f.sourceLine, ...more].map((l) => l - 1);
      const wrapped = lines.every((l, j) => j === lines.length - 1 || (WRAP_WIDTHS.includes((bodies[l] ?? '').length) && lines[j + 1] === l + 1 && /^\S/.test(bodies[l + 1] ?? '')));
      if (wrapped) groups.push(lines);
    }
  }
  return groups;
}

/**
 * Cuts a hard-wrapped frame's redacted text again into as many lines, each but the last as wide as
 * a terminal (placeholders change the lengths the parser joins by).
 */
function rewrap(text: string, lines: number): string[] {
  const out: string[] = [];
  let rest = text;
  for (let j = 0; j < lines - 1; j++) {
    // The parser joins the next line only while the argument list is open; it trims a line's
    // end, and a line that starts with a blank is no wrap.
    const close = Math.max(rest.lastIndexOf(') at '), rest.lastIndexOf(') from '), rest.endsWith(')') ? rest.length - 1 : -1);
    const width = WRAP_WIDTHS.find((w) => w <= close && /\S$/.test(rest.slice(0, w)) && /^[^\s#]/.test(rest.slice(w)));
    if (width === undefined) {
      // No terminal width fits: the frame on one line, blank lines where its pieces were (a blank
      // line inside a backtrace is read as nothing).
      return [text, ...new Array<string>(lines - 1).fill('')];
    }
    out.push(rest.slice(0, width));
    rest = rest.slice(width);
  }
  out.push(rest);
  return out;
}

/** The dump, redacted line for line (see the module comment). Never throws on odd input. */
export function redactText(text: string, options: RedactOptions): Redacted {
  const { bodies, ends } = physicalLines(text);
  const dump = parseDump(text);
  const redactor = new Redactor(discover(bodies), options.level, runtimeVocabulary(options.rules), rolesOf(dump), bodies);
  const out = bodies.map((body, i) => redactor.line(body, i + 1));
  for (const group of hardWrapped(dump, bodies)) {
    const cut = rewrap(group.map((l) => out[l]).join(''), group.length);
    group.forEach((l, j) => (out[l] = cut[j] as string));
  }
  return { text: out.map((body, i) => body + (ends[i] as string)).join(''), backtraces: dump.stats.backtraces, counts: redactor.counts(), label: (t) => redactor.label(t) };
}
