/**
 * The API server the proxy forwards to: one undici Agent with the RestConfig's TLS material, its bearer token
 * (added when the client sent no Authorization of its own, as client-go's bearer round tripper does), and raw
 * sockets for upgrade requests. No client-side rate limit: the proxy forwards what its clients send.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { connect as tlsConnect } from 'node:tls';
import { Agent, type Dispatcher } from 'undici';
import { realClock, type Clock } from '../../kernel/clock.ts';
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

/** The TLS settings both the Agent and raw upgrade sockets use. */
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
}

export class Upstream {
  readonly url: URL;
  private readonly prefix: string;
  private readonly agent: Agent;
  private readonly tokens: TokenSource;
  private readonly tls: TlsMaterial;

  constructor(opts: UpstreamOptions) {
    const c = opts.config;
    this.url = new URL(c.server);
    this.prefix = this.url.pathname.replace(/\/+$/, '');
    this.tokens =
      opts.tokenSource ??
      (c.tokenFile !== undefined
        ? new FileTokenSource(c.tokenFile, { clock: opts.clock ?? realClock })
        : staticTokenSource(c.token));
    this.tls = {
      ...(c.ca !== undefined && { ca: c.ca }),
      ...(c.cert !== undefined && { cert: c.cert }),
      ...(c.key !== undefined && { key: c.key }),
      ...(c.tlsServerName !== undefined && { servername: c.tlsServerName }),
      rejectUnauthorized: c.insecureSkipTLSVerify !== true,
    };
    this.agent = new Agent({
      connect: this.tls,
      ...(opts.keepAliveTimeout !== undefined && { keepAliveTimeout: opts.keepAliveTimeout }),
    });
  }

  /** The path as the API server sees it (with the server URL's path prefix). */
  pathOf(url: string): string {
    return this.prefix + url;
  }

  /** Sends the request; answers of any status come back with their body unread. No timeout on the body. */
  async request(upstreamRequest: UpstreamRequest): Promise<Dispatcher.ResponseData> {
    const headers = await this.withAuthorization(upstreamRequest.headers);
    if (upstreamRequest.body !== undefined) headers['content-length'] = String(upstreamRequest.body.length);
    return await this.agent.request({
      origin: this.url.origin,
      path: this.pathOf(upstreamRequest.url),
      method: upstreamRequest.method,
      headers,
      body: upstreamRequest.body ?? null,
      signal: upstreamRequest.signal,
      bodyTimeout: 0,
      highWaterMark: STREAM_BUFFER_BYTES,
    });
  }

  /** The headers with our bearer token when the client sent no Authorization. */
  async withAuthorization(headers: HeaderMap): Promise<HeaderMap> {
    if (headers['authorization'] !== undefined) return { ...headers };
    const token = await this.tokens.token();
    return token ? { ...headers, authorization: `Bearer ${token}` } : { ...headers };
  }

  /** host[:port] for a Host header. */
  get host(): string {
    return this.url.host;
  }

  /** A raw connection to the API server (TLS for https), for upgrade requests. */
  connect(): Promise<Socket> {
    const https = this.url.protocol === 'https:';
    const port = Number(this.url.port || (https ? 443 : 80));
    const host = this.url.hostname.replace(/^\[|\]$/g, '');
    return new Promise((resolve, reject) => {
      const sock = https
        ? tlsConnect({ ...this.tls, host, port, ALPNProtocols: ['http/1.1'] }, () => {
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
  close(): Promise<void> {
    return this.agent.close();
  }

  /** Closes every socket now. */
  destroy(): Promise<void> {
    return this.agent.destroy();
  }
}
