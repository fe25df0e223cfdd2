/**
 * The api's one TLS port (KubeVirt's virt-api 8443): the admission webhooks at KubeVirt's paths (called by
 * kube-apiserver through the rewriter's webhook proxy; no client certificate asked), and the subresource API
 * (through the aggregation layer, or straight from the Deckhouse virtualization-api), where every request but
 * the information endpoints is authenticated by its client certificate (auth/), authorized by a
 * SubjectAccessReview, and then served by `subresources`. Every answer
 * is counted by route and code. Its serving pair and its client trust are each replaced for new connections
 * (reloadTls, reloadAuth) without touching the other. Closing stops accepting, ends the open stream sessions with
 * a close frame (1001) and waits for the connections to go.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import type { TLSSocket } from 'node:tls';
import type { Clock } from '../kernel/clock.ts';
import { errorMessage, KvError, newStatus, type Status } from '../kernel/errors/errors.ts';
import { BodyTooLargeError, readBody, sendStatus } from '../kernel/http/body.ts';
import type { Logger } from '../kernel/log/log.ts';
import { authenticate, authorize, trustedCaPems, type AuthConfig, type Authorizer } from './auth/index.ts';
import { refuseUpgrade } from './stream/proxy.ts';
import type { RelaySession } from './stream/relay.ts';
import { handleAdmission, type Admitter } from './webhooks/admit.ts';
import type { SubresourceApi, SubresourceCall } from './subresource-api.ts';
import type { ApiMetrics } from './metrics.ts';

const MAX_BODY_BYTES = 3 * 1024 * 1024;
const CLOSE_GRACE_MS = 5_000;

export interface ApiServerOptions {
  readonly port: number;
  readonly host?: string;
  readonly tls: { readonly cert: string; readonly key: string };
  /** The trust for client certificates, as read now (re-read by the role; reload with reloadAuth). */
  readonly auth: AuthConfig;
  readonly authorizer: Authorizer;
  readonly admitters: Readonly<Record<string, Admitter>>;
  readonly subresources: SubresourceApi;
  readonly metrics: ApiMetrics;
  readonly sessions: Set<RelaySession>;
  readonly clock: Clock;
  readonly log: Logger;
}

export interface ApiServer {
  readonly port: number;
  reloadAuth(auth: AuthConfig): void;
  /** Serves new connections with this certificate and key (rotated files), keeping the client trust. */
  reloadTls(tls: ApiServerOptions['tls']): void;
  close(): Promise<void>;
}

