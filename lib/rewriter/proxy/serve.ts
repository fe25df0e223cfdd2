/**
 * Listener lifecycle shared by the kube-api and webhook proxies: every request gets an AbortSignal that fires
 * when its client goes away (so the upstream call stops too), a handler that throws never takes the process
 * down, and close() is graceful: stop accepting, end long-running streams (watches) at once, give the other
 * requests in flight up to graceMs, then cut whatever is left, upgraded sockets included. A listener is a TCP
 * address or a unix socket (lib/kernel/safepath listenUnixSocket: born 0600, its group and mode set by descriptor).
 */
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { realClock, type Clock } from '../../kernel/clock.ts';
import { newStatus } from '../../kernel/errors/errors.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { sendStatus } from '../../kernel/http/body.ts';
import { listenUnixSocket, type UnixSocketOptions } from '../../kernel/safepath/index.ts';

type RequestHandler = (req: IncomingMessage, res: ServerResponse, signal: AbortSignal) => Promise<void>;
/** Takes over an upgraded connection; registers the sockets it opens through `track`. */
type UpgradeHandler = (
  req: IncomingMessage,
  socket: Duplex,
  head: Buffer,
  track: (s: Duplex) => void,
) => Promise<void>;

interface TcpEndpoint {
  /** undefined: every interface. */
  readonly host?: string | undefined;
  /** 0 picks a free port. */
  readonly port: number;
}

interface UnixEndpoint {
  readonly socket: UnixSocketOptions;
}

export type Endpoint = TcpEndpoint | UnixEndpoint;

export type ServeOptions = ServeCommon & Endpoint;

interface ServeCommon {
  readonly server: Server;
  readonly log: Logger;
  readonly handle: RequestHandler;
  readonly upgrade?: UpgradeHandler;
  /** Requests that never end on their own (watches): closed first on shutdown. */
  readonly longRunning?: (req: IncomingMessage) => boolean;
  readonly clock?: Clock;
}

export interface ProxyServer {
  /** The TCP port; 0 on a unix socket. */
  readonly port: number;
  /** Stops accepting, ends watches, waits up to graceMs (default 5 s) for the rest, then cuts them. */
  close(graceMs?: number): Promise<void>;
}

interface InFlight {
  readonly ac: AbortController;
  readonly longRunning: boolean;
  readonly done: Promise<void>;
}

export async function serve(opts: ServeOptions): Promise<ProxyServer> {
  const inFlight = new Set<InFlight>();
  const upgraded = new Set<Duplex>();
  opts.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    const ac = new AbortController();
    let finish: () => void = () => undefined;
    const entry: InFlight = {
      ac,
      longRunning: opts.longRunning?.(req) ?? false,
      done: new Promise<void>((resolve) => (finish = resolve)),
    };
    inFlight.add(entry);
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    res.once('close', () => {
      ac.abort();
      inFlight.delete(entry);
      finish();
    });
    opts.handle(req, res, ac.signal).catch((err: unknown) => {
      opts.log.error('request failed', { reason: err, method: req.method, path: req.url });
      if (!res.headersSent) sendStatus(res, newStatus(500, 'the rewriter failed to handle the request'));
      else res.destroy();
    });
  });
  if (opts.upgrade !== undefined) {
    const upgrade = opts.upgrade;
    opts.server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      const track = (s: Duplex): void => {
        upgraded.add(s);
        s.once('close', () => upgraded.delete(s));
      };
      track(socket);
      upgrade(req, socket, head, track).catch((err: unknown) => {
        opts.log.error('upgrade failed', { reason: err, path: req.url });
        socket.destroy();
      });
    });
  }
  opts.server.on('clientError', (_err, socket: Socket) => {
    socket.destroy();
  });
  const port = await listen(opts);
  return {
    port,
    close: async (graceMs = 5000): Promise<void> => {
      const closed = new Promise<void>((resolve) =>
        opts.server.close(() => {
          resolve();
        }),
      );
      opts.server.closeIdleConnections();
      for (const f of inFlight) if (f.longRunning) f.ac.abort();
      const grace = new AbortController();
      await Promise.race([
        Promise.all([...inFlight].map((f) => f.done)),
        (opts.clock ?? realClock).sleep(graceMs, grace.signal).catch(() => undefined),
      ]);
      grace.abort();
      for (const f of inFlight) f.ac.abort();
      for (const s of upgraded) s.destroy();
      opts.server.closeAllConnections();
      await closed;
    },
  };
}

async function listen(opts: ServeOptions): Promise<number> {
  if ('socket' in opts) await listenUnixSocket(opts.server, opts.socket);
  else
    await new Promise<void>((resolve, reject) => {
      opts.server.once('error', reject);
      opts.server.listen(opts.port, opts.host, () => {
        opts.server.off('error', reject);
        resolve();
      });
    });
  opts.server.on('error', (err) => {
    opts.log.error('listener error', { reason: err });
  });
  return 'socket' in opts ? 0 : (opts.server.address() as AddressInfo).port;
}
