/**
 * The API server the proxy forwards to, as one of two identities: the rewriter's own (its bearer token and its
 * client certificate) or the client's (the client's Authorization only, over connections that present no
 * certificate: kube-apiserver tries the certificate first, so ours would make the request ours). One keep-alive
 * client (node:http/node:https) per identity, and raw sockets for upgrade requests. No client-side rate limit.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { realClock, type Clock } from '../../kernel/clock.ts';
import { KeepAliveClient } from '../../kernel/http/keep-alive-client.ts';
import type { HttpResponse } from '../../kernel/http/response.ts';
import {
  FileTokenSource,
  staticTokenSource,
  type RestConfig,
  type TokenSource,
} from '../../kernel/kube/index.ts';

export interface UpstreamOptions {
  config: RestConfig;
  /** Replaces the config's token (tests). */
  tokenSource?: TokenSource;
  /** Idle keep-alive sockets close after this (ms); tests use a short one. */
  keepAliveTimeout?: number;
  clock?: Clock;
}

/**
 * Whose credentials reach the API server: `rewriter` (the config's token and client certificate) or `client`
 * (the request's own Authorization, and no certificate).
 */
export type Identity = 'rewriter' | 'client';

/** The TLS settings both the keep-alive clients and raw upgrade sockets use. */
interface TlsMaterial {
  ca?: string;
  cert?: string;
  key?: string;
  servername?: string;
  rejectUnauthorized: boolean;
}

/** Buffering allowed on each side of a streamed response before backpressure stops the reading side. */
export const STREAM_BUFFER_BYTES = 1024 * 1024;

export type HeaderMap = Record<string, string | string[]>;

export interface UpstreamRequest {
  method: string;
  /** Path and query on the API server (without the server URL's own path prefix). */
  url: string;
  headers: HeaderMap;
  body?: Buffer | undefined;
  signal: AbortSignal;
  /** `client`: the headers carry the client's Authorization, sent as it is. */
  as: Identity;
}

export class Upstream {
  readonly url: URL;
  private readonly prefix: string;
  private readonly clients: Readonly<Record<Identity, KeepAliveClient>>;
  private readonly tokens: TokenSource;
  private readonly tls: Readonly<Record<Identity, TlsMaterial>>;

  constructor(opts: UpstreamOptions) {
    const c = opts.config;
    this.url = new URL(c.server);
    this.prefix = this.url.pathname.replace(/\/+$/, '');
    this.tokens =
      opts.tokenSource ??
      (c.tokenFile !== undefined
        ? new FileTokenSource(c.tokenFile, { clock: opts.clock ?? realClock })
        : staticTokenSource(c.token));
    const client: TlsMaterial = {
      ...(c.ca !== undefined && { ca: c.ca }),
      ...(c.tlsServerName !== undefined && { servername: c.tlsServerName }),
      rejectUnauthorized: c.insecureSkipTLSVerify !== true,
    };
    const rewriter: TlsMaterial = {
      ...client,
      ...(c.cert !== undefined && { cert: c.cert }),
      ...(c.key !== undefined && { key: c.key }),
    };
    this.tls = { rewriter, client };
    const keepAlive = (tls: TlsMaterial): KeepAliveClient =>
      new KeepAliveClient({
        server: this.url,
        tls,
        keepAliveTimeout: opts.keepAliveTimeout,
        highWaterMark: STREAM_BUFFER_BYTES,
      });
    this.clients = { rewriter: keepAlive(rewriter), client: keepAlive(client) };
  }

  /** The path as the API server sees it (with the server URL's path prefix). */
  pathOf(url: string): string {
    return this.prefix + url;
  }

  /** Sends the request; answers of any status come back with their body unread. No timeout on the body. */
  async request(upstreamRequest: UpstreamRequest): Promise<HttpResponse> {
    const headers = await this.authorized(upstreamRequest.headers, upstreamRequest.as);
    return await this.clients[upstreamRequest.as].request({
      path: this.pathOf(upstreamRequest.url),
      method: upstreamRequest.method,
      headers,
      body: upstreamRequest.body,
      signal: upstreamRequest.signal,
      bodyTimeout: 0,
    });
  }

  /** As the client: the headers as they are. As the rewriter: any Authorization replaced by our token. */
  async authorized(headers: HeaderMap, as: Identity): Promise<HeaderMap> {
    const out = { ...headers };
    if (as === 'client') return out;
    delete out['authorization'];
    const token = await this.tokens.token();
    if (token) out['authorization'] = `Bearer ${token}`;
    return out;
  }

  /** host[:port] for a Host header. */
  get host(): string {
    return this.url.host;
  }

  /** A raw connection to the API server (TLS for https, with our certificate only as the rewriter). */
  connect(as: Identity): Promise<Socket> {
    const https = this.url.protocol === 'https:';
    const port = Number(this.url.port || (https ? 443 : 80));
    const host = this.url.hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve, reject) => {
      const sock = https
        ? tlsConnect({ ...this.tls[as], host, port, ALPNProtocols: ['http/1.1'] }, () => {
            sock.off('error', reject);
            resolve(sock);
          })
        : netConnect({ host, port }, () => {
            sock.off('error', reject);
            resolve(sock);
          });
      sock.once('error', reject);
    });
  }

  /** Closes idle sockets and waits for requests in flight. */
  async close(): Promise<void> {
    await Promise.all([this.clients.rewriter.close(), this.clients.client.close()]);
  }

  /** Closes every socket now. */
  async destroy(): Promise<void> {
    await Promise.all([this.clients.rewriter.destroy(), this.clients.client.destroy()]);
  }
}
