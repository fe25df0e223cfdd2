/**
 * The operator's webhook server (virt-operator's port 8444, kubevirt pkg/virt-operator/application.go Run): the
 * KubeVirt CR's webhooks of lib/kubevirt/webhooks.ts over HTTPS, called by kube-apiserver with no rewriter in
 * between. A review arrives with the names the cluster stores and is restored in process (restore.ts) before
 * the shared admitters (lib/kubevirt/admission) read it; their answers are validating ones, which carry no
 * patch to rename back, and KubeVirt's messages go out as KubeVirt words them.
 * - The serving certificate is the operator's own, issued and rotated by it: setServingCertificate serves new
 *   connections with the pair given. Until the first one the port listens but closes every connection at
 *   once, before any TLS, as virt-operator's handshake fails while its certificate manager has none.
 * - With `callers` only a client certificate of that CA (the handshake refuses any other) whose common name is
 *   allowed is served, else 401 before the body is read; without them any caller is, said once in a warning.
 * - An unknown path is 404, a method other than POST 405, a review beyond the path's cap 429 with Retry-After,
 *   a body over 3 MiB 413 (in-flight.ts, kernel/http/body.ts). Each review gets one log line with its path,
 *   uid, operation, kind, namespace, name and verdict, never the objects.
 */
import { X509Certificate } from 'node:crypto';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { createServer, type Server } from 'node:https';
import type { AddressInfo, Socket } from 'node:net';
import { TLSSocket } from 'node:tls';
import { realClock, type Clock } from '../../kernel/clock.ts';
import { errorMessage, KvError, newStatus, type Status } from '../../kernel/errors/errors.ts';
import { BodyTooLargeError, readBody, sendJson, sendStatus } from '../../kernel/http/body.ts';
import type { KubeClient } from '../../kernel/kube/index.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { peerNameRefusal } from '../../kernel/tls/peer-name.ts';
import { handleAdmission, type AdmissionAnswer, type Admitter } from '../../kubevirt/admission/admit.ts';
import { RETRY_AFTER_SECONDS, ReviewLimit, tooManyReviews } from '../../kubevirt/admission/in-flight.ts';
import { kubevirtAdmitters } from '../../kubevirt/admission/kubevirt-admitters.ts';
import { clusterKubeVirtLookup } from '../../kubevirt/admission/kubevirt-lookup.ts';
import { buildRuleIndex, KUBEVIRT_REWRITE_RULES, type RuleIndex } from '../../rename/index.ts';
import { restoreReview } from './restore.ts';

const MAX_BODY_BYTES = 3 * 1024 * 1024;
const CLOSE_GRACE_MS = 5_000;
const MIN_TLS = 'TLSv1.2';
const ALLOWED_NAMES_FROM = '--webhook-client-allowed-names';

interface WebhookCallers {
  /** The CA (PEM) of the callers' client certificates. */
  readonly ca: string;
  readonly allowedNames: readonly string[];
}

export interface OperatorWebhookServerOptions {
  /** undefined: every interface. */
  readonly host?: string | undefined;
  /** 0 picks a free port. */
  readonly port: number;
  /** Speaks kubevirt.io names (the role passes a rewriting client): the KubeVirt CRs, VMIs and VMs listed. */
  readonly client: Pick<KubeClient, 'list'>;
  /** Straight to the API server: the placement probes created with dryRun. */
  readonly direct: Pick<KubeClient, 'create'>;
  /** Who may call; undefined: anyone. */
  readonly callers?: WebhookCallers | undefined;
  /** Reviews in flight per path (default in-flight.ts's). */
  readonly maxReviewsInFlight?: number;
  readonly clock?: Clock;
  readonly log: Logger;
}

export interface OperatorWebhookServer {
  readonly port: number;
  /** Serves new connections with this certificate (and chain) and key, PEM; open connections keep theirs. */
  setServingCertificate(certPem: string, keyPem: string): void;
  /** Stops accepting; the reviews in flight get a few seconds, then their connections are cut. */
  close(): Promise<void>;
}

interface Ctx {
  readonly admitters: Readonly<Record<string, Admitter>>;
  readonly reviews: ReviewLimit;
  readonly index: RuleIndex;
  readonly callers: WebhookCallers | undefined;
  readonly log: Logger;
}

/** Why this request goes no further (401, 404, 405), or undefined. */
function refusalOf(ctx: Ctx, req: IncomingMessage, path: string): Status | undefined {
  if (ctx.callers !== undefined) {
    const refusal =
      req.socket instanceof TLSSocket
        ? peerNameRefusal(req.socket, ctx.callers.allowedNames, ALLOWED_NAMES_FROM)
        : 'Unauthorized';
    if (refusal !== undefined) return newStatus(401, refusal);
  }
  if (!Object.hasOwn(ctx.admitters, path)) return newStatus(404, `no admission webhook at ${path}`);
  if (req.method !== 'POST') return newStatus(405, `admission webhooks answer POST, not ${req.method ?? ''}`);
  return undefined;
}

