/**
 * An Itanium C++ ABI demangler (https://itanium-cxx-abi.github.io/cxx-abi/abi.html#mangling) that
 * prints names as gdb does (libiberty's cplus_demangle with DMGL_PARAMS | DMGL_ANSI, as `c++filt`
 * prints them), so a frame Julia prints with its raw symbol — `_ZNSt6futureImE3getEv at
 * …/libLLVM-15jl.so (unknown line)`, for code without debug info — reads as gdb's
 * `std::future<unsigned long>::get()` and the same rules match it.
 *
 * It covers what symbol tables of C++ libraries hold: nested and local names, templates and
 * their arguments (types, integer and bool literals, packs), substitutions, ctors and dtors,
 * operators and conversions, lambdas and unnamed types, ABI tags, function, array and
 * member-pointer types, cv- and ref-qualified methods, thunks, vtables, guard variables and GCC
 * clone suffixes. Template arguments that are expressions, and anything else it cannot read, give
 * null: the caller keeps the mangled name. test/parse/demangle.test.ts holds it to c++filt on
 * the symbols of libstdc++ and libLLVM when those are installed.
 *
 * Linear in the name: one left-to-right pass, substitutions by index; nesting is bounded.
 */

/** A type, kept structured because C++ declarators print inside out (`void (*)(int)`, `int (&) [3]`). */
type Type =
  | { k: 'name'; s: string }
  | { k: 'ptr' | 'ref' | 'rref'; t: Type }
  | { k: 'cv'; q: string; t: Type }
  | { k: 'fn'; ret: Type | null; params: Type[]; q: string }
  | { k: 'arr'; dim: string; t: Type }
  | { k: 'pm'; cls: Type; t: Type }
  /** `Dp T`: a pack expansion, expanded in a parameter list. */
  | { k: 'pack'; t: Type }
  /** A template argument pack (`J…E`): the types it holds. */
  | { k: 'packlist'; items: Type[] };

class Fail extends Error {}

const MAX_NAME = 4096;
const MAX_DEPTH = 64;

const BUILTIN: Record<string, string> = {
  v: 'void', w: 'wchar_t', b: 'bool', c: 'char', a: 'signed char', h: 'unsigned char', s: 'short', t: 'unsigned short',
  i: 'int', j: 'unsigned int', l: 'long', m: 'unsigned long', x: 'long long', y: 'unsigned long long', n: '__int128',
  o: 'unsigned __int128', f: 'float', d: 'double', e: 'long double', g: '__float128', z: '...',
};
const BUILTIN_D: Record<string, string> = {
  d: 'decimal64', e: 'decimal128', f: 'decimal32', h: 'half', i: 'char32_t', s: 'char16_t', u: 'char8_t', a: 'auto', c: 'decltype(auto)', n: 'decltype(nullptr)',
};
/** Literal suffixes libiberty prints for integer template arguments; other types print as `(type)N`. */
const LITERAL_SUFFIX: Record<string, string> = { i: '', j: 'u', l: 'l', m: 'ul', x: 'll', y: 'ull' };
const OPERATORS: Record<string, string> = {
  nw: 'new', na: 'new[]', dl: 'delete', da: 'delete[]', ps: '+', ng: '-', ad: '&', de: '*', co: '~', pl: '+', mi: '-',
  ml: '*', dv: '/', rm: '%', an: '&', or: '|', eo: '^', aS: '=', pL: '+=', mI: '-=', mL: '*=', dV: '/=', rM: '%=',
  aN: '&=', oR: '|=', eO: '^=', ls: '<<', rs: '>>', lS: '<<=', rS: '>>=', eq: '==', ne: '!=', lt: '<', gt: '>', le: '<=',
  ge: '>=', ss: '<=>', nt: '!', aa: '&&', oo: '||', pp: '++', mm: '--', cm: ',', pm: '->*', pt: '->', cl: '()', ix: '[]',
  qu: '?', aw: 'co_await',
};
/** The standard abbreviations, in the full form gdb prints (libiberty's verbose expansions). */
const STD_SUBS: Record<string, string> = {
  t: 'std',
  a: 'std::allocator',
  b: 'std::basic_string',
  s: 'std::basic_string<char, std::char_traits<char>, std::allocator<char> >',
  i: 'std::basic_istream<char, std::char_traits<char> >',
  o: 'std::basic_ostream<char, std::char_traits<char> >',
  d: 'std::basic_iostream<char, std::char_traits<char> >',
};

