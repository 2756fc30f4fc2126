/**
 * One line of the dump being redacted, as pieces that later steps may still edit and pieces they
 * must not: a placeholder once written (`<str#3>` holds `str`, which could be a user's name), and
 * a runtime frame's function name and arguments, which the rules read.
 */

interface Piece {
  text: string;
  fixed: boolean;
}

export class LineEdit {
  private pieces: Piece[];

  constructor(text: string) {
    this.pieces = [{ text, fixed: false }];
  }

  /** Marks [start, end) of the current text as not to be edited (positions in toString()). */
  fix(start: number, end: number): void {
    this.split(start, end, (p) => ({ text: p, fixed: true }));
  }

  /** Replaces [start, end) of the current text with `text`, fixed. */
  put(start: number, end: number, text: string): void {
    let first = true;
    this.split(start, end, () => {
      const piece = { text: first ? text : '', fixed: true };
      first = false;
      return piece;
    });
  }

  /**
   * Replaces each match of the global regex `re` in the editable pieces with what `by` returns
   * (fixed), or leaves it when `by` returns null.
   */
  replace(re: RegExp, by: (match: RegExpExecArray) => string | null): void {
    const out: Piece[] = [];
    for (const piece of this.pieces) {
      if (piece.fixed) {
        out.push(piece);
        continue;
      }
      let last = 0;
      re.lastIndex = 0;
      for (let m = re.exec(piece.text); m !== null; m = re.exec(piece.text)) {
        if (m[0].length === 0) {
          re.lastIndex++;
          continue;
        }
        const replacement = by(m);
        if (replacement === null) continue;
        if (m.index > last) out.push({ text: piece.text.slice(last, m.index), fixed: false });
        out.push({ text: replacement, fixed: true });
        last = m.index + m[0].length;
      }
      re.lastIndex = 0;
      if (last < piece.text.length) out.push({ text: piece.text.slice(last), fixed: false });
    }
    this.pieces = out;
  }

  toString(): string {
    return this.pieces.map((p) => p.text).join('');
  }

  /** Re-cuts the pieces so [start, end) is pieces of its own, each made by `make` from its text. */
  private split(start: number, end: number, make: (text: string) => Piece): void {
    const out: Piece[] = [];
    let at = 0;
    for (const piece of this.pieces) {
      const from = at;
      const to = at + piece.text.length;
      at = to;
      if (to <= start || from >= end || piece.text.length === 0) {
        out.push(piece);
        continue;
      }
      const a = Math.max(start, from) - from;
      const b = Math.min(end, to) - from;
      if (a > 0) out.push({ text: piece.text.slice(0, a), fixed: piece.fixed });
      out.push(make(piece.text.slice(a, b)));
      if (b < piece.text.length) out.push({ text: piece.text.slice(b), fixed: piece.fixed });
    }
    this.pieces = out;
  }
}
