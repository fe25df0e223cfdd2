/**
 * One keep-alive client (node:http or node:https: ../http/keep-alive-client.ts) per RestConfig: TLS material,
 * bearer token, User-Agent, the client-side token bucket, and the mapping of answers to errors (non-2xx →
 * StatusError with the server's Status; socket and TLS failures → KV_ERR_TRANSPORT; a caller's abort →
 * KV_ERR_ABORTED; an error answer is read up to 64 KiB). A 401 drops the token, so the next call reads it again.
 * A 429 or 5xx answer with a `Retry-After` of whole seconds (kube-apiserver's "storage is (re)initializing",
 * its max-in-flight refusal) is sent again after that delay, up to 10 times, as client-go's request retry does.
 * No error carries a credential: a token or key the server or a library echoed into a message is redacted
 * (redactSecrets). A stream (a watch) has no body timeout and breaks when its signal aborts.
 */
import { realClock, type Clock } from '../clock.ts';
import { KvError, StatusError, errorMessage, isStatus, newStatus, type Status } from '../errors/errors.ts';
import { redactSecrets } from '../errors/redact.ts';
import { KeepAliveClient, type ClientTls } from '../http/keep-alive-client.ts';
import type { HttpResponse, ResponseBody } from '../http/response.ts';
import type { RestConfig } from './config.ts';
import { TokenBucket } from './rate-limiter.ts';
import { FileTokenSource, staticTokenSource, type TokenSource } from './token-source.ts';
import type { RawRequest } from './types.ts';

export type Query = Readonly<Record<string, string | number | boolean | undefined>>;

export interface HttpTransportOptions {
  clock?: Clock;
  /** Idle keep-alive sockets close after this (ms); tests use a short one. 4 s otherwise. */
  keepAliveTimeout?: number;
  /** Replaces the token from the config (tests, or a caller with its own credentials). */
  tokenSource?: TokenSource;
}

export interface SendOptions {
  method: RawRequest['method'];
  /** API path, e.g. '/api/v1/pods'; the server URL's own path prefix is added in front. */
  path: string;
  query?: Query | undefined;
  body?: unknown;
  contentType?: string | undefined;
  signal?: AbortSignal | undefined;
  /** A watch stream: skips the rate limiter and has no body timeout. */
  stream?: boolean;
}

export class HttpTransport {
  private readonly client: KeepAliveClient;
  private readonly prefix: string;
  private readonly limiter: TokenBucket;
  private readonly tokens: TokenSource;
  private readonly userAgent: string;
  private readonly clock: Clock;

  constructor(config: RestConfig, opts: HttpTransportOptions = {}) {
    const url = new URL(config.server);
    const clock = opts.clock ?? realClock;
    this.clock = clock;
    this.prefix = url.pathname.replace(/\/+$/, '');
    this.userAgent = config.userAgent;
    this.limiter = new TokenBucket({ qps: config.qps, burst: config.burst, clock });
    this.tokens =
      opts.tokenSource ??
      (config.tokenFile !== undefined
        ? new FileTokenSource(config.tokenFile, { clock })
        : staticTokenSource(config.token));
    this.client = new KeepAliveClient({
      server: url,
      tls: tlsOptions(config),
      keepAliveTimeout: opts.keepAliveTimeout,
    });
  }

  /** Sends a call and returns a 2xx response with its body unread; anything else throws. */
  async send(opts: SendOptions): Promise<HttpResponse> {
    const what = `${opts.method} ${opts.path}`;
    for (let attempt = 0; ; attempt++) {
      if (!opts.stream)
        await this.limiter.take(opts.signal).catch((err: unknown) => rethrow(err, what, opts.signal));
      const res = await this.client
        .request({
          path: this.prefix + opts.path + queryString(opts.query),
          method: opts.method,
          headers: await this.headers(opts),
          body: encodeBody(opts.body),
          signal: opts.signal,
          ...(opts.stream && { bodyTimeout: 0 }),
        })
        .catch((err: unknown) => rethrow(err, what, opts.signal));
      if (res.statusCode >= 200 && res.statusCode < 300) return res;
      if (res.statusCode === 401) this.tokens.invalidate();
      const text = await readErrorBody(res.body).catch((err: unknown) => rethrow(err, what, opts.signal));
      const wait = attempt < MAX_RETRIES ? retryAfterMs(res) : undefined;
      if (wait === undefined) throw new StatusError(statusFromBody(res.statusCode, text));
      await this.clock.sleep(wait, opts.signal).catch((err: unknown) => rethrow(err, what, opts.signal));
    }
  }

