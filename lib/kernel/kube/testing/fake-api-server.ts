/**
 * Test support: a real API-server stand-in on 127.0.0.1:0 (HTTPS asking for a client certificate, or plain
 * HTTP without a TLS fixture) that records every request (with whether the client presented a trusted
 * certificate) and answers through handlers the test swaps in, upgrade requests included.
 */
import { createServer as createHttpServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';

export interface RecordedRequest {
  method: string;
  /** Path and query as sent. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  clientCertAuthorized: boolean;
  /** The raw request, to watch for its socket closing. */
  raw: IncomingMessage;
}

export type Handler = (req: RecordedRequest, res: ServerResponse) => void;
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export const json = (res: ServerResponse, code: number, body: unknown): void => {
  res.writeHead(code, { 'content-type': 'application/json' });
  res.end(JSON.stringify(body));
};

export class FakeApiServer {
  readonly requests: RecordedRequest[] = [];
  handler: Handler = (req, res) => {
    json(res, 200, { metadata: {}, echo: req.method });
  };
  upgrade: UpgradeHandler = (_req, socket) => {
    socket.destroy();
  };

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  /** With tls (a self-signed certificate and its key, e.g. testenv/pki.ts makeTlsFixture), serves HTTPS. */
  static async start(tls?: { readonly cert: string; readonly key: string }): Promise<FakeApiServer> {
    // Requests a client certificate but lets untrusted clients in, so tests can see what was presented.
    const server = tls
      ? createHttpsServer({
          cert: tls.cert,
          key: tls.key,
          ca: tls.cert,
          requestCert: true,
          rejectUnauthorized: false,
        })
      : createHttpServer();
    server.on('error', () => undefined);
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    const fake = new FakeApiServer(server, `${tls ? 'https' : 'http'}://127.0.0.1:${port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      fake.record(req, res);
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => undefined);
      fake.upgrade(req, socket, head);
    });
    return fake;
  }

  get last(): RecordedRequest {
    const r = this.requests[this.requests.length - 1];
    if (!r) throw new Error('no request received');
    return r;
  }

  async close(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }

  private record(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('error', () => undefined);
    res.on('error', () => undefined);
    req.on('end', () => {
      const url = new URL(req.url ?? '/', 'https://x');
      const rec: RecordedRequest = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: url.pathname,
        query: url.searchParams,
        headers: req.headers,
        body: Buffer.concat(chunks).toString('utf8'),
        clientCertAuthorized: req.socket instanceof TLSSocket && req.socket.authorized,
        raw: req,
      };
      this.requests.push(rec);
      this.handler(rec, res);
    });
  }
}
