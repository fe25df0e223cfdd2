/**
 * Outgoing HTTP/1.1 calls to one server over node:http / node:https keep-alive sockets: TLS material, idle
 * sockets closed after keepAliveTimeout, a connect timeout, a timeout for the answer's headers and (unless
 * switched off, as for a watch) for a silent body, abort through an AbortSignal (the call fails, or a body
 * being read breaks with an AbortError), close() (no more idle sockets, waits for calls in flight) and
 * destroy() (every socket now). The client-side half of what client-go's transport does for kube clients.
 */
import {
  Agent as HttpAgent,
  request as httpRequest,
  type ClientRequest,
  type IncomingMessage,
  type OutgoingHttpHeaders,
} from 'node:http';
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https';
import type { Socket } from 'node:net';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import { KvError } from '../errors/errors.ts';
import { responseOf, type HttpResponse } from './response.ts';

/** The TLS side of a connection (https: only). */
export interface ClientTls {
  ca?: string | undefined;
  cert?: string | undefined;
  key?: string | undefined;
  servername?: string | undefined;
  rejectUnauthorized?: boolean | undefined;
}

export interface KeepAliveClientOptions {
  /** The server, http: or https:; only its origin is used. */
  server: URL;
  tls?: ClientTls;
  /** Idle sockets close after this (ms). Default 4 s. */
  keepAliveTimeout?: number | undefined;
  /** Buffering of a response body before backpressure stops reading the socket. Node's default otherwise. */
  highWaterMark?: number | undefined;
}

export interface OutgoingCall {
  method: string;
  /** Path and query, as sent. */
  path: string;
  headers: OutgoingHttpHeaders;
  body?: string | Uint8Array | undefined;
  signal?: AbortSignal | undefined;
  /** Silence allowed on the socket once the headers are in (ms); 0: none (streams). Default 300 s. */
  bodyTimeout?: number;
}

/** undici's defaults, kept: connecting (TCP and TLS) may take 10 s; headers and a body may stay silent 5 min. */
const CONNECT_TIMEOUT = 10_000;
const SILENCE_TIMEOUT = 300_000;
const KEEP_ALIVE_TIMEOUT = 4_000;

export class KeepAliveClient {
  private readonly agent: HttpAgent;
  private readonly send: typeof httpRequest;
  private readonly host: string;
  private readonly port: number;
  private readonly inFlight = new Set<Promise<void>>();
  private closed = false;

  constructor(opts: KeepAliveClientOptions) {
    const https = opts.server.protocol === 'https:';
    this.host = opts.server.hostname.replace(/^\[|\]$/g, '');
    this.port = Number(opts.server.port || (https ? 443 : 80));
    const common = {
      keepAlive: true,
      timeout: opts.keepAliveTimeout ?? KEEP_ALIVE_TIMEOUT,
      ...(opts.highWaterMark !== undefined && { highWaterMark: opts.highWaterMark }),
    };
    this.agent = https ? new HttpsAgent({ ...common, ...definedOf(opts.tls ?? {}) }) : new HttpAgent(common);
    this.send = https ? httpsRequest : httpRequest;
    // After close() a socket whose call ends is not kept.
    const keep = this.agent.keepSocketAlive.bind(this.agent) as (socket: Duplex) => boolean;
    this.agent.keepSocketAlive = (socket: Duplex): boolean => !this.closed && keep(socket);
  }

  /**
   * Sends the call; the answer, of any status, comes back with its body unread. Async throughout, so a header
   * Node refuses is a rejection like any other failure.
   */
  async request(call: OutgoingCall): Promise<HttpResponse> {
    if (this.closed) throw new KvError('KV_ERR_TRANSPORT', 'the HTTP client is closed');
    if (call.signal?.aborted) throw abortError(call.signal);
    const req = this.send({
      host: this.host,
      port: this.port,
      agent: this.agent,
      method: call.method,
      path: call.path,
      // Node frames a DELETE's body without one.
      headers:
        call.body === undefined
          ? call.headers
          : { ...call.headers, 'content-length': String(Buffer.byteLength(call.body)) },
    });
    const { answer, done } = exchange(req, call, `${this.host}:${String(this.port)}`);
    this.inFlight.add(done);
    void done.then(() => this.inFlight.delete(done));
    req.end(call.body);
    return await answer;
  }

