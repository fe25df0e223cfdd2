/**
 * One connection to a libvirt daemon over its unix socket, speaking libvirt's RPC protocol: calls carry a
 * serial number and may run concurrently (replies are matched by serial); asynchronous MESSAGE packets
 * (domain events) go to handlers registered per (program, procedure); keepalive PINGs from the daemon are
 * answered, and our own PINGs detect a dead daemon. When the connection drops, every call in flight is
 * rejected with KV_ERR_TRANSPORT.
 */
import { createConnection, type Socket } from 'node:net';
import { realClock, type Clock } from '../kernel/clock.ts';
import { errorMessage, KvError } from '../kernel/errors/errors.ts';
import { nopLogger, type Logger } from '../kernel/log/log.ts';
import { DRV_FEATURE } from './constants.ts';
import { KeepAlive } from './keepalive.ts';
import { PROC, type Procedure } from './procedures.ts';
import {
  decodeRemoteError,
  encodePacket,
  KEEPALIVE_PROC,
  KEEPALIVE_PROGRAM,
  MESSAGE_STATUS,
  MESSAGE_TYPE,
  PacketReader,
  PROTOCOL_VERSION,
  type Header,
  type Packet,
} from './protocol.ts';
import * as x from './xdr.ts';

export interface KeepAliveSettings {
  intervalMs: number;
  count: number;
}

export interface OpenOptions {
  socketPath: string;
  /** The driver URI the daemon serves, e.g. 'qemu:///system' or 'qemu:///session'. */
  uri: string;
  log?: Logger;
  clock?: Clock;
  /** Our own PINGs (libvirt's client default: every 5 s idle, dead after 5 misses); false turns them off. */
  keepAlive?: KeepAliveSettings | false;
  /** Deadline of a call unless the call gives its own (default 60 s). */
  callTimeoutMs?: number;
  connectTimeoutMs?: number;
}

export interface CallOptions {
  timeoutMs?: number;
  signal?: AbortSignal;
}

export type MessageHandler = (payload: Buffer, header: Header) => void;

interface Pending {
  name: string;
  onReply: (p: Packet) => void;
  fail: (err: Error) => void;
}

const DEFAULT_KEEPALIVE: KeepAliveSettings = { intervalMs: 5000, count: 5 };

export class LibvirtConnection {
  private serial = 0;
  private readonly pending = new Map<number, Pending>();
  private readonly handlers = new Map<string, Set<MessageHandler>>();
  private readonly closeListeners = new Set<(err: Error | undefined) => void>();
  private readonly reader = new PacketReader();
  private keepAlive: KeepAlive | undefined;
  private closed = false;
  private closing = false;

  private constructor(
    private readonly socket: Socket,
    private readonly log: Logger,
    private readonly clock: Clock,
    private readonly callTimeoutMs: number,
  ) {
    socket.on('data', (chunk: Buffer) => {
      this.onData(chunk);
    });
    let socketError: Error | undefined;
    socket.on('error', (err) => {
      socketError = err;
    });
    socket.on('close', () => {
      const why = this.closing ? undefined : (socketError ?? new Error('closed by the daemon'));
      this.shutdown(why);
    });
  }

  /** Connects, starts keepalive when the daemon supports it, and opens the driver URI. */
  static async open(opts: OpenOptions): Promise<LibvirtConnection> {
    const clock = opts.clock ?? realClock;
    const log = (opts.log ?? nopLogger).with({ socket: opts.socketPath, uri: opts.uri });
    const socket = await connectUnix(opts.socketPath, opts.connectTimeoutMs ?? 10_000, clock);
    const conn = new LibvirtConnection(socket, log, clock, opts.callTimeoutMs ?? 60_000);
    try {
      const ka = opts.keepAlive === undefined ? DEFAULT_KEEPALIVE : opts.keepAlive;
      if (ka !== false) await conn.startKeepAlive(ka);
      await conn.call(PROC.connectOpen, { name: opts.uri, flags: 0 });
    } catch (err) {
      conn.closing = true;
      conn.socket.destroy();
      throw err;
    }
    log.info('libvirt connection open');
    return conn;
  }

