/**
 * Test support: a kube-api proxy on 127.0.0.1:0 in front of a FakeUpstream, with its own metrics registry,
 * and small HTTP client helpers for talking to it.
 */
import { Registry } from 'prom-client';
import { Agent, request, type Dispatcher } from 'undici';
import type { RestConfig } from '../../../kernel/kube/index.ts';
import { nopLogger, type Logger } from '../../../kernel/log/log.ts';
import { KUBEVIRT } from '../../../rename/testing/synthetic-rules.ts';
import { startKubeApiProxy } from '../kube-api.ts';
import { rewriterMetrics } from '../metrics.ts';
import type { ProxyServer } from '../serve.ts';
import { Upstream } from '../upstream.ts';
import { FakeUpstream } from './fake-upstream.ts';

export interface Harness {
  upstream: FakeUpstream;
  proxy: ProxyServer;
  base: string;
  registry: Registry;
  client: Agent;
  close(): Promise<void>;
}

export interface HarnessOptions {
  maxBodyBytes?: number;
  /** Overrides the upstream config (e.g. a dead server). */
  config?: Partial<RestConfig>;
  log?: Logger;
  fake?: FakeUpstream;
}

export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const upstream = opts.fake ?? (await FakeUpstream.start());
  const registry = new Registry();
  const up = new Upstream({
    config: { server: upstream.url, token: 'proxy-token', qps: 0, burst: 1, userAgent: 'test', ...opts.config },
    keepAliveTimeout: 10,
  });
  const proxy = await startKubeApiProxy({
    index: KUBEVIRT,
    upstream: up,
    metrics: rewriterMetrics(registry),
    log: opts.log ?? nopLogger,
    maxBodyBytes: opts.maxBodyBytes ?? 1024 * 1024,
    host: '127.0.0.1',
    port: 0,
  });
  const client = new Agent({ keepAliveTimeout: 10 });
  return {
    upstream,
    proxy,
    base: `http://127.0.0.1:${proxy.port}`,
    registry,
    client,
    close: async (): Promise<void> => {
      await proxy.close(100);
      await Promise.all([up.destroy(), client.destroy(), upstream.close()]);
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
  headers?: Record<string, string>;
  body?: string | Buffer;
}

/** A whole request/response through the proxy. */
export async function call(harness: Harness, path: string, c: Call = {}): Promise<Reply> {
  const res = await request(`${harness.base}${path}`, {
    dispatcher: harness.client,
    method: c.method ?? 'GET',
    headers: c.headers ?? {},
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