function refuse(ctx: Ctx, res: ServerResponse, path: string, status: Status): void {
  if (status.code === 429) res.setHeader('Retry-After', String(RETRY_AFTER_SECONDS));
  sendStatus(res, status);
  ctx.log.v(2).info('admission request refused', { path, code: status.code });
}

const verdictOf = (a: AdmissionAnswer): Record<string, unknown> =>
  a.code === 200 ? { allowed: a.body.response.allowed, status: a.body.response.status?.code } : {};

async function onRequest(ctx: Ctx, req: IncomingMessage, res: ServerResponse): Promise<void> {
  const path = (req.url ?? '/').split('?', 1)[0] ?? '';
  const refusal = refusalOf(ctx, req, path);
  const release = refusal === undefined ? ctx.reviews.enter(path) : undefined;
  if (release === undefined) {
    refuse(ctx, res, path, refusal ?? tooManyReviews(path));
    return;
  }
  try {
    const body = await readBody(req, MAX_BODY_BYTES);
    const restored = restoreReview(body.toString('utf8'), ctx.index);
    const answer = await handleAdmission(ctx.admitters, path, restored.text);
    sendJson(res, answer.code, answer.body);
    ctx.log.info('admission review answered', {
      path,
      code: answer.code,
      ...restored.fields,
      ...verdictOf(answer),
    });
  } catch (err) {
    if (!(err instanceof BodyTooLargeError)) throw err;
    refuse(ctx, res, path, newStatus(413, err.message));
  } finally {
    release();
  }
}

function listen(server: Server, o: OperatorWebhookServerOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    const failed = (err: Error): void => {
      const at = `${o.host ?? '0.0.0.0'}:${o.port}`;
      reject(
        new KvError('KV_ERR_CONFIG', `the operator's webhook server cannot listen on ${at}: ${err.message}`),
      );
    };
    server.once('error', failed);
    server.listen(o.port, o.host, () => {
      server.off('error', failed);
      resolve();
    });
  });
}

export async function startOperatorWebhookServer(
  o: OperatorWebhookServerOptions,
): Promise<OperatorWebhookServer> {
  const log = o.log.with({ server: 'webhooks' });
  const ctx: Ctx = {
    admitters: kubevirtAdmitters(clusterKubeVirtLookup({ client: o.client, direct: o.direct })),
    reviews: new ReviewLimit(o.maxReviewsInFlight),
    index: buildRuleIndex(KUBEVIRT_REWRITE_RULES),
    callers: o.callers,
    log,
  };
  const trust = o.callers === undefined ? {} : { ca: o.callers.ca };
  const server = createServer({
    minVersion: MIN_TLS,
    ...(o.callers !== undefined && { requestCert: true, rejectUnauthorized: true, ...trust }),
  });
  let serving = false;
  server.on('connection', (socket: Socket) => {
    if (serving) return;
    log.v(2).info('connection closed: no serving certificate yet');
    socket.destroy();
  });
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    onRequest(ctx, req, res).catch((err: unknown) => {
      log.error('admission request failed', { path: req.url, reason: err });
      if (res.headersSent) res.destroy();
      else sendStatus(res, newStatus(500, `the operator failed to answer: ${errorMessage(err)}`));
    });
  });
  server.on('tlsClientError', (err) => {
    log.v(2).info('webhook TLS handshake failed', { reason: err.message });
  });
  await listen(server, o);
  server.on('error', (err) => {
    log.error('webhook server error', { reason: err });
  });
  const port = (server.address() as AddressInfo).port;
  log.info('webhook server listening', { port, callers: o.callers?.allowedNames.join(',') ?? 'anyone' });
  if (o.callers === undefined)
    log.warning(
      'the webhook server serves any caller: give it the CA of the API server webhook client certificate',
    );
  return {
    port,
    setServingCertificate: (cert, key): void => {
      try {
        server.setSecureContext({ minVersion: MIN_TLS, cert, key, ...trust });
      } catch (err) {
        const why = `the webhook serving certificate cannot be used: ${errorMessage(err)}`;
        throw new KvError('KV_ERR_CONFIG', why, { cause: err });
      }
      serving = true;
      log.info('webhook serving certificate set', { validTo: new X509Certificate(cert).validTo });
    },
    close: async (): Promise<void> => {
      const closed = new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
      });
      server.closeIdleConnections();
      const late = (o.clock ?? realClock).after(CLOSE_GRACE_MS, () => {
        server.closeAllConnections();
      });
      await closed;
      late.cancel();
    },
  };
}
