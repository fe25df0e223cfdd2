/**
 * Finds where one JSON value ends in a byte stream, across chunks, without parsing it: depth of objects and
 * arrays, strings and their escapes. Quote and backslash bytes never occur inside a multi-byte UTF-8 sequence,
 * so scanning bytes is safe. Validation is left to JSON.parse of the captured bytes. Pure: no IO.
 */
export const QUOTE = 0x22;
const BACKSLASH = 0x5c;
export const LBRACE = 0x7b;
export const RBRACE = 0x7d;
export const LBRACKET = 0x5b;
export const RBRACKET = 0x5d;
export const COMMA = 0x2c;
export const COLON = 0x3a;

export function isSpace(c: number): boolean {
  return c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09;
}

function endsPrimitive(c: number): boolean {
  return c === COMMA || c === RBRACE || c === RBRACKET || isSpace(c);
}

export class ValueScanner {
  private pieces: Buffer[] = [];
  private start = 0;
  private depth = 0;
  private inString = false;
  /** The chunk ended right after a backslash inside a string: the next byte is escaped. */
  private escaped = false;
  private primitive = false;
  private active = false;

  get scanning(): boolean {
    return this.active;
  }

  /** Starts a value whose first byte is buf[at] (not whitespace). */
  begin(buf: Buffer, at: number): void {
    const c = buf[at];
    this.active = true;
    this.pieces = [];
    this.start = at;
    this.depth = 0;
    this.inString = false;
    this.escaped = false;
    this.primitive = c !== LBRACE && c !== LBRACKET && c !== QUOTE;
  }

  /**
   * Scans buf from `from` (0 for a chunk after the first). Returns the index just past the value when it ends
   * in this chunk, or -1 when the chunk ends first (its bytes are kept for the next call).
   */
  scan(buf: Buffer, from: number): number {
    const end = this.primitive ? this.scanPrimitive(buf, from) : this.scanNested(buf, from);
    if (end === -1) {
      // Copy: the value continues in the next chunk, and the caller may drop this one.
      this.pieces.push(Buffer.from(buf.subarray(this.start)));
      this.start = 0;
    }
    return end;
  }

  /** The value's bytes once scan returned its end; the scanner is then idle. */
  take(buf: Buffer, end: number): Buffer {
    this.active = false;
    const last = buf.subarray(this.start, end);
    if (this.pieces.length === 0) return last;
    const out = Buffer.concat([...this.pieces, last]);
    this.pieces = [];
    return out;
  }

  private scanPrimitive(buf: Buffer, from: number): number {
    for (let i = from; i < buf.length; i++) if (endsPrimitive(buf[i] as number)) return i;
    return -1;
  }

  /**
   * One tight loop over the bytes (strings included: a byte loop beats indexOf calls on the many short
   * strings of Kubernetes objects).
   */
  private scanNested(buf: Buffer, from: number): number {
    if (!this.inString) return this.scanFrom(buf, from);
    const i = this.finishString(buf, from);
    return i === -1 || this.depth === 0 ? i : this.scanFrom(buf, i);
  }

  private scanFrom(buf: Buffer, from: number): number {
    const n = buf.length;
    let i = from;
    let depth = this.depth;
    for (; i < n; i++) {
      const c = buf[i] as number;
      if (c === QUOTE) {
        i = closingQuote(buf, i + 1);
        if (i >= n) return this.cut(i > n, depth);
        if (depth === 0) return i + 1;
      } else if (c === LBRACE || c === LBRACKET) depth++;
      else if ((c === RBRACE || c === RBRACKET) && --depth === 0) {
        this.depth = 0;
        return i + 1;
      }
    }
    this.depth = depth;
    return -1;
  }

  /** The chunk ended inside a string. */
  private cut(escaped: boolean, depth: number): -1 {
    this.inString = true;
    this.escaped = escaped;
    this.depth = depth;
    return -1;
  }

  /** Continues a string cut by the end of the last chunk: the index after its closing quote, or -1. */
  private finishString(buf: Buffer, from: number): number {
    const start = this.escaped ? from + 1 : from;
    this.escaped = false;
    const end = closingQuote(buf, start);
    if (end >= buf.length) return this.cut(end > buf.length, this.depth);
    this.inString = false;
    return end + 1;
  }
}

/**
 * From inside a string: the index of its closing quote, or buf.length when the chunk ends first
 * (buf.length + 1: it ends right after a backslash, so the next chunk's first byte is escaped).
 */
function closingQuote(buf: Buffer, from: number): number {
  const n = buf.length;
  let i = from;
  for (; i < n; i++) {
    const d = buf[i] as number;
    if (d === BACKSLASH) i++;
    else if (d === QUOTE) return i;
  }
  return i;
}
