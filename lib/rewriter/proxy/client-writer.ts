/**
 * Writes a streamed response to the client: sends the head on the first write, batches small pieces (list
 * items) into writes of about 64 KiB, counts bytes, and lets the caller wait while the client is slow
 * (backpressure), or stop when it has gone away.
 */
import type { ServerResponse } from 'node:http';

const BATCH_CHARS = 64 * 1024;

export class ClientWriter {
  private parts: string[] = [];
  private pending = 0;
  private started = false;
  private corked = false;
  bytes = 0;

  /** `coalesce`: writes made in one turn of the event loop leave together (watch streams). */
  constructor(
    private readonly res: ServerResponse,
    private readonly head: () => void,
    private readonly coalesce = false,
  ) {}

  /** Queues data; strings are batched, buffers flush the batch and go out at once. */
  write(data: string | Buffer): void {
    if (typeof data === 'string') {
      if (data === '') return;
      this.parts.push(data);
      this.pending += data.length;
      if (this.pending >= BATCH_CHARS) this.flush();
      return;
    }
    this.flush();
    this.send(data);
  }

  /** Sends what is batched (a watch flushes after every chunk of events). */
  flush(): void {
    if (this.parts.length === 0) return;
    const text = this.parts.length === 1 ? (this.parts[0] as string) : this.parts.join('');
    this.parts = [];
    this.pending = 0;
    this.send(text);
  }

  /** Sends the head now (a watch: the client learns at once that the stream is open). */
  start(): void {
    if (this.started) return;
    this.started = true;
    this.head();
    this.res.flushHeaders();
  }

  get gone(): boolean {
    return this.res.destroyed || this.res.writableEnded;
  }

  /** Resolves once the client has taken what was written, or has gone away. */
  async drained(): Promise<void> {
    if (!this.res.writableNeedDrain || this.gone) return;
    await new Promise<void>((resolve) => {
      const done = (): void => {
        this.res.off('drain', done);
        this.res.off('close', done);
        resolve();
      };
      this.res.on('drain', done);
      this.res.on('close', done);
    });
  }

  end(): void {
    this.flush();
    this.start();
    if (!this.gone) this.res.end();
  }

  private send(data: string | Buffer): void {
    this.start();
    if (this.gone) return;
    // Writes made in one turn of the event loop (several upstream chunks are often consumed in one) leave in
    // one system call at its end: no timer, so nothing waits longer than the current turn.
    if (this.coalesce && !this.corked) {
      this.corked = true;
      this.res.cork();
      setImmediate(() => {
        this.corked = false;
        this.res.uncork();
      });
    }
    this.bytes += typeof data === 'string' ? Buffer.byteLength(data) : data.length;
    this.res.write(data);
  }
}