/** The demangled form of an Itanium-mangled name (`_Z…`), or null when it is not one this reads. */
export function demangle(mangled: string): string | null {
  if (!mangled.startsWith('_Z') || mangled.length > MAX_NAME) return null;
  // GCC clone suffixes: `_Z3foov.cold` → `foo() [clone .cold]`, `.constprop.0`, `.isra.0`, `.part.1`.
  let end = mangled.length;
  const clones: string[] = [];
  const dot = mangled.indexOf('.');
  if (dot > 0) {
    const suffix = mangled.slice(dot);
    if (!/^(?:\.[A-Za-z_][A-Za-z0-9_]*(?:\.\d+)*)+$/.test(suffix)) return null;
    for (const m of suffix.matchAll(/\.[A-Za-z_][A-Za-z0-9_]*(?:\.\d+)*/g)) clones.push(` [clone ${m[0]}]`);
    end = dot;
  }
  try {
    const d = new Reader(mangled.slice(0, end));
    d.pos = 2;
    const out = d.encoding(true);
    if (d.pos !== d.s.length) return null;
    return out + clones.join('');
  } catch (e) {
    if (e instanceof Fail) return null;
    throw e;
  }
}

class Reader {
  pos = 0;
  private readonly subs: Array<Type> = [];
  /** The template arguments that T_ refers to (of the outermost template being mangled). */
  private templateArgs: Type[] = [];
  private depth = 0;

  constructor(readonly s: string) {}

  private peek(n = 0): string {
    return this.s.charAt(this.pos + n);
  }
  private eat(prefix: string): boolean {
    if (this.s.startsWith(prefix, this.pos)) {
      this.pos += prefix.length;
      return true;
    }
    return false;
  }
  private need(prefix: string): void {
    if (!this.eat(prefix)) throw new Fail();
  }
  private enter(): void {
    if (++this.depth > MAX_DEPTH) throw new Fail();
  }

  private number(): number {
    const start = this.pos;
    while (this.pos < this.s.length && this.s.charCodeAt(this.pos) >= 48 && this.s.charCodeAt(this.pos) <= 57) this.pos++;
    if (this.pos === start) throw new Fail();
    return Number(this.s.slice(start, this.pos));
  }

  /** `<encoding>`: a function (name and parameter types), a data name, or a special name. */
  encoding(top: boolean, withReturn = true): string {
    this.enter();
    try {
      if (this.peek() === 'T' || (this.peek() === 'G' && this.peek(1) === 'V') || this.peek() === 'G') {
        const special = this.specialName();
        if (special !== null) return special;
      }
      const saved = this.templateArgs;
      const name = this.name(true);
      if (this.pos >= this.s.length || this.peek() === 'E' || this.peek() === '.') {
        if (!top) this.templateArgs = saved;
        return name.text;
      }
      // A template function (not a ctor, dtor or conversion) mangles its return type first.
      let ret: Type | null = null;
      if (name.template && !name.ctorDtorConv) ret = this.type();
      const params = this.bareFunctionType();
      const text = `${ret !== null && withReturn ? `${typeText(ret)} ` : ''}${name.text}(${params})${name.quals}`;
      if (!top) this.templateArgs = saved;
      return text;
    } finally {
      this.depth--;
    }
  }

  private specialName(): string | null {
    const start = this.pos;
    if (this.eat('TV')) return `vtable for ${typeText(this.type())}`;
    if (this.eat('TT')) return `VTT for ${typeText(this.type())}`;
    if (this.eat('TI')) return `typeinfo for ${typeText(this.type())}`;
    if (this.eat('TS')) return `typeinfo name for ${typeText(this.type())}`;
    if (this.eat('TW')) return `TLS wrapper function for ${this.name().text}`;
    if (this.eat('TH')) return `TLS init function for ${this.name().text}`;
    if (this.eat('Th')) {
      this.callOffsetNumber();
      this.need('_');
      return `non-virtual thunk to ${this.encoding(false)}`;
    }
    if (this.eat('Tv')) {
      this.callOffsetNumber();
      this.need('_');
      this.callOffsetNumber();
      this.need('_');
      return `virtual thunk to ${this.encoding(false)}`;
    }
    if (this.eat('Tc')) {
      for (let i = 0; i < 2; i++) {
        if (this.eat('h')) this.callOffsetNumber();
        else {
          this.need('v');
          this.callOffsetNumber();
          this.need('_');
          this.callOffsetNumber();
        }
        this.need('_');
      }
      return `covariant return thunk to ${this.encoding(false)}`;
    }
    if (this.eat('GV')) return `guard variable for ${this.name().text}`;
    if (this.eat('GR')) {
      const name = this.name().text;
      if (this.peek() !== '_') while (this.pos < this.s.length && this.peek() !== '_') this.pos++;
      this.eat('_');
      return `reference temporary #0 for ${name}`;
    }
    this.pos = start;
    return null;
  }

