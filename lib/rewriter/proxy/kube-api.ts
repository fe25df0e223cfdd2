/**
 * The kube-api proxy (mode "rename"): a client speaking kubevirt.io in front, the API server storing the
 * internal names behind. Per request: parse the target, decide whose identity it runs as (identity.ts: 401
 * without credentials on TCP), rename path and query, read and rename the body (400 when it does not parse,
 * 413 past the limit), ask for JSON (a Table as a JSON Table), forward, and relay the answer restored
 * (relay.ts); OpenAPI documents are restored whole (openapi.ts). Upgrade requests (exec, attach, port-forward)
 * are piped raw (upgrade.ts). It listens on TCP or on a unix socket (created by descriptor, lib/kernel/safepath).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:http';
import type { HttpResponse } from '../../kernel/http/response.ts';
import { newStatus, type Status } from '../../kernel/errors/errors.ts';
import { renameContext, restoreContext } from '../../rename/context.ts';
import { parseTarget, targetUrl, type ApiTarget } from '../../rename/target.ts';
import { rewriteTarget, shouldRewriteBodies } from '../../rename/target-rewrite.ts';
import { BodyTooLargeError, readBody, sendStatus } from '../../kernel/http/body.ts';
import { isRewritableBody, stringOf, upstreamFailureStatus, upstreamHeaders } from './http.ts';
import type { KubeApiDeps } from './deps.ts';
import { admit } from './identity.ts';
import { openApiRouteOf, serveOpenApi } from './openapi.ts';
import { baseLabels, RequestRecorder } from './recorder.ts';
import { relayResponse } from './relay.ts';
import { BadBodyError, renameRequestBody } from './request-body.ts';
import { serve, type Endpoint, type ProxyServer } from './serve.ts';
import { handleUpgrade } from './upgrade.ts';
import { STREAM_BUFFER_BYTES } from './upstream.ts';

export interface KubeApiProxyOptions extends KubeApiDeps {
  readonly endpoint: Endpoint;
}

export async function startKubeApiProxy(opts: KubeApiProxyOptions): Promise<ProxyServer> {
  // Bigger socket buffers toward the client: a busy client stalls the proxy less often (watch throughput).
  const server = createServer({ requestTimeout: 0, highWaterMark: STREAM_BUFFER_BYTES });
  const proxy = await serve({
    server,
    ...opts.endpoint,
    log: opts.log,
    handle: (req, res, signal) => handleKubeApi(opts, req, res, signal),
    upgrade: (req, socket, head, track) => handleUpgrade(opts, { req, socket, head, track }),
    longRunning: (req) => parseTarget(req.url ?? '/', opts.index).isWatch,
  });
  const where = 'socket' in opts.endpoint ? { socket: opts.endpoint.socket.path } : { port: proxy.port };
  opts.log.info('kube-api proxy listening', {
    ...where,
    credentialLess: opts.credentialLess,
    upstream: opts.upstream.url.origin,
  });
  return proxy;
}

interface Exchange {
  readonly d: KubeApiDeps;
  readonly req: IncomingMessage;
  readonly res: ServerResponse;
  readonly target: ApiTarget;
  readonly rewrite: boolean;
  readonly rec: RequestRecorder;
}

async function handleKubeApi(
  kubeApiDeps: KubeApiDeps,
  req: IncomingMessage,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  const target = parseTarget(req.url ?? '/', kubeApiDeps.index);
  const rewrite = shouldRewriteBodies(target, kubeApiDeps.index);
  const openApi = openApiRouteOf(req, target, kubeApiDeps.index);
  const rec = new RequestRecorder(
    kubeApiDeps.metrics,
    baseLabels('kube-api', target, req.method, kubeApiDeps.index),
    rewrite || openApi !== undefined ? 'rewrite' : 'pass',
  );
  const admission = admit(req.headers, target, kubeApiDeps.credentialLess);
  if ('refused' in admission) {
    rec.toClient(sendStatus(res, admission.refused));
    rec.handled(admission.refused.code);
    return;
  }
  if (openApi !== undefined) {
    await serveOpenApi({ ...kubeApiDeps, req, res, target, route: openApi, as: admission.as, rec, signal });
    return;
  }
  const x: Exchange = { d: kubeApiDeps, req, res, target, rewrite, rec };
  const body = await clientBody(x);
  if (body === undefined) return;
  const up = rewriteTarget(target, renameContext(kubeApiDeps.index));
  let reply: HttpResponse;
  try {
    reply = await kubeApiDeps.upstream.request({
      method: req.method ?? 'GET',
      url: targetUrl(up),
      headers: upstreamHeaders(req.headers, { forceJson: rewrite }),
      body: body.length > 0 ? body : undefined,
      signal,
      as: admission.as,
    });
  } catch (err) {
    rec.targetResponse(0, true);
    if (signal.aborted) return;
    kubeApiDeps.log.warning('API server request failed', {
      reason: err,
      method: req.method,
      path: target.path,
    });
    respond(x, upstreamFailureStatus(err, kubeApiDeps.upstream.url.origin));
    return;
  }
  rec.toTarget(body.length);
  rec.targetResponse(reply.statusCode);
  await relay(x, reply, signal);
}

async function relay(exchange: Exchange, reply: HttpResponse, signal: AbortSignal): Promise<void> {
  const { req, res, target, rewrite, rec } = exchange;
  try {
    await relayResponse(
      { res, target, method: req.method ?? 'GET', rewrite, ctx: restoreContext(exchange.d.index), rec },
      reply,
    );
    rec.handled();
  } catch (err) {
    rec.handled(undefined, true);
    if (signal.aborted && !target.isWatch) return;
    if (!signal.aborted)
      exchange.d.log.warning('relaying the answer failed', { reason: err, path: target.path });
    // A watch that breaks ends like one the server closed: the client watches again from its last event.
    if (!res.headersSent) respond(exchange, upstreamFailureStatus(err, exchange.d.upstream.url.origin));
    else if (target.isWatch) res.end();
    else res.destroy();
  } finally {
    if (!reply.body.destroyed) reply.body.destroy();
  }
}

/** The body to forward, renamed; undefined when the proxy has answered itself (400, 413). */
async function clientBody(exchange: Exchange): Promise<Buffer | undefined> {
  const { req, rec } = exchange;
  let body: Buffer;
  try {
    body = await readBody(req, exchange.d.maxBodyBytes);
  } catch (err) {
    if (err instanceof BodyTooLargeError) respond(exchange, newStatus(413, err.message));
    else req.destroy();
    return undefined;
  }
  rec.fromClient(body.length);
  const contentType = stringOf(req.headers['content-type']);
  if (!exchange.rewrite || body.length === 0 || !isRewritableBody(contentType)) return body;
  try {
    return rec.rewrite('client', 'rename', () =>
      renameRequestBody({
        body,
        method: req.method ?? '',
        contentType,
        target: exchange.target,
        ctx: renameContext(exchange.d.index),
      }),
    );
  } catch (err) {
    if (!(err instanceof BadBodyError)) throw err;
    respond(exchange, newStatus(400, err.message));
    return undefined;
  }
}

function respond(x: Exchange, status: Status): void {
  x.rec.toClient(sendStatus(x.res, status));
  x.rec.handled(status.code, status.code >= 500);
}