  /** send(), then the body decoded: JSON when the server says so, text otherwise, undefined when empty. */
  async call<T>(opts: SendOptions): Promise<T> {
    const res = await this.send(opts);
    const text = await res.body
      .text()
      .catch((err: unknown) => rethrow(err, `${opts.method} ${opts.path}`, opts.signal));
    if (text === '') return undefined as T;
    const type = res.headers['content-type'];
    if (!(type ?? '').includes('json')) return text as T;
    try {
      return JSON.parse(text) as T;
    } catch (err) {
      throw new KvError('KV_ERR_DECODE', `${opts.method} ${opts.path}: response is not valid JSON`, {
        cause: err,
      });
    }
  }

  /** Closes idle sockets and waits for calls in flight. */
  close(): Promise<void> {
    return this.client.close();
  }

  /** Closes every socket now, streams included. */
  destroy(): Promise<void> {
    return this.client.destroy();
  }

  private async headers(o: SendOptions): Promise<Record<string, string>> {
    const h: Record<string, string> = { accept: 'application/json', 'user-agent': this.userAgent };
    const token = await this.tokens.token();
    if (token) h['authorization'] = `Bearer ${token}`;
    if (o.body !== undefined) h['content-type'] = o.contentType ?? 'application/json';
    return h;
  }
}

function tlsOptions(config: RestConfig): ClientTls {
  return {
    ...(config.ca !== undefined && { ca: config.ca }),
    ...(config.cert !== undefined && { cert: config.cert }),
    ...(config.key !== undefined && { key: config.key }),
    ...(config.tlsServerName !== undefined && { servername: config.tlsServerName }),
    rejectUnauthorized: config.insecureSkipTLSVerify !== true,
  };
}

function queryString(q: Query | undefined): string {
  if (!q) return '';
  const params = new URLSearchParams();
  for (const [k, v] of Object.entries(q)) if (v !== undefined) params.append(k, String(v));
  const s = params.toString();
  return s === '' ? '' : `?${s}`;
}

/** client-go's maxRetries for answers that ask to be retried. */
const MAX_RETRIES = 10;

/** The delay a 429 or 5xx answer asks for in whole seconds (client-go's checkWait); undefined: no retry. */
function retryAfterMs(res: HttpResponse): number | undefined {
  if (res.statusCode !== 429 && res.statusCode < 500) return undefined;
  const value = res.headers['retry-after'];
  if (value === undefined || !/^\d+$/.test(value.trim())) return undefined;
  return Number(value.trim()) * 1000;
}

/** How much of an error answer is read: a Status is a few hundred bytes, a server may send no end. */
const MAX_ERROR_BODY = 64 * 1024;

/** The first MAX_ERROR_BODY bytes of the body, as text; the rest is not read (the connection goes). */
async function readErrorBody(body: ResponseBody): Promise<string> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of body) {
    const part = (chunk as Buffer).subarray(0, MAX_ERROR_BODY - size);
    chunks.push(part);
    size += part.length;
    if (size >= MAX_ERROR_BODY) break;
  }
  return Buffer.concat(chunks).toString('utf8');
}

function encodeBody(body: unknown): string | Uint8Array | undefined {
  if (body === undefined) return undefined;
  if (typeof body === 'string' || body instanceof Uint8Array) return body;
  return JSON.stringify(body);
}

/** The server's Status when the body is one, otherwise a Status made from the code and the text. */
export function statusFromBody(code: number, text: string): Status {
  try {
    const parsed: unknown = JSON.parse(text);
    if (isStatus(parsed))
      return parsed.message === undefined ? parsed : { ...parsed, message: redactSecrets(parsed.message) };
  } catch {
    // not JSON: fall through
  }
  const message = redactSecrets(text.trim().slice(0, 1024));
  return newStatus(code, message === '' ? `the server answered HTTP ${code}` : message);
}

function rethrow(err: unknown, what: string, signal: AbortSignal | undefined): never {
  if (err instanceof KvError) throw err;
  if (signal?.aborted) throw new KvError('KV_ERR_ABORTED', `${what}: aborted`, { cause: err });
  throw new KvError('KV_ERR_TRANSPORT', `${what}: ${redactSecrets(errorMessage(err))}`, { cause: err });
}
