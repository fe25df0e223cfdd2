/**
 * The api's one TLS port (KubeVirt's virt-api 8443): the admission webhooks at KubeVirt's paths (called by
 * kube-apiserver through the rewriter's webhook proxy, whose client certificate must come from the webhook
 * client CA with an allowed name, else 401; at most MAX_REVIEWS_IN_FLIGHT reviews per path, else 429), and the
 * subresource API (through the aggregation layer, or straight from the Deckhouse virtualization-api), where
 * every request but the information endpoints is authenticated by its client certificate (auth/) and
 * authorized by a SubjectAccessReview before anything else is answered (a 404 or 405 included), then served by
 * `subresources`. Paths are read from the request line as sent (no URL normalization). Every answer is counted
 * by route and code. Its serving pair and its client trust are each replaced for new connections (reloadTls,
 * reloadAuth) without touching the other. Closing stops accepting, ends the open stream sessions with a close
 * frame (1001) and waits for the connections to go.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import type { Clock } from '../kernel/clock.ts';
import { errorMessage, KvError, newStatus, type Status } from '../kernel/errors/errors.ts';
import { BodyTooLargeError, readBody, sendJson, sendStatus } from '../kernel/http/body.ts';
import type { Logger } from '../kernel/log/log.ts';
import type { RelaySession } from '../kernel/ws/relay.ts';
import {
  authenticate,
  authorize,
  trustedCaPems,
  webhookCallerStatus,
  type AuthConfig,
  type Authorizer,
  type NamedTrust,
} from './auth/index.ts';
import { refuseUpgrade } from './stream/proxy.ts';
import { handleAdmission, type Admitter } from '../kubevirt/admission/admit.ts';
import { RETRY_AFTER_SECONDS, ReviewLimit, tooManyReviews } from '../kubevirt/admission/in-flight.ts';
import type { SubresourceApi, SubresourceCall, SubresourceReply } from './subresource-api.ts';
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
  /** Who may call the admission webhooks. */
  readonly webhookClients: NamedTrust;
  readonly admitters: Readonly<Record<string, Admitter>>;
  /** Reviews in flight per webhook path (default MAX_REVIEWS_IN_FLIGHT). */
  readonly maxReviewsInFlight?: number;
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
  /** Takes webhook callers from this trust (its CA rotated); new connections may bring its certificates. */
  reloadWebhookClients(trust: NamedTrust): void;
  close(): Promise<void>;
}

function sendReply(res: ServerResponse, reply: SubresourceReply): void {
  if (reply.allow !== undefined) res.setHeader('Allow', reply.allow);
  if (reply.contentType !== undefined && typeof reply.body === 'string') {
    res.writeHead(reply.code, { 'content-type': reply.contentType });
    res.end(reply.body);
  } else sendJson(res, reply.code, reply.body);
}

interface Ctx extends Omit<ApiServerOptions, 'webhookClients'> {
  current: AuthConfig;
  webhookClients: NamedTrust;
  readonly reviews: ReviewLimit;
}

/** The request line's path, as sent: the router reads it into tokens itself (rest/path-tokens.ts). */
const pathOf = (target: string): string => target.split('?', 1)[0] ?? '';
const refused = (status: Status): SubresourceReply => ({ code: status.code, body: status });
/** The request's TLS socket (an https server's sockets all are). */
function tlsOf(req: IncomingMessage): TLSSocket {
  if (!(req.socket instanceof TLSSocket))
    throw new KvError('KV_ERR_INTERNAL', 'the request came without TLS');
  return req.socket;
}

/**
 * Who the request acts for, once it may: the certificate and the SubjectAccessReview first for anything not
 * public, then the route's own 404 or 405. Otherwise the reply to send (401, 403, 404, 405).
 */
async function admitCall(
  ctx: Ctx,
  req: IncomingMessage,
  target: string,
): Promise<SubresourceCall | SubresourceReply> {
  const route = ctx.subresources.route(req.method ?? '', target);
  let identity: SubresourceCall['identity'];
  if (route.access.kind !== 'public') {
    const authn = authenticate(tlsOf(req), req.headersDistinct, ctx.current, ctx.clock);
    if (!authn.ok) return refused(authn.status);
    if (route.access.kind === 'refused') return refused(newStatus(401, route.access.reason));
    const authz = await authorize(ctx.authorizer, authn.identity, route.access.attributes);
    if (!authz.allowed) return refused(authz.status);
    identity = authn.identity;
  }
  if (route.unserved !== undefined) return route.unserved;
  return { route, query: new URL(target, 'https://api').searchParams, identity };
}

/** An admission review: the caller's certificate, a place under the path's cap, then the body and the verdict. */
async function onReview(ctx: Ctx, req: IncomingMessage, res: ServerResponse, path: string): Promise<void> {
  const done = ctx.metrics.request();
  const refusal =
    webhookCallerStatus(tlsOf(req), ctx.webhookClients, ctx.clock) ??
    (req.method === 'POST'
      ? undefined
      : newStatus(405, `admission webhooks answer POST, not ${req.method ?? ''}`));
  const release = refusal === undefined ? ctx.reviews.enter(path) : undefined;
  if (release === undefined) {
    const status = refusal ?? tooManyReviews(path);
    if (status.code === 429) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
    done('admission', status.code);
    sendStatus(res, status);
    return;
  }
  try {
    const body = (await readBody(req, MAX_BODY_BYTES)).toString('utf8');
    const review = await handleAdmission(ctx.admitters, path, body);
    done('admission', review.code);
    sendJson(res, review.code, review.body);
  } finally {
    release();
  }
}

async function onRequest(ctx: Ctx, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const target = req.url ?? '/';
  const path = pathOf(target);
  if (Object.hasOwn(ctx.admitters, path)) return onReview(ctx, req, res, path);
  const done = ctx.metrics.request();
  const call = await admitCall(ctx, req, target);
  if (!('route' in call)) {
    done('refused', call.code);
    sendReply(res, call);
    return;
  }
  const body = (await readBody(req, MAX_BODY_BYTES)).toString('utf8');
  const reply = await ctx.subresources.serve(call, body);
  done(call.route.name, reply.code);
  sendReply(res, reply);
}

async function onUpgrade(ctx: Ctx, req: IncomingMessage, socket: Duplex, head: Buffer): Promise<void> {
  const done = ctx.metrics.request();
  const call = await admitCall(ctx, req, req.url ?? '/');
  if (!('route' in call)) {
    done('refused', call.code);
    refuseUpgrade(socket, call.body as Status);
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
  const ctx: Ctx = { ...o, current: o.auth, reviews: new ReviewLimit(o.maxReviewsInFlight) };
  const log = o.log.with({ server: 'api' });
  // Every CA a client certificate may come from; which one counts is decided per path.
  const caPems = (auth: AuthConfig): string[] => [...trustedCaPems(auth), ctx.webhookClients.ca.pem];
  const server: Server = createServer({
    cert: o.tls.cert,
    key: o.tls.key,
    requestCert: true,
    rejectUnauthorized: false,
    ca: caPems(o.auth),
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
      server.setSecureContext({ cert: serving.cert, key: serving.key, ca: caPems(auth) });
    },
    reloadTls: (tls): void => {
      server.setSecureContext({ cert: tls.cert, key: tls.key, ca: caPems(ctx.current) });
      serving = tls;
    },
    reloadWebhookClients: (trust): void => {
      ctx.webhookClients = trust;
      server.setSecureContext({ cert: serving.cert, key: serving.key, ca: caPems(ctx.current) });
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