  private callOffsetNumber(): void {
    this.eat('n');
    this.number();
  }

  /**
   * `<name>`: its printed text, whether it ends in template arguments, and method qualifiers.
   * `own`: the encoding's own name, whose template arguments `T_` refers to (a type's name does
   * not change them).
   */
  private name(own = false): { text: string; template: boolean; ctorDtorConv: boolean; quals: string } {
    this.enter();
    try {
      const c = this.peek();
      if (c === 'N') return this.nestedName(own);
      if (c === 'Z') return this.localName();
      // Unscoped, possibly a template: `3fooIiE`, `St4swapIiE`, or a substitution with template args.
      let text: string;
      let ctorDtorConv = false;
      if (c === 'S' && this.peek(1) !== 't') {
        const sub = this.substitution();
        if (this.peek() !== 'I') throw new Fail();
        text = typeText(sub);
      } else {
        const std = this.eat('St');
        const u = this.unqualifiedName(std ? 'std' : null);
        text = std ? `std::${u.text}` : u.text;
        ctorDtorConv = u.ctorDtorConv;
        // An unscoped template name is a candidate of its own.
        if (this.peek() === 'I') this.subs.push({ k: 'name', s: text });
      }
      if (this.peek() === 'I') {
        const args = this.argsAfter(text);
        if (own) this.templateArgs = args.types;
        return { text: text + args.text, template: true, ctorDtorConv, quals: '' };
      }
      return { text, template: false, ctorDtorConv, quals: '' };
    } finally {
      this.depth--;
    }
  }

  /** `N [cv] [ref] <prefix>… E`: every prefix but the whole name is a substitution candidate. */
  private nestedName(own: boolean): { text: string; template: boolean; ctorDtorConv: boolean; quals: string } {
    this.need('N');
    let quals = '';
    if (this.eat('r')) quals += ' restrict';
    if (this.eat('V')) quals += ' volatile';
    if (this.eat('K')) quals += ' const';
    if (this.eat('R')) quals += ' &';
    else if (this.eat('O')) quals += ' &&';
    let text = '';
    let template = false;
    let ctorDtorConv = false;
    let first = true;
    while (!this.eat('E')) {
      if (this.pos >= this.s.length) throw new Fail();
      const c = this.peek();
      template = false;
      const wasCtor: boolean = ctorDtorConv;
      ctorDtorConv = false;
      let candidate = true;
      if (c === 'I') {
        // A template ctor (`C1IPKwE`) stays a ctor: no return type.
        ctorDtorConv = wasCtor;
        if (first) throw new Fail();
        const args = this.argsAfter(text);
        if (own) this.templateArgs = args.types;
        text += args.text;
        template = true;
      } else if (c === 'S' && first) {
        if (this.peek(1) === 't') {
          this.pos += 2;
          text = 'std';
        } else text = typeText(this.substitution());
        // A substitution is already a candidate; `St` never is.
        candidate = false;
      } else if (c === 'T' && first) {
        text = typeText(this.templateParam());
      } else if (c === 'D' && (this.peek(1) === 't' || this.peek(1) === 'T')) {
        throw new Fail(); // decltype in a prefix: an expression
      } else {
        const u = this.unqualifiedName(first ? null : lastComponent(text));
        text = first ? u.text : `${text}::${u.text}`;
        ctorDtorConv = u.ctorDtorConv;
      }
      first = false;
      if (candidate && this.peek() !== 'E') this.subs.push({ k: 'name', s: text });
    }
    if (first) throw new Fail();
    return { text, template, ctorDtorConv, quals };
  }

