/**
 * Splits a byte stream into '\n'-terminated lines, fed one chunk at a time (a watch body arrives in arbitrary
 * pieces). Splitting happens on bytes, before decoding: the byte 0x0A never occurs inside a multi-byte UTF-8
 * sequence, so a character cut across two chunks is only decoded once its whole line is in. Pure: no IO.
 */
const NEWLINE = 0x0a;
const CARRIAGE_RETURN = 0x0d;

export class LineSplitter {
  private readonly decoder = new TextDecoder('utf-8');
  /** Bytes of the current, not yet terminated line, kept as pieces to avoid re-copying on every chunk. */
  private pending: Uint8Array[] = [];
  private pendingBytes = 0;

  /** Feeds one chunk; returns the lines it completed, without their terminator ('\r\n' or '\n'). */
  push(chunk: Uint8Array): string[] {
    const lines: string[] = [];
    let start = 0;
    let nl = chunk.indexOf(NEWLINE, start);
    while (nl !== -1) {
      this.keep(chunk.subarray(start, nl));
      lines.push(this.takeLine());
      start = nl + 1;
      nl = chunk.indexOf(NEWLINE, start);
    }
    this.keep(chunk.subarray(start));
    return lines;
  }

  /** Ends the stream: returns the last line when the stream did not end with a newline. */
  end(): string[] {
    return this.pendingBytes > 0 ? [this.takeLine()] : [];
  }

  /** Bytes buffered for the line in progress. */
  get bufferedBytes(): number {
    return this.pendingBytes;
  }

  private keep(bytes: Uint8Array): void {
    if (bytes.length === 0) return;
    // Copy: the caller may reuse its buffer once push returns.
    this.pending.push(bytes.slice());
    this.pendingBytes += bytes.length;
  }

  private takeLine(): string {
    const bytes = this.pending.length === 1 ? (this.pending[0] ?? new Uint8Array()) : concat(this.pending);
    this.pending = [];
    this.pendingBytes = 0;
    const end =
      bytes.length > 0 && bytes[bytes.length - 1] === CARRIAGE_RETURN ? bytes.length - 1 : bytes.length;
    return this.decoder.decode(bytes.subarray(0, end));
  }
}

function concat(parts: readonly Uint8Array[]): Uint8Array {
  const out = new Uint8Array(parts.reduce((n, p) => n + p.length, 0));
  let at = 0;
  for (const p of parts) {
    out.set(p, at);
    at += p.length;
  }
  return out;
}
