/**
 * The webhook proxy (mode "restore"): a TLS server the API server calls for admission, in front of the real
 * webhook server that speaks kubevirt.io. An AdmissionReview request for one of the rule set's webhook paths
 * is restored (kinds, resources, object and oldObject) before it is forwarded; the response patch is renamed
 * on the way back (rewriteAdmissionReview). Other paths pass through untouched. On the webhook paths only, the
 * proxy shows the webhook server its own client certificate when it has one (the api answers reviews only to a
 * caller it knows); a pass-through goes on a connection without one, so no caller borrows that name for another
 * path. It passes a Retry-After back with the answer, so kube-apiserver retries a review the server had no room for.
 * With `callers` it serves only a client whose certificate that CA signed (the TLS handshake refuses any other)
 * and whose common name is in the list (401 otherwise, before the body is read): kube-apiserver shows its
 * webhook client certificate from its admission configuration. Rotated certificates are taken in without a
 * restart: reloadServing serves new connections a new certificate, key and callers' CA; reloadUpstream has the
 * next calls trust a new CA and show a new client certificate, while calls in flight end on the old connections.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer } from 'node:https';
import { createSecureContext, TLSSocket, type SecureContextOptions } from 'node:tls';
import { errorMessage, KvError, newStatus, type Status } from '../../kernel/errors/errors.ts';
import { KeepAliveClient } from '../../kernel/http/keep-alive-client.ts';
import type { HttpResponse } from '../../kernel/http/response.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { peerNameRefusal } from '../../kernel/tls/peer-name.ts';
import { rewriteAdmissionReview } from '../../rename/admission-review.ts';
import { renameContext, restoreContext } from '../../rename/context.ts';
import { rewriteDocument } from '../../rename/document.ts';
import { getRecord, getString, isRecord, isSkip } from '../../rename/json.ts';
import type { PatchTarget } from '../../rename/patch-target.ts';
import type { RuleIndex } from '../../rename/rules/rule-index.ts';
import { parseTarget, type ApiTarget } from '../../rename/target.ts';
import { BodyTooLargeError, readBody, sendStatus } from '../../kernel/http/body.ts';
import { stringOf, upstreamFailureStatus, upstreamHeaders } from './http.ts';
import type { RewriterMetrics } from './metrics.ts';
import { RequestRecorder } from './recorder.ts';
import { BadBodyError, parseBody } from './request-body.ts';
import { serve, type ProxyServer } from './serve.ts';

export interface WebhookProxyOptions {
  /** undefined: every interface. */
  readonly host?: string | undefined;
  readonly port: number;
  /** Serving certificate and key (PEM): the webhook server's own, as the API server trusts it. */
  readonly cert: string;
  readonly key: string;
  /** The real webhook server, e.g. https://127.0.0.1:8443. */
  readonly upstream: string;
  /** PEM CA for the webhook server's certificate (default: the system roots). */
  readonly upstreamCa?: string | undefined;
  /** TLS server name to verify instead of the URL's host. */
  readonly upstreamServerName?: string | undefined;
  /** The client certificate and key (PEM) shown to the webhook server. */
  readonly upstreamClient?: { readonly cert: string; readonly key: string } | undefined;
  /** Who may call: a client certificate of this CA (PEM) with one of these common names; undefined: anyone. */
  readonly callers?: WebhookCallers | undefined;
  readonly index: RuleIndex;
  readonly metrics: RewriterMetrics;
  readonly log: Logger;
  readonly maxBodyBytes: number;
  /** Idle keep-alive sockets to the webhook server close after this (ms). */
  readonly keepAliveTimeout?: number;
}

export interface WebhookCallers {
  readonly ca: string;
  readonly allowedNames: readonly string[];
}

/** The serving certificate and key (PEM) and, with callers, their CA. */
export interface WebhookServing {
  readonly cert: string;
  readonly key: string;
  readonly callersCa?: string | undefined;
}

/** The webhook server's CA and the client certificate shown to it (PEM). */
export interface WebhookUpstreamTls {
  readonly ca?: string | undefined;
  readonly client?: { readonly cert: string; readonly key: string } | undefined;
}

export interface WebhookProxy extends ProxyServer {
  /** Serves new connections these; open ones keep theirs. Throws KV_ERR_CONFIG, keeping the old, when unusable. */
  reloadServing(next: WebhookServing): void;
  /** The next calls to the webhook server use these; calls in flight end on their connections. */
  reloadUpstream(next: WebhookUpstreamTls): void;
}