  private localName(): { text: string; template: boolean; ctorDtorConv: boolean; quals: string } {
    this.need('Z');
    // The enclosing function is printed without its return type.
    const fn = this.encoding(false, false);
    this.need('E');
    if (this.eat('s')) {
      this.discriminator();
      return { text: `${fn}::string literal`, template: false, ctorDtorConv: false, quals: '' };
    }
    let defaultArg = '';
    if (this.eat('d')) {
      const n = this.peek() === '_' ? 0 : this.number() + 1;
      this.need('_');
      defaultArg = `{default arg#${n + 1}}::`;
    }
    const inner = this.name();
    this.discriminator();
    return { text: `${fn}::${defaultArg}${inner.text}`, template: inner.template, ctorDtorConv: inner.ctorDtorConv, quals: inner.quals };
  }

  private discriminator(): void {
    if (this.peek() !== '_') return;
    if (this.eat('__')) {
      this.number();
      this.need('_');
    } else {
      this.pos++;
      this.number();
    }
  }

  /** `<unqualified-name>`; `enclosing` is the class name a ctor or dtor is named after. */
  private unqualifiedName(enclosing: string | null): { text: string; ctorDtorConv: boolean } {
    const c = this.peek();
    let text: string;
    let ctorDtorConv = false;
    if (c >= '0' && c <= '9') text = this.sourceName();
    else if (c === 'C' && (this.peek(1) === '1' || this.peek(1) === '2' || this.peek(1) === '3' || this.peek(1) === '4' || this.peek(1) === '5' || this.peek(1) === 'I')) {
      this.pos++;
      if (this.eat('I')) {
        this.pos++;
        this.type(); // inheriting constructor: the base class
      } else this.pos++;
      if (enclosing === null) throw new Fail();
      text = enclosing;
      ctorDtorConv = true;
    } else if (c === 'D' && (this.peek(1) === '0' || this.peek(1) === '1' || this.peek(1) === '2' || this.peek(1) === '4' || this.peek(1) === '5')) {
      this.pos += 2;
      if (enclosing === null) throw new Fail();
      text = `~${enclosing}`;
      ctorDtorConv = true;
    } else if (c === 'U' && this.peek(1) === 't') {
      this.pos += 2;
      const n = this.peek() === '_' ? 1 : this.number() + 2;
      this.need('_');
      text = `{unnamed type#${n}}`;
    } else if (c === 'U' && this.peek(1) === 'l') {
      this.pos += 2;
      const params = this.bareFunctionType();
      this.need('E');
      const n = this.peek() === '_' ? 1 : this.number() + 2;
      this.need('_');
      text = `{lambda(${params})#${n}}`;
    } else if (c === 'L') {
      this.pos++; // internal linkage (`_ZL3foov`)
      return this.unqualifiedName(enclosing);
    } else if (c === 'c' && this.peek(1) === 'v') {
      this.pos += 2;
      text = `operator ${typeText(this.type())}`;
      ctorDtorConv = true;
    } else if (c === 'l' && this.peek(1) === 'i') {
      this.pos += 2;
      text = `operator"" ${this.sourceName()}`;
    } else if (c === 'v' && this.peek(1) >= '0' && this.peek(1) <= '9') {
      this.pos += 2;
      text = `operator ${this.sourceName()}`;
    } else {
      const op = OPERATORS[this.s.slice(this.pos, this.pos + 2)];
      if (op === undefined) throw new Fail();
      this.pos += 2;
      text = /^[a-z]/.test(op) ? `operator ${op}` : `operator${op}`;
    }
    while (this.peek() === 'B') {
      this.pos++;
      text += `[abi:${this.sourceName()}]`;
    }
    return { text, ctorDtorConv };
  }

  private sourceName(): string {
    const n = this.number();
    if (this.pos + n > this.s.length) throw new Fail();
    const id = this.s.slice(this.pos, this.pos + n);
    this.pos += n;
    return id.startsWith('_GLOBAL__N') ? '(anonymous namespace)' : id;
  }

  /** `S_`, `S<seq>_`, `St`, `Sa`, …: an earlier component or a standard abbreviation. */
  private substitution(): Type {
    this.need('S');
    const c = this.peek();
    const std = STD_SUBS[c];
    if (std !== undefined && c !== 't') {
      this.pos++;
      return { k: 'name', s: std };
    }
    if (c === 't') {
      this.pos++;
      return { k: 'name', s: 'std' };
    }
    let index = 0;
    if (c !== '_') {
      const start = this.pos;
      while (/[0-9A-Z]/.test(this.peek())) this.pos++;
      if (this.pos === start) throw new Fail();
      index = parseInt(this.s.slice(start, this.pos), 36) + 1;
    }
    this.need('_');
    const sub = this.subs[index];
    if (sub === undefined) throw new Fail();
    return sub;
  }

