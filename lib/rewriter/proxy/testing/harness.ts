/**
 * Test support: a kube-api proxy in front of a FakeUpstream, on 127.0.0.1:0 (clients send their own token) or
 * on a unix socket in a temp dir (they send none and run as the rewriter), with its own metrics registry, and
 * small HTTP client helpers for talking to it.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Registry } from 'prom-client';
import { Agent, request, type Dispatcher } from 'undici';
import type { RestConfig } from '../../../kernel/kube/index.ts';
import { nopLogger, type Logger } from '../../../kernel/log/log.ts';
import { KUBEVIRT } from '../../../rename/testing/synthetic-rules.ts';
import { startKubeApiProxy } from '../kube-api.ts';
import { rewriterMetrics } from '../metrics.ts';
import type { CredentialLess } from '../identity.ts';
import type { Endpoint, ProxyServer } from '../serve.ts';
import { Upstream } from '../upstream.ts';
import { FakeUpstream } from './fake-upstream.ts';

/** The token a harness client sends on TCP; the proxy's own is `proxy-token`. */
export const CLIENT_TOKEN = 'client-token';

export interface Harness {
  upstream: FakeUpstream;
  proxy: ProxyServer;
  base: string;
  registry: Registry;
  /** Dials the proxy (its TCP port, or its unix socket). */
  client: Agent;
  /** The headers a client of this harness sends by default: its own token on TCP, none on the socket. */
  auth: Record<string, string>;
  /** The proxy's unix socket, when it listens on one. */
  socketPath?: string;
  close(): Promise<void>;
}

export interface HarnessOptions {
  maxBodyBytes?: number;
  /** Overrides the upstream config (e.g. a dead server). */
  config?: Partial<RestConfig>;
  log?: Logger;
  fake?: FakeUpstream;
  /** Listen on a unix socket instead of TCP (mode 0600 unless given). */
  unix?: { mode?: number; gid?: number };
}

interface Listener {
  readonly endpoint: Endpoint;
  readonly credentialLess: CredentialLess;
  readonly auth: Record<string, string>;
  readonly socketPath?: string;
  readonly remove: () => Promise<void>;
}

/** TCP on 127.0.0.1:0 (clients send their token), or a socket in a temp dir (they send none). */
async function listenerOf(unix: HarnessOptions['unix']): Promise<Listener> {
  if (unix === undefined)
    return {
      endpoint: { host: '127.0.0.1', port: 0 },
      credentialLess: 'refuse',
      auth: { authorization: `Bearer ${CLIENT_TOKEN}` },
      remove: () => Promise.resolve(),
    };
  const dir = await mkdtemp(join(tmpdir(), 'kv-rewriter-'));
  const socketPath = join(dir, 'kube-api.sock');
  return {
    endpoint: { socket: { path: socketPath, ...unix } },
    credentialLess: 'lend',
    auth: {},
    socketPath,
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const upstream = opts.fake ?? (await FakeUpstream.start());
  const registry = new Registry();
  const up = new Upstream({
    config: {
      server: upstream.url,
      token: 'proxy-token',
      qps: 0,
      burst: 1,
      userAgent: 'test',
      ...opts.config,
    },
    keepAliveTimeout: 10,
  });
  const l = await listenerOf(opts.unix);
  const proxy = await startKubeApiProxy({
    index: KUBEVIRT,
    upstream: up,
    metrics: rewriterMetrics(registry),
    log: opts.log ?? nopLogger,
    maxBodyBytes: opts.maxBodyBytes ?? 1024 * 1024,
    endpoint: l.endpoint,
    credentialLess: l.credentialLess,
  });
  const socketPath = l.socketPath;
  const client = new Agent({
    keepAliveTimeout: 10,
    ...(socketPath !== undefined && { connect: { socketPath } }),
  });
  return {
    upstream,
    proxy,
    base: socketPath === undefined ? `http://127.0.0.1:${proxy.port}` : 'http://localhost',
    registry,
    client,
    auth: l.auth,
    ...(socketPath !== undefined && { socketPath }),
    close: async (): Promise<void> => {
      await proxy.close(100);
      await Promise.all([up.destroy(), client.destroy(), upstream.close()]);
      await l.remove();
    },
  };
}

export interface Reply {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  text: string;
  raw: Buffer;
  json: () => unknown;
}

export interface Call {
  method?: Dispatcher.HttpMethod;
  /** Added to the harness's `auth` headers. */
  headers?: Record<string, string>;
  body?: string | Buffer;
  /** Send no credentials, whatever the harness sends by default. */
  anonymous?: boolean;
}

/** A whole request/response through the proxy. */
export async function call(harness: Harness, path: string, c: Call = {}): Promise<Reply> {
  const res = await request(`${harness.base}${path}`, {
    dispatcher: harness.client,
    method: c.method ?? 'GET',
    headers: { ...(c.anonymous !== true && harness.auth), ...c.headers },
    body: c.body ?? null,
  });
  const raw = Buffer.from(await res.body.arrayBuffer());
  const text = raw.toString('utf8');
  return {
    status: res.statusCode,
    headers: res.headers,
    text,
    raw,
    json: () => JSON.parse(text) as unknown,
  };
}

/** The value of one sample in the registry's text output (undefined when absent). */
export async function sample(
  registry: Registry,
  name: string,
  labels: Record<string, string>,
): Promise<number | undefined> {
  const metric = (await registry.getMetricsAsJSON()).find((m) => m.name === name);
  const values =
    (metric as { values?: { labels: Record<string, unknown>; value: number }[] } | undefined)?.values ?? [];
  const hit = values.find((v) => Object.entries(labels).every(([k, want]) => String(v.labels[k]) === want));
  return hit?.value;
}
