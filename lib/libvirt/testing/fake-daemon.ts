/**
 * A scripted libvirt daemon on a unix socket, for connection tests: it records every packet, answers the
 * handshake (SUPPORTS_FEATURE, CONNECT_OPEN, CONNECT_CLOSE) by itself, and leaves every other call to the
 * test, which replies, sends messages or drops the client when it wants. Test code only.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type Server, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { PROC } from '../procedures.ts';
import {
  encodePacket,
  MESSAGE_STATUS,
  MESSAGE_TYPE,
  PacketReader,
  REMOTE_PROGRAM,
  remoteErrorCodec,
  type Header,
  type Packet,
  type RemoteError,
} from '../protocol.ts';
import { encode } from '../xdr.ts';

const AUTO: ReadonlyMap<number, Uint8Array> = new Map<number, Uint8Array>([
  [PROC.connectSupportsFeature.procedure, encode(PROC.connectSupportsFeature.ret, { supported: 1 })],
  [PROC.connectOpen.procedure, new Uint8Array()],
  [PROC.connectClose.procedure, new Uint8Array()],
]);

export class FakeDaemon {
  readonly received: Packet[] = [];
  /** Calls not answered automatically, oldest first; the test answers them. */
  readonly calls: Packet[] = [];
  private client: Socket | undefined;
  private waiters: (() => void)[] = [];

  private constructor(
    private readonly server: Server,
    private readonly dir: string,
    readonly path: string,
  ) {}

  static async start(): Promise<FakeDaemon> {
    const dir = mkdtempSync(join(tmpdir(), 'kv-fake-libvirt-'));
    const path = join(dir, 'libvirt-sock');
    const server = createServer();
    const d = new FakeDaemon(server, dir, path);
    server.on('connection', (s) => {
      d.accept(s);
    });
    server.on('error', () => undefined);
    await new Promise<void>((resolve) => server.listen(path, resolve));
    return d;
  }

  private accept(s: Socket): void {
    this.client = s;
    const reader = new PacketReader();
    s.on('error', () => undefined);
    s.on('data', (chunk: Buffer) => {
      for (const p of reader.push(chunk)) this.onPacket(p);
    });
  }

  private onPacket(p: Packet): void {
    this.received.push(p);
    const auto = p.header.program === REMOTE_PROGRAM ? AUTO.get(p.header.procedure) : undefined;
    if (p.header.type === MESSAGE_TYPE.CALL && auto !== undefined) this.reply(p, auto);
    else if (p.header.type === MESSAGE_TYPE.CALL) this.calls.push(p);
    for (const w of this.waiters.splice(0)) w();
  }

  /** Resolves once pred holds (checked after every packet received). */
  async until(pred: () => boolean): Promise<void> {
    while (!pred()) await new Promise<void>((resolve) => this.waiters.push(resolve));
  }

  /** Waits for the next unanswered call and removes it from `calls`. */
  async nextCall(): Promise<Packet> {
    await this.until(() => this.calls.length > 0);
    const p = this.calls.shift();
    if (p === undefined) throw new Error('no call');
    return p;
  }

  send(h: Omit<Header, 'version'>, payload?: Uint8Array): void {
    this.client?.write(encodePacket({ ...h, version: 1 }, payload));
  }

  /** Raw bytes to the client (for corrupt-stream tests). */
  sendRaw(bytes: Uint8Array): void {
    this.client?.write(bytes);
  }

  reply(call: Packet, payload?: Uint8Array): void {
    this.send({ ...call.header, type: MESSAGE_TYPE.REPLY, status: MESSAGE_STATUS.OK }, payload);
  }

  replyError(call: Packet, remoteError: Partial<RemoteError> & Pick<RemoteError, 'code'>): void {
    const err: RemoteError = {
      domain: 10,
      message: null,
      level: 2,
      dom: null,
      str1: null,
      str2: null,
      str3: null,
      int1: -1,
      int2: -1,
      net: null,
      ...remoteError,
    };
    this.send(
      { ...call.header, type: MESSAGE_TYPE.REPLY, status: MESSAGE_STATUS.ERROR },
      encode(remoteErrorCodec, err),
    );
  }

  /** Cuts the client off, as a crashed daemon would. */
  dropClient(): void {
    this.client?.destroy();
  }

  async stop(): Promise<void> {
    this.client?.destroy();
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
    rmSync(this.dir, { recursive: true, force: true });
  }
}