  private templateParam(): Type {
    this.need('T');
    let index = 0;
    if (this.peek() !== '_') index = this.number() + 1;
    this.need('_');
    const arg = this.templateArgs[index];
    if (arg === undefined) throw new Fail();
    return arg;
  }

  /** Template arguments after a name: `operator<< <int>` is spaced so the `<`s stay apart. */
  private argsAfter(name: string): { text: string; types: Type[] } {
    const args = this.templateArgsList();
    return name.endsWith('<') ? { text: ` ${args.text}`, types: args.types } : args;
  }

  private templateArgsList(): { text: string; types: Type[] } {
    this.need('I');
    const types: Type[] = [];
    const texts: string[] = [];
    while (!this.eat('E')) {
      if (this.pos >= this.s.length) throw new Fail();
      const arg = this.templateArg();
      types.push(arg.type);
      if (arg.text !== '') texts.push(arg.text);
    }
    const inner = texts.join(', ');
    // libiberty separates a closing `>` from one before it: `std::vector<int, std::allocator<int> >`;
    // but not after an empty pack it dropped (its `, ` was removed, the last character it saw is
    // the space): `llvm::PassManager<llvm::Module, llvm::AnalysisManager<llvm::Module>>`.
    const last = types[types.length - 1];
    const droppedPack = types.length > 1 && last !== undefined && last.k === 'packlist' && typeText(last) === '';
    return { text: `<${inner}${inner.endsWith('>') && !droppedPack ? ' ' : ''}>`, types };
  }

  private templateArg(): { type: Type; text: string } {
    const c = this.peek();
    if (c === 'L') {
      const text = this.literal();
      return { type: { k: 'name', s: text }, text };
    }
    if (c === 'X') throw new Fail(); // an expression
    if (c === 'J') {
      this.pos++;
      const items: Type[] = [];
      while (!this.eat('E')) {
        if (this.pos >= this.s.length) throw new Fail();
        for (const t of expandPack(this.templateArg().type)) items.push(t);
      }
      return { type: { k: 'packlist', items }, text: items.map(typeText).join(', ') };
    }
    const t = this.type();
    return { type: t, text: typeText(t) };
  }

  private literal(): string {
    this.need('L');
    if (this.eat('_Z')) {
      const e = this.encoding(false);
      this.need('E');
      return e;
    }
    const c = this.peek();
    if (c === 'b') {
      this.pos++;
      const v = this.eat('0') ? 'false' : this.eat('1') ? 'true' : null;
      if (v === null) throw new Fail();
      this.need('E');
      return v;
    }
    const t = this.type();
    const neg = this.eat('n');
    const start = this.pos;
    while (this.pos < this.s.length && /[0-9a-f]/.test(this.peek())) this.pos++;
    const digits = this.s.slice(start, this.pos);
    this.need('E');
    if (digits === '') return typeText(t);
    const value = `${neg ? '-' : ''}${digits}`;
    const suffix = t.k === 'name' ? Object.entries(BUILTIN).find(([, name]) => name === t.s)?.[0] : undefined;
    if (suffix !== undefined && suffix in LITERAL_SUFFIX) return `${value}${LITERAL_SUFFIX[suffix]}`;
    return `(${typeText(t)})${value}`;
  }

  /** Parameter types up to the end of the encoding or an `E`; `v` alone is `()`. */
  private bareFunctionType(): string {
    const params: Type[] = [];
    while (this.pos < this.s.length && this.peek() !== 'E' && this.peek() !== '.') {
      const t = this.type();
      for (const p of expandPack(t)) params.push(p);
      if (t.k !== 'pack') continue;
    }
    if (params.length === 0) return '';
    if (params.length === 1 && params[0]!.k === 'name' && params[0]!.s === 'void') return '';
    return params.map(typeText).join(', ');
  }

  type(): Type {
    this.enter();
    try {
      return this.typeInner();
    } finally {
      this.depth--;
    }
  }