  get isOpen(): boolean {
    return !this.closed && !this.closing;
  }

  /** Calls a procedure and resolves its decoded result; a libvirt failure rejects with LibvirtError. */
  call<A, R>(proc: Procedure<A, R>, args: A, co: CallOptions = {}): Promise<R> {
    if (!this.isOpen) {
      return Promise.reject(new KvError('KV_ERR_TRANSPORT', `libvirt ${proc.name}: connection is closed`));
    }
    return this.request(proc, args, co);
  }

  private request<A, R>(proc: Procedure<A, R>, args: A, co: CallOptions): Promise<R> {
    const serial = this.nextSerial();
    return new Promise<R>((resolve, reject) => {
      // Inside the executor: arguments the schema cannot encode reject the call rather than throw.
      const payload = x.encode(proc.args, args);
      const timeoutMs = co.timeoutMs ?? this.callTimeoutMs;
      const done = (): void => {
        timer.cancel();
        co.signal?.removeEventListener('abort', onAbort);
        this.pending.delete(serial);
      };
      const fail = (err: Error): void => {
        done();
        reject(err);
      };
      const timer = this.clock.after(timeoutMs, () => {
        fail(new KvError('KV_ERR_TIMEOUT', `libvirt ${proc.name}: no reply within ${timeoutMs} ms`));
      });
      const onAbort = (): void => {
        fail(new KvError('KV_ERR_ABORTED', `libvirt ${proc.name}: aborted`, { cause: co.signal?.reason }));
      };
      co.signal?.addEventListener('abort', onAbort, { once: true });
      const onReply = (p: Packet): void => {
        done();
        settleReply(proc, p, resolve, reject);
      };
      this.pending.set(serial, { name: proc.name, onReply, fail });
      if (co.signal?.aborted === true) {
        onAbort();
        return;
      }
      this.send(
        { program: proc.program, procedure: proc.procedure, type: MESSAGE_TYPE.CALL, serial },
        payload,
      );
    });
  }

  /** Receives the MESSAGE packets of one (program, procedure); returns the unsubscribe function. */
  onMessage(program: number, procedure: number, handler: MessageHandler): () => void {
    const key = `${program}:${procedure}`;
    const set = this.handlers.get(key) ?? new Set();
    this.handlers.set(key, set);
    set.add(handler);
    return () => set.delete(handler);
  }

  /** Called once when the connection ends: err is undefined after close(), the cause otherwise. */
  onClose(listener: (err: Error | undefined) => void): () => void {
    this.closeListeners.add(listener);
    return () => this.closeListeners.delete(listener);
  }

  /** Closes the driver connection (CONNECT_CLOSE, best effort) and the socket. */
  async close(): Promise<void> {
    if (!this.isOpen) return;
    this.closing = true;
    try {
      await this.request(PROC.connectClose, undefined, { timeoutMs: 5000 });
    } catch (err) {
      this.log.v(2).info('libvirt CONNECT_CLOSE failed; closing the socket anyway', { reason: err });
    }
    if (this.closed) return;
    const gone = new Promise<void>((resolve) => {
      this.socket.once('close', () => {
        resolve();
      });
    });
    this.socket.end();
    const force = this.clock.after(5000, () => {
      this.socket.destroy();
    });
    await gone;
    force.cancel();
  }

  private async startKeepAlive(keepAliveSettings: KeepAliveSettings): Promise<void> {
    const { supported } = await this.call(PROC.connectSupportsFeature, {
      feature: DRV_FEATURE.PROGRAM_KEEPALIVE,
    });
    if (supported !== 1) return;
    this.keepAlive = new KeepAlive({
      ...keepAliveSettings,
      clock: this.clock,
      sendPing: (): void => {
        this.sendKeepAlive(KEEPALIVE_PROC.PING);
      },
      onDead: (): void => {
        this.log.warning('libvirt daemon did not answer keepalive; dropping the connection', { ...keepAliveSettings });
        this.shutdown(new Error(`no keepalive answer in ${keepAliveSettings.intervalMs * (keepAliveSettings.count + 1)} ms`));
        this.socket.destroy();
      },
    });
    this.keepAlive.start();
  }

