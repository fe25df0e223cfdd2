/**
 * Test clients of the REST server, as the api role dials it: HTTPS requests and `wss://` websockets with
 * the plain.kubevirt.io subprotocol, presenting a client certificate (or none) and trusting the test CA.
 */
import { request } from 'node:https';
import { WebSocket } from 'ws';
import { waitFor } from '../../../kernel/testing/wait.ts';
import { PLAIN_STREAM_PROTOCOL } from '../server.ts';
import type { Pem } from './pki.ts';

export interface Reply {
  readonly status: number;
  readonly headers: Record<string, string | string[] | undefined>;
  readonly text: string;
}

export interface Dial {
  readonly port: number;
  readonly ca: Buffer;
  /** The client certificate; none when undefined. */
  readonly client?: Pem | undefined;
}

const tlsOf = (d: Dial): { ca: Buffer; cert?: Buffer; key?: Buffer } => ({
  ca: d.ca,
  ...(d.client !== undefined && { cert: d.client.cert, key: d.client.key }),
});

export function vmiPath(namespace: string, name: string, sub: string): string {
  return `/v1/namespaces/${namespace}/virtualmachineinstances/${name}/${sub}`;
}

/** One request; rejects when the TLS handshake or the connection fails before any response. */
export function call(d: Dial, method: string, path: string, body?: string): Promise<Reply> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: '127.0.0.1', port: d.port, method, path, agent: false, ...tlsOf(d) },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          resolve({
            status: res.statusCode ?? 0,
            headers: res.headers,
            text: Buffer.concat(chunks).toString('utf8'),
          });
        });
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

export interface OpenOptions {
  /** Answer the server's pings (default true). */
  readonly autoPong?: boolean;
}

/** Opens a websocket; resolves once it is open, rejects on an HTTP refusal or a TLS failure. */
export function openStream(d: Dial, path: string, o: OpenOptions = {}): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${d.port}${path}`, [PLAIN_STREAM_PROTOCOL], {
      ...tlsOf(d),
      autoPong: o.autoPong ?? true,
      perMessageDeflate: false,
    });
    ws.once('open', () => {
      ws.removeAllListeners('error');
      ws.on('error', () => undefined);
      resolve(ws);
    });
    ws.once('unexpected-response', (_req, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        reject(
          Object.assign(new Error(`HTTP ${res.statusCode ?? 0}`), {
            status: res.statusCode,
            text: Buffer.concat(chunks).toString('utf8'),
          }),
        );
      });
    });
    ws.once('error', reject);
  });
}

/** Collects what the websocket receives (binary frames) and how it closes. */
export class StreamReader {
  private readonly chunks: Buffer[] = [];
  readonly frameSizes: number[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  constructor(readonly ws: WebSocket) {
    ws.on('message', (data: Buffer, isBinary: boolean) => {
      if (!isBinary) return;
      this.chunks.push(data);
      this.frameSizes.push(data.length);
    });
    this.closed = new Promise((resolve) => {
      ws.once('close', (code: number, reason: Buffer) => {
        resolve({ code, reason: reason.toString('utf8') });
      });
    });
  }

  text(): string {
    return Buffer.concat(this.chunks).toString('utf8');
  }

  bytes(): number {
    return this.chunks.reduce((n, c) => n + c.length, 0);
  }

  /** Resolves with everything read once it contains `s`. */
  waitFor(s: string, timeoutMs: number): Promise<string> {
    return waitFor(
      () => this.text().includes(s) && this.text(),
      () => `${JSON.stringify(s)} on the stream; got ${JSON.stringify(this.text().slice(-400))}`,
      { timeoutMs, intervalMs: 20 },
    );
  }
}
