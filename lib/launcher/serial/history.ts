/**
 * The last N bytes a serial port printed, so a console that connects late still sees the boot output. Pure:
 * bytes in, the kept tail out.
 */
export class ByteHistory {
  private chunks: Buffer[] = [];
  private size = 0;

  constructor(readonly limit: number) {}

  push(chunk: Buffer): void {
    if (chunk.length === 0 || this.limit <= 0) return;
    this.chunks.push(chunk);
    this.size += chunk.length;
    while (this.size > this.limit) {
      const first = this.chunks[0];
      if (first === undefined) break;
      const excess = this.size - this.limit;
      if (first.length <= excess) {
        this.chunks.shift();
        this.size -= first.length;
      } else {
        this.chunks[0] = first.subarray(excess);
        this.size -= excess;
      }
    }
  }

  get length(): number {
    return this.size;
  }

  contents(): Buffer {
    return Buffer.concat(this.chunks, this.size);
  }

  clear(): void {
    this.chunks = [];
    this.size = 0;
  }
}
