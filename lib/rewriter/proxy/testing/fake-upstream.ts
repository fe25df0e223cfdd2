/**
 * Test support: a real API-server stand-in on 127.0.0.1:0 (plain HTTP, or HTTPS asking for a client
 * certificate) that records each request with its body and answers through a handler the test scripts,
 * including upgrade requests.
 */
import { createServer as createHttpServer } from 'node:http';
import type { IncomingHttpHeaders, IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import type { TlsFixture } from '../../../kernel/kube/testing/tls-fixture.ts';

export interface Recorded {
  method: string;
  /** Path and query as received. */
  url: string;
  path: string;
  query: URLSearchParams;
  headers: IncomingHttpHeaders;
  body: string;
  clientCertAuthorized: boolean;
  raw: IncomingMessage;
}

export type UpstreamHandler = (req: Recorded, res: ServerResponse) => void;
export type UpgradeHandler = (req: IncomingMessage, socket: Duplex, head: Buffer) => void;

export function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

export class FakeUpstream {
  readonly requests: Recorded[] = [];
  handler: UpstreamHandler = (req, res) => {
    sendJson(res, 200, { kind: 'Echo', method: req.method });
  };
  upgrade: UpgradeHandler = (_req, socket) => {
    socket.destroy();
  };

  private constructor(
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(tls?: TlsFixture): Promise<FakeUpstream> {
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
    const fake = new FakeUpstream(server, `${tls ? 'https' : 'http'}://127.0.0.1:${port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      fake.record(req, res);
    });
    server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
      socket.on('error', () => undefined);
      fake.upgrade(req, socket, head);
    });
    return fake;
  }

  get last(): Recorded {
    const r = this.requests[this.requests.length - 1];
    if (!r) throw new Error('the upstream received no request');
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
      const url = new URL(req.url ?? '/', 'http://x');
      const rec: Recorded = {
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
