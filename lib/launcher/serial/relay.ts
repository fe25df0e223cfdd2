/**
 * The serial console seen from outside the launcher. QEMU binds its serial port to a private unix socket and
 * drops whatever it prints while no client is connected. The launcher attaches to that socket while the
 * domain is still paused, keeps the tail of the output, and serves the VMI's public console socket
 * (`<private>/<uid>/virt-serial0`): each client first gets the kept output, then the live stream; what
 * clients type goes to the guest. QEMU's own log file (virtlogd) keeps the complete output. The guest is never
 * held up by a console: a client that leaves more than `clientBufferBytes` of output unread is dropped (the
 * others and the history go on), and what clients type waits while QEMU does not read it.
 */
import { existsSync } from 'node:fs';
import { mkdir, unlink } from 'node:fs/promises';
import { createConnection, createServer, type Server, type Socket } from 'node:net';
import { dirname } from 'node:path';
import { realClock, type Clock } from '../../kernel/clock.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { ByteHistory } from './history.ts';

const DEFAULT_HISTORY_BYTES = 256 * 1024;
/**
 * Output a console client may leave unread before it is dropped: 16 times the history it is sent first, a
 * few seconds of a guest printing flat out, so a slow link that lags is not dropped for a burst.
 */
export const DEFAULT_CLIENT_BUFFER_BYTES = 4 * 1024 * 1024;

function connectOnce(path: string): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const s = createConnection({ path });
    s.once('connect', () => {
      s.removeAllListeners('error');
      resolve(s);
    });
    s.once('error', reject);
  });
}

export class SerialRelay {
  private readonly clients = new Set<Socket>();
  private readonly history: ByteHistory;
  private upstream: Socket | undefined;

  private constructor(
    private readonly server: Server,
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly limits: { readonly historyBytes: number; readonly clientBufferBytes: number },
  ) {
    this.history = new ByteHistory(limits.historyBytes);
  }

  /** Serves the public socket (replacing a stale one). */
  static async listen(o: {
    publicPath: string;
    log: Logger;
    clock?: Clock;
    historyBytes?: number;
    clientBufferBytes?: number;
  }): Promise<SerialRelay> {
    await mkdir(dirname(o.publicPath), { recursive: true });
    if (existsSync(o.publicPath)) await unlink(o.publicPath);
    const server = createServer();
    const relay = new SerialRelay(server, o.log, o.clock ?? realClock, {
      historyBytes: o.historyBytes ?? DEFAULT_HISTORY_BYTES,
      clientBufferBytes: o.clientBufferBytes ?? DEFAULT_CLIENT_BUFFER_BYTES,
    });
    server.on('connection', (c) => {
      relay.addClient(c);
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(o.publicPath, () => {
        server.off('error', reject);
        server.on('error', (err) => {
          o.log.warning('serial console socket failed', { reason: err });
        });
        resolve();
      });
    });
    return relay;
  }

  /** The output kept so far (this boot). */
  output(): Buffer {
    return this.history.contents();
  }

  get attached(): boolean {
    return this.upstream !== undefined;
  }

  /** Connects to QEMU's serial socket (retrying until it appears); starts a fresh history. */
  async attach(upstreamPath: string, timeoutMs = 10_000): Promise<void> {
    this.detach();
    this.history.clear();
    const deadline = this.clock.now() + timeoutMs;
    let sock: Socket | undefined;
    while (sock === undefined) {
      try {
        sock = await connectOnce(upstreamPath);
      } catch (err) {
        if (this.clock.now() > deadline) {
          throw new KvError('KV_ERR_TIMEOUT', `serial port ${upstreamPath} not reachable`, { cause: err });
        }
        await this.clock.sleep(20);
      }
    }
    const up = sock;
    this.upstream = up;
    up.on('data', (chunk: Buffer) => {
      this.history.push(chunk);
      for (const c of this.clients) this.send(c, chunk);
    });
    up.on('error', (err) => {
      this.log.v(3).info('serial port connection error', { reason: err });
    });
    up.on('close', () => {
      if (this.upstream === up) this.upstream = undefined;
    });
  }

  detach(): void {
    this.upstream?.destroy();
    this.upstream = undefined;
  }

  /** Output to one client; a client that has more than the limit unread is dropped. */
  private send(client: Socket, chunk: Buffer): void {
    client.write(chunk);
    const buffered = client.writableLength;
    if (buffered <= this.limits.clientBufferBytes) return;
    this.log.warning('serial console client dropped: it does not read', {
      bufferedBytes: buffered,
      limitBytes: this.limits.clientBufferBytes,
    });
    this.clients.delete(client);
    client.destroy();
  }

  /** Input to the guest; while QEMU does not take it, the client is not read either. */
  private toGuest(client: Socket, chunk: Buffer): void {
    const up = this.upstream;
    if (up === undefined || up.write(chunk)) return;
    client.pause();
    const resume = (): void => {
      up.off('drain', resume);
      up.off('close', resume);
      client.resume();
    };
    up.on('drain', resume);
    up.on('close', resume);
  }

  private addClient(socket: Socket): void {
    this.clients.add(socket);
    socket.on('error', () => {
      socket.destroy();
    });
    socket.on('close', () => this.clients.delete(socket));
    socket.on('data', (chunk: Buffer) => {
      this.toGuest(socket, chunk);
    });
    const kept = this.history.contents();
    if (kept.length > 0) this.send(socket, kept);
  }

  async close(): Promise<void> {
    this.detach();
    for (const c of this.clients) c.destroy();
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }
}