  private typeInner(): Type {
    const c = this.peek();
    const builtin = BUILTIN[c];
    if (builtin !== undefined) {
      this.pos++;
      return { k: 'name', s: builtin };
    }
    if (c === 'u') {
      this.pos++;
      const t: Type = { k: 'name', s: this.sourceName() };
      this.subs.push(t);
      return t;
    }
    let t: Type;
    switch (c) {
      case 'D': {
        const d = this.peek(1);
        if (d === 'p') {
          this.pos += 2;
          t = { k: 'pack', t: this.type() };
          break;
        }
        if (d === 'F') {
          this.pos += 2;
          const bits = this.number();
          this.need('_');
          return { k: 'name', s: `_Float${bits}` };
        }
        const name = BUILTIN_D[d];
        if (name === undefined) throw new Fail();
        this.pos += 2;
        return { k: 'name', s: name };
      }
      case 'P':
        this.pos++;
        t = { k: 'ptr', t: this.type() };
        break;
      case 'R':
        this.pos++;
        t = collapse({ k: 'ref', t: this.type() });
        break;
      case 'O':
        this.pos++;
        t = collapse({ k: 'rref', t: this.type() });
        break;
      case 'r':
      case 'V':
      case 'K': {
        let q = '';
        if (this.eat('r')) q += ' restrict';
        if (this.eat('V')) q += ' volatile';
        if (this.eat('K')) q += ' const';
        const inner = this.type();
        // A qualified function type is a method's (`int (Foo::*)() const`); a qualifier the
        // substituted type already has is not printed twice (`T const` with T = `X const`).
        if (inner.k === 'fn') t = { ...inner, q: `${inner.q}${q}` };
        else if (inner.k === 'cv' && inner.q === q.slice(1)) t = inner;
        // A qualified array is an array of qualified elements: `char const (&) [17]`.
        else if (inner.k === 'arr') t = { k: 'arr', dim: inner.dim, t: { k: 'cv', q: q.slice(1), t: inner.t } };
        else t = { k: 'cv', q: q.slice(1), t: inner };
        break;
      }
      case 'F': {
        this.pos++;
        this.eat('Y');
        const ret = this.type();
        const params: Type[] = [];
        // A ref-qualifier stands right before the `E`; elsewhere R and O are reference types.
        while (this.peek() !== 'E' && !((this.peek() === 'R' || this.peek() === 'O') && this.peek(1) === 'E')) {
          if (this.pos >= this.s.length) throw new Fail();
          for (const p of expandPack(this.type())) params.push(p);
        }
        let q = '';
        if (this.eat('R')) q = ' &';
        else if (this.eat('O')) q = ' &&';
        this.need('E');
        const list = params.length === 1 && params[0]!.k === 'name' && params[0]!.s === 'void' ? [] : params;
        t = { k: 'fn', ret, params: list, q };
        break;
      }
      case 'A': {
        this.pos++;
        let dim = '';
        if (this.peek() !== '_') dim = String(this.number());
        this.need('_');
        t = { k: 'arr', dim, t: this.type() };
        break;
      }
      case 'M': {
        this.pos++;
        const cls = this.type();
        t = { k: 'pm', cls, t: this.type() };
        break;
      }
      case 'T': {
        t = this.templateParam();
        if (this.peek() === 'I') {
          this.subs.push(t);
          const args = this.templateArgsList();
          t = { k: 'name', s: `${typeText(t)}${args.text}` };
        }
        break;
      }
      case 'S': {
        if (this.peek(1) === 't') {
          // `St3foo`: std::foo, a class name in namespace std.
          t = { k: 'name', s: this.name().text };
          break;
        }
        t = this.substitution();
        if (this.peek() === 'I') {
          const args = this.templateArgsList();
          t = { k: 'name', s: `${typeText(t)}${args.text}` };
          break;
        }
        // A substitution is not itself a new candidate.
        return t;
      }
      case 'N':
      case 'Z':
        t = { k: 'name', s: this.name().text };
        break;
      default:
        if (c >= '0' && c <= '9') {
          t = { k: 'name', s: this.name().text };
          break;
        }
        throw new Fail();
    }
    this.subs.push(t);
    return t;
  }
}

/** A parameter's types: a pack expansion `Dp T` gives one per element of the pack it names. */
function expandPack(t: Type): Type[] {
  if (t.k !== 'pack') return [t];
  const pack = findPack(t.t);
  if (pack === null) return [t.t];
  return pack.items.map((item) => collapse(replacePack(t.t, pack, item)));
}