/** The connections to the webhook server: replaced as a whole when its TLS changes. */
interface Agents {
  /** For the rule set's webhook paths, showing the client certificate. */
  readonly webhook: KeepAliveClient;
  /** For every other path: no client certificate. */
  readonly pass: KeepAliveClient;
}

interface WebhookDeps extends WebhookProxyOptions {
  agents: Agents;
  readonly origin: string;
}

function servingContext(o: WebhookServing): SecureContextOptions {
  const ctx = { cert: o.cert, key: o.key, ...(o.callersCa !== undefined && { ca: o.callersCa }) };
  try {
    createSecureContext(ctx);
  } catch (err) {
    throw new KvError('KV_ERR_CONFIG', `webhook proxy TLS: ${errorMessage(err)}`, { cause: err });
  }
  return ctx;
}

export async function startWebhookProxy(opts: WebhookProxyOptions): Promise<WebhookProxy> {
  const url = new URL(opts.upstream);
  const d: WebhookDeps = {
    ...opts,
    agents: upstreamAgents(opts, { ca: opts.upstreamCa, client: opts.upstreamClient }),
    origin: url.origin,
  };
  const c = opts.callers;
  const server = createServer({
    ...servingContext({ cert: opts.cert, key: opts.key, callersCa: c?.ca }),
    ...(c !== undefined && { requestCert: true, rejectUnauthorized: true }),
  });
  const proxy = await serve({
    server,
    host: opts.host,
    port: opts.port,
    log: opts.log,
    handle: (req, res, signal) => {
      const refusal = callerRefusal(d.callers, req);
      if (refusal === undefined) return handleWebhook(d, req, res, signal);
      refuseCaller(d, req, res, refusal);
      return Promise.resolve();
    },
  });
  opts.log.info('webhook proxy listening', {
    port: proxy.port,
    upstream: url.origin,
    callers: c === undefined ? 'anyone' : c.allowedNames.join(','),
  });
  const closeAgents = (a: Agents): Promise<unknown> => Promise.all([a.webhook.close(), a.pass.close()]);
  return {
    port: proxy.port,
    reloadServing: (next): void => {
      server.setSecureContext(servingContext(next));
    },
    reloadUpstream: (next): void => {
      const old = d.agents;
      d.agents = upstreamAgents(opts, next);
      closeAgents(old).catch((err: unknown) => {
        opts.log.warning('closing the old connections to the webhook server failed', { reason: err });
      });
    },
    close: async (graceMs?: number): Promise<void> => {
      await proxy.close(graceMs);
      await closeAgents(d.agents);
    },
  };
}

function upstreamAgents(opts: WebhookProxyOptions, tls: WebhookUpstreamTls): Agents {
  const server = new URL(opts.upstream);
  const agent = (client: WebhookUpstreamTls['client']): KeepAliveClient =>
    new KeepAliveClient({
      server,
      tls: {
        ca: tls.ca,
        servername: opts.upstreamServerName,
        ...(client !== undefined && { cert: client.cert, key: client.key }),
      },
      keepAliveTimeout: opts.keepAliveTimeout,
    });
  return { webhook: agent(tls.client), pass: agent(undefined) };
}

function recorderOf(d: WebhookDeps, target: ApiTarget, method: string | undefined): RequestRecorder {
  const labels = {
    name: 'webhook',
    resource: target.webhook?.resource ?? '',
    method: method ?? '',
    watch: 'false',
  } as const;
  return new RequestRecorder(d.metrics, labels, target.webhook ? 'rewrite' : 'pass');
}