function sendJson(res: ServerResponse, code: number, body: unknown): void {
  const text = JSON.stringify(body);
  res.writeHead(code, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

interface Ctx extends ApiServerOptions {
  current: AuthConfig;
}

/** Who the request acts for and whether they may, or the Status to answer (401, 403, 404, 405). */
async function admitCall(ctx: Ctx, req: IncomingMessage, path: string): Promise<SubresourceCall | Status> {
  const route = ctx.subresources.route(req.method ?? '', path);
  if ('code' in route) return route;
  const query = new URL(req.url ?? '/', 'https://api').searchParams;
  if (route.attributes === undefined) return { route, query, identity: undefined };
  // An https server's request sockets are TLS sockets.
  const socket = req.socket as unknown as TLSSocket;
  const authn = authenticate(socket, req.headersDistinct, ctx.current, ctx.clock);
  if (!authn.ok) return authn.status;
  const authz = await authorize(ctx.authorizer, authn.identity, route.attributes);
  if (!authz.allowed) return authz.status;
  return { route, query, identity: authn.identity };
}

async function onRequest(ctx: Ctx, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = new URL(req.url ?? '/', 'https://api').pathname;
  const done = ctx.metrics.request();
  if (Object.hasOwn(ctx.admitters, path)) {
    if (req.method !== 'POST') {
      done('admission', 405);
      sendStatus(res, newStatus(405, `admission webhooks answer POST, not ${req.method ?? ''}`));
      return;
    }
    const body = (await readBody(req, MAX_BODY_BYTES)).toString('utf8');
    const answer = await handleAdmission(ctx.admitters, path, body);
    done('admission', answer.code);
    sendJson(res, answer.code, answer.body);
    return;
  }
  const call = await admitCall(ctx, req, path);
  if ('code' in call) {
    done('refused', call.code);
    sendStatus(res, call);
    return;
  }
  const body = (await readBody(req, MAX_BODY_BYTES)).toString('utf8');
  const reply = await ctx.subresources.serve(call, body);
  done(call.route.name, reply.code);
  if (reply.allow !== undefined) res.setHeader('Allow', reply.allow);
  if (reply.contentType !== undefined && typeof reply.body === 'string') {
    res.writeHead(reply.code, { 'content-type': reply.contentType });
    res.end(reply.body);
  } else sendJson(res, reply.code, reply.body);
}

async function onUpgrade(ctx: Ctx, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const path = new URL(req.url ?? '/', 'https://api').pathname;
  const done = ctx.metrics.request();
  const call = await admitCall(ctx, req, path);
  if ('code' in call) {
    done('refused', call.code);
    refuseUpgrade(socket, call);
    return;
  }
  done(call.route.name, 101);
  await ctx.subresources.stream(call, { req, socket, head });
}

function failure(err: unknown): Status {
  if (err instanceof BodyTooLargeError) return newStatus(413, err.message);
  return newStatus(500, `the api failed to answer: ${errorMessage(err)}`);
}

export async function startApiServer(o: ApiServerOptions): Promise<ApiServer> {
  const ctx: Ctx = { ...o, current: o.auth };
  const log = o.log.with({ server: 'api' });
  const server: Server = createServer({
    cert: o.tls.cert,
    key: o.tls.key,
    requestCert: true,
    rejectUnauthorized: false,
    ca: trustedCaPems(o.auth),
    minVersion: 'TLSv1.2',
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    onRequest(ctx, req, res).catch((err: unknown) => {
      log.error('api request failed', { path: req.url, reason: err });
      if (res.headersSent) res.destroy();
      else sendStatus(res, failure(err));
    });
  });
  server.on('upgrade', (req: IncomingMessage, socket: Duplex, head: Buffer) => {
    socket.on('error', () => undefined);
    onUpgrade(ctx, req, socket, head).catch((err: unknown) => {
      log.error('api stream failed', { path: req.url, reason: err });
      if (socket.writable) refuseUpgrade(socket, failure(err));
      else socket.destroy();
    });
  });
  server.on('tlsClientError', (err) => {
    log.v(2).info('api TLS handshake failed', { reason: err.message });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', (err) => {
      reject(
        new KvError(
          'KV_ERR_CONFIG',
          `the api cannot listen on ${o.host ?? '0.0.0.0'}:${o.port}: ${err.message}`,
        ),
      );
    });
    server.listen(o.port, o.host ?? '0.0.0.0', () => {
      resolve();
    });
  });
  server.on('error', (err) => {
    log.error('api server error', { reason: err });
  });
  const port = (server.address() as AddressInfo).port;
  log.info('api listening', { port });
  let serving = o.tls;
  return {
    port,
    reloadAuth: (auth): void => {
      ctx.current = auth;
      server.setSecureContext({ cert: serving.cert, key: serving.key, ca: trustedCaPems(auth) });
    },
    reloadTls: (tls): void => {
      server.setSecureContext({ cert: tls.cert, key: tls.key, ca: trustedCaPems(ctx.current) });
      serving = tls;
    },
    close: async (): Promise<void> => {
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      for (const s of o.sessions) s.end(1001, 'server shutting down');
      server.closeIdleConnections();
      const late = o.clock.after(CLOSE_GRACE_MS, () => {
        server.closeAllConnections();
      });
      await closed;
      late.cancel();
    },
  };
}
