/**
 * The launcher's end of port-forward (lib/rpc/port-forward.ts): a unix socket in the `sockets` emptyDir that
 * only its user and root (the handler) may open; per connection it reads the request line, connects to
 * 127.0.0.1:<port> inside the Pod's network namespace (the masquerade NAT sends loopback connections on to the
 * guest's address), answers, then relays bytes both ways until either side closes. A guest port that refuses
 * or does not answer within connectTimeoutMs is answered `error …` at once, never left hanging. A UDP request
 * gets a UDP socket connected to the port, and datagrams framed on the stream both ways (a refused datagram,
 * an ICMP port unreachable, is dropped as UDP drops it).
 */
import { createSocket } from 'node:dgram';
import { connect, createServer, type Server, type Socket } from 'node:net';
import { chmod } from 'node:fs/promises';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { prepareSocketPath } from '../../rpc/listen.ts';
import {
  answerLine,
  DatagramReader,
  frameDatagram,
  parseRequestLine,
  readLine,
} from '../../rpc/port-forward.ts';

const REQUEST_TIMEOUT_MS = 5_000;
const DEFAULT_CONNECT_TIMEOUT_MS = 5_000;
/** Datagrams queued towards the handler beyond this are dropped. */
const MAX_QUEUED_BYTES = 1024 * 1024;
const MAX_PENDING = 64;

export interface PortForwardServerOptions {
  readonly path: string;
  readonly log: Logger;
  /** Where the ports are dialled (default 127.0.0.1: the Pod's loopback). */
  readonly host?: string;
  readonly connectTimeoutMs?: number;
}

const WHY: Readonly<Record<string, string>> = {
  ECONNREFUSED: 'connection refused',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ECONNRESET: 'connection reset',
};

function dial(host: string, port: number, timeoutMs: number): Promise<Socket> {
  return new Promise((resolve, reject) => {
    const socket = connect({ host, port });
    const timer = setTimeout(() => {
      socket.destroy();
      reject(new Error(`no answer within ${timeoutMs} ms`));
    }, timeoutMs);
    socket.once('connect', () => {
      clearTimeout(timer);
      resolve(socket);
    });
    socket.once('error', (err: NodeJS.ErrnoException) => {
      clearTimeout(timer);
      reject(new Error(WHY[err.code ?? ''] ?? err.message));
    });
  });
}

/** Datagrams between the stream and a UDP socket connected to host:port, until the stream ends. */
function relayUdp(client: Socket, host: string, port: number): void {
  const udp = createSocket('udp4');
  const reader = new DatagramReader();
  const pending: Buffer[] = [];
  // Before the connect completes (at once for UDP), at most a few datagrams wait.
  let connected = false;
  udp.on('error', () => undefined);
  udp.on('message', (payload) => {
    // A handler that does not read loses datagrams, as UDP would: never a queue without bound.
    if (client.writableLength < MAX_QUEUED_BYTES) client.write(frameDatagram(payload));
  });
  udp.connect(port, host, () => {
    connected = true;
    for (const p of pending.splice(0)) udp.send(p);
  });
  client.on('data', (chunk: Buffer) => {
    for (const d of reader.push(chunk)) {
      if (connected) udp.send(d);
      else if (pending.length < MAX_PENDING) pending.push(d);
    }
  });
  client.on('close', () => {
    try {
      udp.close();
    } catch {
      // Closed already.
    }
  });
  client.write(answerLine({ ok: true }));
  client.resume();
}

async function serve(client: Socket, o: PortForwardServerOptions): Promise<void> {
  client.on('error', () => undefined);
  const request = parseRequestLine(await readLine(client, REQUEST_TIMEOUT_MS));
  const log = o.log.with({ protocol: request.protocol, port: request.port });
  if (request.protocol === 'udp') {
    relayUdp(client, o.host ?? '127.0.0.1', request.port);
    log.v(2).info('port-forward connected');
    return;
  }
  let guest: Socket;
  try {
    guest = await dial(o.host ?? '127.0.0.1', request.port, o.connectTimeoutMs ?? DEFAULT_CONNECT_TIMEOUT_MS);
  } catch (err) {
    log.info('port-forward refused', { reason: errorMessage(err) });
    client.end(answerLine({ ok: false, error: `port ${request.port}: ${errorMessage(err)}` }));
    return;
  }
  guest.on('error', () => client.destroy());
  client.on('error', () => guest.destroy());
  client.write(answerLine({ ok: true }));
  client.pipe(guest);
  guest.pipe(client);
  log.v(2).info('port-forward connected');
}

/** Listens on o.path (mode 0600; its directory made, a stale socket there replaced) until closed. */
export async function listenPortForward(o: PortForwardServerOptions): Promise<{ close(): Promise<void> }> {
  const server: Server = createServer((client) => {
    serve(client, o).catch((err: unknown) => {
      o.log.v(2).info('port-forward request refused', { reason: errorMessage(err) });
      client.destroy();
    });
  });
  await prepareSocketPath(o.path);
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(o.path, () => {
      server.off('error', reject);
      resolve();
    });
  });
  await chmod(o.path, 0o600);
  return {
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      }),
  };
}
