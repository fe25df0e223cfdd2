/**
 * The api's calls to a handler's REST server (kubevirt pkg/virt-api/rest/dialers.go): mutual TLS with the
 * api's client certificate, the handler's certificate checked against the CA that signs it and, when
 * `serverName` is set, its common name (KubeVirt checks the handler's CN, not the node address it dials).
 * Requests answer with the handler's status and text; a stream resolves to the open websocket or rejects with the
 * handler's refusal (its status and text), or with the transport error. Each dial reads the TLS material anew, so
 * a ReloadableHandlerTls rotated from its files serves the next call.
 */
import { request } from 'node:https';
import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import type { IncomingMessage } from 'node:http';
import { WebSocket } from 'ws';

export const PLAIN_STREAM_PROTOCOL = 'plain.kubevirt.io';
const HANDSHAKE_TIMEOUT_MS = 10_000;
const REQUEST_TIMEOUT_MS = 30_000;

export interface HandlerTls {
  readonly ca: Buffer;
  readonly cert: Buffer;
  readonly key: Buffer;
  /** The common name the handler's certificate must carry; unset: the address dialled must be in its SANs. */
  readonly serverName?: string;
}

/** A HandlerTls whose CA, certificate and key can be replaced (rotated files); the server name stays. */
export class ReloadableHandlerTls implements HandlerTls {
  readonly serverName?: string;
  private pems: Pick<HandlerTls, 'ca' | 'cert' | 'key'>;

  constructor(tls: HandlerTls) {
    this.pems = { ca: tls.ca, cert: tls.cert, key: tls.key };
    if (tls.serverName !== undefined) this.serverName = tls.serverName;
  }

  get ca(): Buffer {
    return this.pems.ca;
  }
  get cert(): Buffer {
    return this.pems.cert;
  }
  get key(): Buffer {
    return this.pems.key;
  }

  reload(pems: Pick<HandlerTls, 'ca' | 'cert' | 'key'>): void {
    this.pems = { ca: pems.ca, cert: pems.cert, key: pems.key };
  }
}

export interface HandlerAddress {
  readonly host: string;
  readonly port: number;
}

export interface HandlerReply {
  readonly status: number;
  readonly text: string;
  readonly contentType?: string;
}

/** A refusal from the handler (any answer but the upgrade), or a failure to reach it (status undefined). */
export class HandlerDialError extends Error {
  constructor(
    message: string,
    readonly status?: number,
  ) {
    super(message);
    this.name = 'HandlerDialError';
  }
}

function tlsOptions(tls: HandlerTls): Record<string, unknown> {
  const name = tls.serverName;
  return {
    ca: tls.ca,
    cert: tls.cert,
    key: tls.key,
    minVersion: 'TLSv1.2',
    ...(name !== undefined && {
      checkServerIdentity: (_host: string, peer: PeerCertificate): Error | undefined => {
        const cn = new X509Certificate(peer.raw).subject.match(/(?:^|\n)CN=([^\n]*)/)?.[1];
        return cn === name
          ? undefined
          : new Error(`the handler's certificate is for ${cn ?? '(no CN)'}, not ${name}`);
      },
    }),
  };
}

const url = (a: HandlerAddress, path: string, scheme: string): string =>
  `${scheme}://${a.host.includes(':') ? `[${a.host}]` : a.host}:${a.port}${path}`;

function readAll(res: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    res.on('data', (c: Buffer) => chunks.push(c));
    res.on('end', () => {
      resolve(Buffer.concat(chunks).toString('utf8'));
    });
    res.on('error', reject);
  });
}

export interface HandlerCall {
  readonly method: string;
  readonly path: string;
  readonly body?: string;
}

export function callHandler(a: HandlerAddress, tls: HandlerTls, call: HandlerCall): Promise<HandlerReply> {
  const { method, path, body } = call;
  return new Promise((resolve, reject) => {
    const req = request(
      url(a, path, 'https'),
      { method, agent: false, timeout: REQUEST_TIMEOUT_MS, ...tlsOptions(tls) },
      (res) => {
        readAll(res).then((text) => {
          const type = res.headers['content-type'];
          resolve({ status: res.statusCode ?? 0, text, ...(type !== undefined && { contentType: type }) });
        }, reject);
      },
    );
    req.on('timeout', () => {
      req.destroy(new Error(`no answer within ${REQUEST_TIMEOUT_MS} ms`));
    });
    req.on('error', (err) => {
      reject(new HandlerDialError(`cannot reach the handler at ${a.host}:${a.port}: ${err.message}`));
    });
    req.end(body);
  });
}

export function openHandlerStream(a: HandlerAddress, tls: HandlerTls, path: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(url(a, path, 'wss'), [PLAIN_STREAM_PROTOCOL], {
      ...tlsOptions(tls),
      perMessageDeflate: false,
      handshakeTimeout: HANDSHAKE_TIMEOUT_MS,
    });
    ws.once('open', () => {
      ws.removeAllListeners('error');
      ws.removeAllListeners('unexpected-response');
      resolve(ws);
    });
    ws.once('unexpected-response', (req, res) => {
      const status = res.statusCode;
      const done = (text: string): void => {
        reject(new HandlerDialError(text.trim() || `HTTP ${status ?? 0}`, status));
        req.destroy();
      };
      readAll(res).then(done, () => {
        done('');
      });
    });
    ws.once('error', (err) => {
      reject(new HandlerDialError(`cannot reach the handler at ${a.host}:${a.port}: ${err.message}`));
    });
  });
}
