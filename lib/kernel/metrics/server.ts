/**
 * The metrics + health HTTP server every role runs: /metrics (Prometheus text format), /healthz (200 while
 * the process serves), /readyz (200 when every readiness check passes, else 503 naming the failing ones, in
 * the kube-apiserver's `[+]name ok` / `[-]name failed: reason` format; `?verbose` lists them on success too).
 */
import { createServer } from 'node:http';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Registry } from 'prom-client';
import { errorMessage } from '../errors/errors.ts';
import type { Logger } from '../log/log.ts';

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

async function handle(req: IncomingMessage, res: ServerResponse, opts: HealthServerOptions): Promise<void> {
  if (req.method !== 'GET' && req.method !== 'HEAD') {
    res.setHeader('Allow', 'GET, HEAD');
    send(res, 405, 'method not allowed');
    return;
  }
  const url = new URL(req.url ?? '/', 'http://localhost');
  switch (url.pathname) {
    case '/metrics':
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

export async function startHealthServer(opts: HealthServerOptions): Promise<HealthServer> {
  const server = createServer((req, res) => {
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
  const port = (server.address() as AddressInfo).port;
  opts.log.info('health server listening', { port, ...(opts.host === undefined ? {} : { host: opts.host }) });
  return {
    port,
    close: (): Promise<void> =>
      new Promise((resolve) => {
        server.close(() => {
          resolve();
        });
        server.closeAllConnections();
      }),
  };
}