function findPack(t: Type): { k: 'packlist'; items: Type[] } | null {
  switch (t.k) {
    case 'packlist':
      return t;
    case 'ptr':
    case 'ref':
    case 'rref':
    case 'cv':
    case 'pack':
    case 'arr':
      return findPack(t.t);
    case 'pm':
      return findPack(t.cls) ?? findPack(t.t);
    case 'fn':
      for (const p of [t.ret, ...t.params]) {
        const found = p === null ? null : findPack(p);
        if (found !== null) return found;
      }
      return null;
    default:
      return null;
  }
}

function replacePack(t: Type, pack: Type, item: Type): Type {
  if (t === pack) return item;
  switch (t.k) {
    case 'ptr':
    case 'ref':
    case 'rref':
    case 'pack':
      return { k: t.k, t: replacePack(t.t, pack, item) };
    case 'cv':
      return { k: 'cv', q: t.q, t: replacePack(t.t, pack, item) };
    case 'arr':
      return { k: 'arr', dim: t.dim, t: replacePack(t.t, pack, item) };
    case 'pm':
      return { k: 'pm', cls: replacePack(t.cls, pack, item), t: replacePack(t.t, pack, item) };
    case 'fn':
      return { k: 'fn', ret: t.ret === null ? null : replacePack(t.ret, pack, item), params: t.params.map((p) => replacePack(p, pack, item)), q: t.q };
    default:
      return t;
  }
}

/** Reference collapsing: `T&&` with `T = X&` is `X&`; `&&` stays only on `&&`. */
function collapse(t: Type): Type {
  if ((t.k === 'ref' || t.k === 'rref') && (t.t.k === 'ref' || t.t.k === 'rref')) {
    const inner = collapse(t.t);
    if (inner.k === 'ref' || inner.k === 'rref') return t.k === 'ref' || inner.k === 'ref' ? { k: 'ref', t: inner.t } : inner;
  }
  return t;
}

function lastComponent(prefix: string): string {
  // The class name a ctor/dtor repeats: the last component, without template arguments or ABI tags.
  prefix = prefix.replace(/(?:\[abi:[^\]]*\])+$/, '');
  let depth = 0;
  let cut = prefix.length;
  for (let i = prefix.length - 1; i >= 0; i--) {
    const c = prefix[i];
    if (c === '>') depth++;
    else if (c === '<') {
      depth--;
      if (depth === 0) cut = i;
    } else if (depth === 0 && c === ':' && prefix[i - 1] === ':') return prefix.slice(i + 1, cut);
  }
  return prefix.slice(0, cut);
}

/** A type as libiberty prints it. */
function typeText(t: Type): string {
  const [left, right] = declarator(t, '');
  return `${left}${right}`;
}

/** The parts of a declaration around its (abstract) name: `void (*` + `)(int)`. */
function declarator(t: Type, inner: string): [string, string] {
  switch (t.k) {
    case 'name':
      return [`${t.s}${inner}`, ''];
    case 'pack':
      return declarator(t.t, inner);
    case 'packlist':
      return [`${t.items.map(typeText).join(', ')}${inner}`, ''];
    case 'cv':
      return declarator(t.t, ` ${t.q}${inner}`);
    case 'ptr':
    case 'ref':
    case 'rref': {
      const sym = t.k === 'ptr' ? '*' : t.k === 'ref' ? '&' : '&&';
      const target = t.t.k === 'cv' ? t.t.t : t.t;
      if (target.k === 'fn' || target.k === 'arr') {
        const cv = t.t.k === 'cv' ? ` ${t.t.q}` : '';
        return declarator(target, `(${sym}${cv}${inner})`);
      }
      return declarator(t.t, `${sym}${inner}`);
    }
    case 'pm': {
      const cls = typeText(t.cls);
      if (t.t.k === 'fn') return declarator(t.t, `(${cls}::*${inner})`);
      return declarator(t.t, ` ${cls}::*${inner}`);
    }
    case 'fn': {
      const params = `(${t.params.map(typeText).join(', ')})${t.q}`;
      const ret = t.ret === null ? '' : typeText(t.ret);
      return [`${ret} ${inner}`.replace(/^ /, ''), params];
    }
    case 'arr': {
      const [l, r] = declarator(t.t, '');
      return [`${l} ${inner}`.replace(/ $/, ''), ` [${t.dim}]${r}`];
    }
  }
}