  /** Closes idle sockets and waits for calls in flight (their sockets close when they end). */
  async close(): Promise<void> {
    this.closed = true;
    for (const sockets of Object.values(this.agent.freeSockets)) for (const s of sockets ?? []) s.destroy();
    await Promise.all([...this.inFlight]);
  }

  /** Closes every socket now; bodies being read break. */
  destroy(): Promise<void> {
    this.closed = true;
    this.agent.destroy();
    return Promise.resolve();
  }
}

/**
 * Wires a request: its answer, and `done` once it is over (no answer came, or its body closed). An abort or a
 * timeout destroys the request and the body being read with the same error.
 */
function exchange(
  req: ClientRequest,
  call: OutgoingCall,
  where: string,
): { answer: Promise<HttpResponse>; done: Promise<void> } {
  let res: IncomingMessage | undefined;
  const fail = (err: Error): void => {
    res?.destroy(err);
    req.destroy(err);
  };
  const onAbort = (): void => {
    fail(abortError(call.signal));
  };
  call.signal?.addEventListener('abort', onAbort, { once: true });
  const done = new Promise<void>((resolve) => {
    req.once('close', () => {
      call.signal?.removeEventListener('abort', onAbort);
      if (res === undefined) resolve();
    });
    req.once('response', (msg: IncomingMessage) => {
      msg.once('close', resolve);
    });
  });
  req.once('socket', (socket) => {
    connectTimeout(req, socket, where);
  });
  silenceTimeout(req, SILENCE_TIMEOUT, fail);
  const answer = new Promise<HttpResponse>((resolve, reject) => {
    req.on('error', reject);
    req.once('response', (msg: IncomingMessage) => {
      res = msg;
      // Errors reach whoever reads the body; this listener only keeps an unread one from crashing the process.
      msg.on('error', () => undefined);
      silenceTimeout(req, call.bodyTimeout ?? SILENCE_TIMEOUT, fail);
      resolve(responseOf(msg));
    });
  });
  return { answer, done };
}

function definedOf(tls: ClientTls): ClientTls {
  return Object.fromEntries(Object.entries(tls).filter(([, v]) => v !== undefined));
}

function abortError(signal: AbortSignal | undefined): Error {
  return new DOMException(
    `the call was aborted${signal?.reason instanceof Error ? `: ${signal.reason.message}` : ''}`,
    'AbortError',
  );
}

/** A socket still connecting (TCP, then TLS) gets CONNECT_TIMEOUT, then fails as the OS's own timeout does. */
function connectTimeout(req: ClientRequest, socket: Socket, where: string): void {
  if (!socket.connecting) return;
  // A new socket starts with the agent's idle timeout; while it connects, this timer stands in for it.
  socket.setTimeout(0);
  const ready = socket instanceof TLSSocket ? 'secureConnect' : 'connect';
  const timer = setTimeout(() => {
    req.destroy(Object.assign(new Error(`connect ETIMEDOUT ${where}`), { code: 'ETIMEDOUT' }));
  }, CONNECT_TIMEOUT);
  const clear = (): void => {
    clearTimeout(timer);
  };
  socket.once(ready, clear);
  req.once('close', clear);
}

/** The call fails when the socket stays silent this long (0: never). */
function silenceTimeout(req: ClientRequest, ms: number, fail: (err: Error) => void): void {
  req.removeAllListeners('timeout');
  req.setTimeout(ms);
  if (ms === 0) return;
  req.once('timeout', () => {
    fail(new Error(`the server sent nothing for ${String(ms / 1000)} s`));
  });
}
