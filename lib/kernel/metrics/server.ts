/**
 * The metrics + health server every role runs: /metrics (Prometheus text format), /healthz (200 while
 * the process serves), /readyz (200 when every readiness check passes, else 503 naming the failing ones, in
 * the kube-apiserver's `[+]name ok` / `[-]name failed: reason` format; `?verbose` lists them on success too).
 * Plain HTTP, or TLS with a certificate and key whose files are read again when they change. With an
 * authorizer only a caller the cluster allows to get /metrics reads it (controller-runtime's metrics filter:
 * no or a bad bearer token 401, a refusal 403, a review that cannot be made 500); the probes stay open, as the
 * kubelet brings no token.
 */
import { createServer as createHttpServer } from 'node:http';
import type { IncomingMessage, Server, ServerResponse } from 'node:http';
import { createServer as createHttpsServer } from 'node:https';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { errorMessage } from '../errors/errors.ts';
import type { Logger } from '../log/log.ts';
import { checkPemSet, watchPemFiles, type PemWatch } from '../tls/pem-watch.ts';
import { bearerToken, METRICS_PATH, type MetricsAuthorizer } from './authorize.ts';

const MIN_TLS = 'TLSv1.2';

/** true when ready; false or a reason string when not. A throwing check counts as not ready. */
export type ReadinessCheck = () => boolean | string;

export interface HealthServerOptions {
  /** 0 picks a free port (tests). */
  port: number;
  /** Default: every interface. */
  host?: string;
  registry: Registry;
  /** By name, e.g. { 'informers-synced': ..., leader: ... }; read on every request. */
  checks?: Readonly<Record<string, ReadinessCheck>>;
  log: Logger;
  /** Serve TLS with this certificate and key. */
  tls?: HealthTls;
  /** How often the TLS files are read for a rotation (default DEFAULT_PEM_POLL_MS). */
  tlsReloadIntervalMs?: number;
  /** Who may read /metrics; without one anyone may. */
  authorizer?: MetricsAuthorizer;
}

/** The serving certificate and key (PEM) as read at start, and the files they came from, watched for rotation. */
export interface HealthTls {
  readonly cert: string;
  readonly key: string;
  readonly certFile: string;
  readonly keyFile: string;
}

export interface HealthServer {
  readonly port: number;
  close(): Promise<void>;
}

interface CheckResult {
  name: string;
  ok: boolean;
  reason: string;
}

function runChecks(checks: Readonly<Record<string, ReadinessCheck>>): CheckResult[] {
  return Object.entries(checks).map(([name, check]) => {
    try {
      const r = check();
      return { name, ok: r === true, reason: typeof r === 'string' && r !== '' ? r : 'not ready' };
    } catch (err) {
      return { name, ok: false, reason: errorMessage(err) };
    }
  });
}

function send(
  res: ServerResponse,
  code: number,
  body: string,
  contentType = 'text/plain; charset=utf-8',
): void {
  res.writeHead(code, {
    'Content-Type': contentType,
    'X-Content-Type-Options': 'nosniff',
    'Cache-Control': 'no-store',
  });
  res.end(res.req.method === 'HEAD' ? undefined : body);
}

function readyz(res: ServerResponse, url: URL, checks: Readonly<Record<string, ReadinessCheck>>): void {
  const results = runChecks(checks);
  const failed = results.some((r) => !r.ok);
  if (!failed && !url.searchParams.has('verbose')) {
    send(res, 200, 'ok');
    return;
  }
  const lines = results.map((r) => (r.ok ? `[+]${r.name} ok` : `[-]${r.name} failed: ${r.reason}`));
  lines.push(failed ? 'readyz check failed' : 'readyz check passed');
  send(res, failed ? 503 : 200, lines.join('\n') + '\n');
}

function unauthorized(res: ServerResponse): void {
  res.setHeader('WWW-Authenticate', 'Bearer');
  send(res, 401, 'Unauthorized');
}

/** Whether the caller may read /metrics; when not, the refusal is sent. Logs carry no token, no header. */
async function authorized(
  req: IncomingMessage,
  res: ServerResponse,
  authorizer: MetricsAuthorizer,
  log: Logger,
): Promise<boolean> {
  const token = bearerToken(req.headers.authorization);
  if (token === undefined) {
    unauthorized(res);
    return false;
  }
  try {
    const access = await authorizer.authorize(token);
    if (access.kind === 'allowed') return true;
    if (access.kind === 'unauthenticated') unauthorized(res);
    else {
      log.v(4).info('metrics request forbidden', { user: access.user, reason: access.reason });
      send(res, 403, `Forbidden: user "${access.user}" may not get ${METRICS_PATH}`);
    }
  } catch (err) {
    log.error('metrics request not authorized: the review failed', { reason: err });
    send(res, 500, 'Authorization failed');
  }
  return false;
}

async function handle(req: IncomingMessage, res: ServerResponse, opts: HealthServerOptions): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    send(res, 405, 'method not allowed');
    return;
  }
  const url = new URL(req.url ?? '/', 'http://localhost');
  switch (url.pathname) {
    case METRICS_PATH:
      if (opts.authorizer !== undefined && !(await authorized(req, res, opts.authorizer, opts.log))) return;
      send(res, 200, await opts.registry.metrics(), opts.registry.contentType);
      return;
    case '/healthz':
      send(res, 200, 'ok');
      return;
    case '/readyz':
      readyz(res, url, opts.checks ?? {});
      return;
    default:
      send(res, 404, 'not found');
  }
}

/**
 * Plain HTTP, or HTTPS from the checked certificate and key; `watch`, called once it listens, has new
 * connections get each usable certificate and key the files change to.
 */
function newServer(opts: HealthServerOptions): { server: Server; watch: () => PemWatch | undefined } {
  const tls = opts.tls;
  if (tls === undefined) return { server: createHttpServer(), watch: () => undefined };
  const files = { cert: tls.certFile, key: tls.keyFile };
  checkPemSet(tls, files);
  const server = createHttpsServer({ cert: tls.cert, key: tls.key, minVersion: MIN_TLS });
  const watch = (): PemWatch =>
    watchPemFiles({
      files,
      current: tls,
      apply: (next) => {
        server.setSecureContext({ cert: next.cert, key: next.key, minVersion: MIN_TLS });
      },
      log: opts.log.with({ tls: 'metrics' }),
      ...(opts.tlsReloadIntervalMs !== undefined && { intervalMs: opts.tlsReloadIntervalMs }),
    });
  return { server, watch };
}

export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  const { server, watch: watchTls } = newServer(opts);
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    handle(req, res, opts).catch((err: unknown) => {
      opts.log.error('health server request failed', { reason: err, path: req.url });
      if (!res.headersSent) send(res, 500, 'internal error');
      else res.destroy();
    });
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(opts.port, opts.host, () => {
      server.off('error', reject);
      resolve();
    });
  });
  server.on('error', (err) => {
    opts.log.error('health server error', { reason: err });
  });
  const watch = watchTls();
  const port = (server.address() as AddressInfo).port;
  opts.log.info('health server listening', {
    port,
    ...(opts.host !== undefined && { host: opts.host }),
    tls: opts.tls !== undefined,
    metricsAuthorized: opts.authorizer !== undefined,
  });
  return {
    port,
    close: async (): Promise<void> => {
      await watch?.close();
      await new Promise<void>((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      });
    },
  };
}
