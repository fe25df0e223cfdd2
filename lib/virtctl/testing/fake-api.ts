/**
 * Test support: a real HTTPS API server on 127.0.0.1 that requires a client certificate from its CA, records
 * every request (method, path with query, body, client certificate CN, websocket subprotocol) and answers from
 * the routes a test sets: JSON answers, or websocket upgrades accepted (subprotocol plain.kubevirt.io) or
 * refused with a Status. Anything unrouted is 404 with a Kubernetes Status. Plus a kubeconfig for it.
 */
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { TLSSocket } from 'node:tls';
import type { Duplex } from 'node:stream';
import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { WebSocketServer, type WebSocket } from 'ws';
import { newStatus } from '../../kernel/errors/errors.ts';
import { makeTestPki, pemOf, type TestPem } from '../../../testenv/pki.ts';

export interface Recorded {
  readonly method: string;
  readonly path: string;
  readonly body: string;
  readonly clientCn: string | undefined;
  readonly protocol: string | undefined;
  readonly authorization: string | undefined;
}

export interface Answer {
  readonly status: number;
  readonly body?: unknown;
}

export type Route = (r: Recorded) => Answer | undefined;
export type WsRoute = (r: Recorded) => { refuse: Answer } | { accept: (ws: WebSocket) => void } | undefined;

export interface TestPkiSet {
  readonly ca: TestPem;
  readonly server: TestPem;
  readonly client: TestPem;
  /** A CA the server does not know, for TLS failures. */
  readonly otherCa: TestPem;
}

export async function makeApiPki(): Promise<TestPkiSet> {
  const pki = await makeTestPki([
    { name: 'ca', cn: 'virtctl-test-ca' },
    { name: 'other', cn: 'some-other-ca' },
    { name: 'server', cn: '127.0.0.1', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'client', cn: 'jane', issuer: 'ca', usage: 'clientAuth' },
  ]);
  return {
    ca: pemOf(pki, 'ca'),
    server: pemOf(pki, 'server'),
    client: pemOf(pki, 'client'),
    otherCa: pemOf(pki, 'other'),
  };
}

function statusBody(a: Answer): string {
  if (a.body !== undefined) return typeof a.body === 'string' ? a.body : JSON.stringify(a.body);
  return JSON.stringify(newStatus(a.status, `the server answered ${a.status}`));
}

export class FakeApi {
  readonly requests: Recorded[] = [];
  routes: Route[] = [];
  wsRoutes: WsRoute[] = [];
  private readonly wss = new WebSocketServer({
    noServer: true,
    handleProtocols: (p: Set<string>): string | false =>
      p.has('plain.kubevirt.io') ? 'plain.kubevirt.io' : false,
  });

  private constructor(
    readonly pki: TestPkiSet,
    private readonly server: Server,
    readonly url: string,
  ) {}

  static async start(pki: TestPkiSet): Promise<FakeApi> {
    const server = createServer({
      key: pki.server.key,
      cert: pki.server.cert,
      ca: pki.ca.cert,
      requestCert: true,
      rejectUnauthorized: true,
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const addr = server.address();
    const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
    const api = new FakeApi(pki, server, `https://127.0.0.1:${port}`);
    server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      api.onRequest(req, res);
    });
    server.on('upgrade', (req: IncomingMessage, sock: Duplex, head: Buffer) => {
      api.onUpgrade(req, sock, head);
    });
    return api;
  }

  private record(req: IncomingMessage, body: string): Recorded {
    const peer = req.socket instanceof TLSSocket ? req.socket.getPeerCertificate() : undefined;
    const r: Recorded = {
      method: req.method ?? '',
      path: req.url ?? '',
      body,
      clientCn: typeof peer?.subject.CN === 'string' ? peer.subject.CN : undefined,
      protocol: req.headers['sec-websocket-protocol'],
      authorization: req.headers.authorization,
    };
    this.requests.push(r);
    return r;
  }

  private onRequest(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const r = this.record(req, Buffer.concat(chunks).toString('utf8'));
      const a = this.routes.map((route) => route(r)).find((x) => x !== undefined) ?? notFound(r.path);
      res.writeHead(a.status, { 'content-type': 'application/json' });
      res.end(a.status === 202 && a.body === undefined ? '' : statusBody(a));
    });
  }

  private onUpgrade(req: IncomingMessage, sock: Duplex, head: Buffer): void {
    const r = this.record(req, '');
    const route = this.wsRoutes.map((w) => w(r)).find((x) => x !== undefined);
    if (route === undefined || 'refuse' in route) {
      const a = route?.refuse ?? notFound(r.path);
      const body = statusBody(a);
      sock.end(
        `HTTP/1.1 ${a.status} Refused\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
      );
      return;
    }
    this.wss.handleUpgrade(req, sock, head, (ws) => {
      route.accept(ws);
    });
  }

  /** Writes a kubeconfig for this server with the test client certificate; contexts as asked. */
  async kubeconfig(
    dir: string,
    o: { namespace?: string; ca?: string; server?: string } = {},
  ): Promise<string> {
    const b64 = (s: string): string => Buffer.from(s).toString('base64');
    const ns = o.namespace === undefined ? '' : `\n    namespace: ${o.namespace}`;
    const text = `apiVersion: v1
kind: Config
clusters:
- name: test
  cluster:
    server: ${o.server ?? this.url}
    certificate-authority-data: ${b64(o.ca ?? this.pki.ca.cert)}
users:
- name: jane
  user:
    client-certificate-data: ${b64(this.pki.client.cert)}
    client-key-data: ${b64(this.pki.client.key)}
contexts:
- name: main
  context:
    cluster: test
    user: jane${ns}
- name: other
  context:
    cluster: test
    user: jane
    namespace: elsewhere
current-context: main
`;
    const file = join(dir, `kubeconfig-${String(this.requests.length)}-${String(Math.random()).slice(2)}`);
    await writeFile(file, text);
    return file;
  }

  async close(): Promise<void> {
    for (const c of this.wss.clients) c.terminate();
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => {
      this.server.close(() => {
        resolve();
      });
    });
  }
}

function notFound(path: string): Answer {
  return { status: 404, body: newStatus(404, `the server could not find the requested resource (${path})`) };
}

/** A route answering one method and exact path (query ignored). */
export function on(method: string, path: string, answer: Answer | ((r: Recorded) => Answer)): Route {
  return (r) => {
    if (r.method !== method || r.path.split('?')[0] !== path) return undefined;
    return typeof answer === 'function' ? answer(r) : answer;
  };
}