  private nextSerial(): number {
    this.serial = (this.serial + 1) >>> 0;
    return this.serial;
  }

  private send(h: Pick<Header, 'program' | 'procedure' | 'type' | 'serial'>, payload?: Uint8Array): void {
    this.socket.write(encodePacket({ ...h, version: PROTOCOL_VERSION, status: MESSAGE_STATUS.OK }, payload));
  }

  private sendKeepAlive(procedure: number): void {
    this.send({ program: KEEPALIVE_PROGRAM, procedure, type: MESSAGE_TYPE.MESSAGE, serial: 0 });
  }

  private onData(chunk: Buffer): void {
    let packets: Packet[];
    try {
      packets = this.reader.push(chunk);
    } catch (err) {
      this.log.error('libvirt stream is corrupt; dropping the connection', { reason: err });
      this.shutdown(err as Error);
      this.socket.destroy();
      return;
    }
    for (const p of packets) this.onPacket(p);
  }

  private onPacket(p: Packet): void {
    this.keepAlive?.seen();
    const h = p.header;
    if (h.program === KEEPALIVE_PROGRAM) {
      if (h.procedure === KEEPALIVE_PROC.PING) this.sendKeepAlive(KEEPALIVE_PROC.PONG);
      return;
    }
    if (h.type === MESSAGE_TYPE.REPLY) {
      // A reply without a waiter answers a call that already timed out or was aborted.
      this.pending.get(h.serial)?.onReply(p);
      return;
    }
    if (h.type === MESSAGE_TYPE.MESSAGE) {
      this.dispatch(p);
      return;
    }
    this.log
      .v(2)
      .info('libvirt packet of an unexpected type ignored', { type: h.type, procedure: h.procedure });
  }

  private dispatch(packet: Packet): void {
    const set = this.handlers.get(`${packet.header.program}:${packet.header.procedure}`);
    if (set === undefined || set.size === 0) return;
    for (const handler of set) {
      try {
        handler(packet.payload, packet.header);
      } catch (err) {
        this.log.error('libvirt message handler failed', { procedure: packet.header.procedure, reason: err });
      }
    }
  }

  private shutdown(cause: Error | undefined): void {
    if (this.closed) return;
    this.closed = true;
    this.keepAlive?.stop();
    const why = cause === undefined ? 'connection closed' : `connection lost: ${errorMessage(cause)}`;
    for (const p of [...this.pending.values()]) {
      p.fail(new KvError('KV_ERR_TRANSPORT', `libvirt ${p.name}: ${why}`, { cause }));
    }
    if (cause !== undefined) this.log.warning('libvirt connection lost', { reason: cause });
    for (const l of this.closeListeners) l(cause);
    this.closeListeners.clear();
  }
}

function settleReply<R>(
  proc: Procedure<unknown, R>,
  packet: Packet,
  resolve: (v: R) => void,
  reject: (e: Error) => void,
): void {
  try {
    if (packet.header.status === MESSAGE_STATUS.ERROR) reject(decodeRemoteError(packet.payload));
    else resolve(x.decode(proc.ret, packet.payload));
  } catch (err) {
    reject(
      new KvError('KV_ERR_DECODE', `libvirt ${proc.name}: bad reply: ${errorMessage(err)}`, { cause: err }),
    );
  }
}

function connectUnix(path: string, timeoutMs: number, clock: Clock): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = createConnection({ path });
    const timer = clock.after(timeoutMs, () => {
      socket.destroy();
      reject(new KvError('KV_ERR_TIMEOUT', `libvirt: connect to ${path} timed out after ${timeoutMs} ms`));
    });
    socket.once('connect', () => {
      timer.cancel();
      resolve(socket);
    });
    // Stays attached: after 'connect' it only keeps a late error from going unhandled (the connection's
    // own listener reports it).
    socket.on('error', (err) => {
      timer.cancel();
      reject(new KvError('KV_ERR_TRANSPORT', `libvirt: cannot connect to ${path}`, { cause: err }));
    });
  });
}