async function handleWebhook(
  webhookDeps: WebhookDeps,
  req: IncomingMessage,
  res: ServerResponse,
  signal: AbortSignal,
): Promise<void> {
  const target = parseTarget(req.url ?? '/', webhookDeps.index);
  const rec = recorderOf(webhookDeps, target, req.method);
  const respond = (status: Status): void => {
    rec.toClient(sendStatus(res, status));
    rec.handled(status.code, status.code >= 500);
  };
  let body: Buffer;
  let reviewed: PatchTarget | undefined;
  try {
    body = await readBody(req, webhookDeps.maxBodyBytes);
    rec.fromClient(body.length);
    if (target.webhook && body.length > 0) [body, reviewed] = restoreReview(body, rec, webhookDeps.index);
  } catch (err) {
    if (err instanceof BodyTooLargeError) respond(newStatus(413, err.message));
    else if (err instanceof BadBodyError) respond(newStatus(400, err.message));
    else req.destroy();
    return;
  }
  let reply: HttpResponse;
  try {
    reply = await forward(webhookDeps, req, body, signal);
  } catch (err) {
    rec.targetResponse(0, true);
    if (!signal.aborted) respond(upstreamFailureStatus(err, webhookDeps.origin));
    return;
  }
  rec.toTarget(body.length);
  rec.targetResponse(reply.statusCode);
  const raw = await reply.body.bytes();
  rec.fromTarget(raw.length);
  const out = target.webhook ? renameReviewResponse(raw, reviewed, rec, webhookDeps.index) : raw;
  const retryAfter = stringOf(reply.headers['retry-after']);
  res.writeHead(reply.statusCode, {
    'content-type': stringOf(reply.headers['content-type']) ?? 'application/json',
    'content-length': String(out.length),
    ...(retryAfter !== undefined && { 'retry-after': retryAfter }),
  });
  res.end(out);
  rec.toClient(out.length);
  rec.handled();
}

/** Why this caller may not call, or undefined when it may (the handshake verified its certificate). */
function callerRefusal(callers: WebhookCallers | undefined, req: IncomingMessage): string | undefined {
  if (callers === undefined) return undefined;
  if (!(req.socket instanceof TLSSocket)) return 'Unauthorized';
  return peerNameRefusal(req.socket, callers.allowedNames, '--webhook-client-allowed-names');
}

/** 401 before the body is read; the connection closes after it. */
function refuseCaller(d: WebhookDeps, req: IncomingMessage, res: ServerResponse, refusal: string): void {
  const rec = recorderOf(d, parseTarget(req.url ?? '/', d.index), req.method);
  res.shouldKeepAlive = false;
  rec.toClient(sendStatus(res, newStatus(401, refusal)));
  rec.handled(401, false);
}

function forward(
  webhookDeps: WebhookDeps,
  req: IncomingMessage,
  body: Buffer,
  signal: AbortSignal,
): Promise<HttpResponse> {
  const target = parseTarget(req.url ?? '/', webhookDeps.index);
  const agent = target.webhook === undefined ? webhookDeps.agents.pass : webhookDeps.agents.webhook;
  return agent.request({
    path: upstreamPath(target, req.url),
    method: req.method ?? 'POST',
    headers: upstreamHeaders(req.headers, { forceJson: false }),
    body,
    signal,
  });
}

/** A known webhook's own path (with the query), anything else as it came. */
function upstreamPath(target: ApiTarget, url: string | undefined): string {
  if (target.webhook === undefined) return url ?? '/';
  return target.query === '' ? target.webhook.path : `${target.webhook.path}?${target.query}`;
}

/** The AdmissionReview with original names, and the reviewed kind on the webhook's side. */
function restoreReview(
  body: Buffer,
  rec: RequestRecorder,
  index: RuleIndex,
): [Buffer, PatchTarget | undefined] {
  const doc = parseBody(body.toString('utf8'), undefined);
  const out = rec.rewrite('client', 'restore', () => rewriteDocument(doc, restoreContext(index)));
  if (isSkip(out) || out === doc) return [body, reviewedOf(doc)];
  return [Buffer.from(JSON.stringify(out)), reviewedOf(out)];
}

function reviewedOf(review: unknown): PatchTarget | undefined {
  const request = isRecord(review) ? getRecord(review, 'request') : undefined;
  const kind = request === undefined ? undefined : getRecord(request, 'kind');
  if (kind === undefined) return undefined;
  const group = getString(kind, 'group') ?? '';
  const version = getString(kind, 'version') ?? '';
  return { kind: getString(kind, 'kind') ?? '', apiVersion: group === '' ? version : `${group}/${version}` };
}

/** The webhook's answer with its patch renamed; passed through as it is when it is not JSON. */
function renameReviewResponse(
  raw: Buffer,
  reviewed: PatchTarget | undefined,
  rec: RequestRecorder,
  index: RuleIndex,
): Buffer {
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw.toString('utf8'));
  } catch {
    rec.invalidJson();
    return raw;
  }
  if (!isRecord(parsed) || parsed['kind'] !== 'AdmissionReview') return raw;
  const doc = parsed;
  const out = rec.rewrite('target', 'rename', () =>
    rewriteAdmissionReview(doc, renameContext(index), reviewed),
  );
  return out === doc ? raw : Buffer.from(JSON.stringify(out));
}
