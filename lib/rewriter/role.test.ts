import { describe, expect, it } from '@jest/globals';
import { mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { nopLogger } from '../kernel/log/log.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import { runRewriterRole, type ListeningPorts, type RewriterRoleOptions } from './role.ts';
import { FakeUpstream, sendJson } from './proxy/testing/fake-upstream.ts';
import { IG, internalVmi, originalVmi } from '../rename/testing/objects.ts';

async function get(
  url: string,
  headers: Record<string, string> = {},
): Promise<{ status: number; body: string }> {
  const res = await fetch(url, { headers });
  return { status: res.status, body: await res.text() };
}

const VMI = '/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstances/a';

/** Runs the role against `server` until the test is done with it. */
async function withRewriter(
  server: string,
  test: (p: ListeningPorts) => Promise<void>,
  more: Partial<RewriterRoleOptions> = {},
): Promise<void> {
  const ac = new AbortController();
  let ready: (p: ListeningPorts) => void = () => undefined;
  const listening = new Promise<ListeningPorts>((resolve) => (ready = resolve));
  const running = runRewriterRole(
    {
      config: { server, token: 'rewriter-token', qps: 0, burst: 1, userAgent: 'test' },
      listen: { host: '127.0.0.1', port: 0 },
      metricsListen: { host: '127.0.0.1', port: 0 },
      maxBodyBytes: 1 << 20,
      log: nopLogger,
      probeIntervalMs: 20,
      onListening: ready,
      ...more,
    },
    ac.signal,
  );
  const ports = await Promise.race([
    listening,
    running.then(() => Promise.reject(new Error('stopped early'))),
  ]);
  try {
    await test(ports);
  } finally {
    ac.abort();
    await running;
  }
  await expect(fetch(`http://127.0.0.1:${ports.kubeApi}/`)).rejects.toThrow();
  await expect(fetch(`http://127.0.0.1:${ports.metrics}/healthz`)).rejects.toThrow();
}

describe('runRewriterRole', () => {
  it('proxies, serves /healthz, /readyz and the kube_api_rewriter_* metrics, and stops on abort', async () => {
    const fake = await FakeUpstream.start();
    fake.handler = (req, res) => {
      if (req.path === '/readyz') res.end('ok');
      else sendJson(res, 200, internalVmi({ name: 'a' }));
    };
    try {
      await withRewriter(fake.url, async (p) => {
        const vmi = await get(`http://127.0.0.1:${p.kubeApi}${VMI}`, { authorization: 'Bearer mine' });
        expect(JSON.parse(vmi.body)).toEqual(originalVmi({ name: 'a' }));
        expect(await get(`http://127.0.0.1:${p.metrics}/healthz`)).toEqual({ status: 200, body: 'ok' });
        await waitFor(
          async () => (await get(`http://127.0.0.1:${p.metrics}/readyz`)).status === 200,
          '/readyz 200',
        );
        expect((await get(`http://127.0.0.1:${p.metrics}/readyz`)).status).toBe(200);
        const metrics = (await get(`http://127.0.0.1:${p.metrics}/metrics`)).body;
        expect(metrics).toContain(
          'kube_api_rewriter_client_requests_total{name="kube-api",resource="virtualmachineinstances",method="GET",watch="false",decision="rewrite"} 1',
        );
        expect(metrics).toContain('kube_api_rewriter_request_handling_duration_seconds_bucket{le="0.001"');
      });
    } finally {
      await fake.close();
    }
  });

  it('is not ready while the API server is down, and says why', async () => {
    await withRewriter('http://127.0.0.1:1', async (p) => {
      await waitFor(
        async () => (await get(`http://127.0.0.1:${p.metrics}/readyz`)).body.includes('unreachable'),
        '/readyz to name the unreachable API server',
      );
      const r = await get(`http://127.0.0.1:${p.metrics}/readyz`);
      expect(r.status).toBe(503);
      expect(r.body).toMatch(/\[-\]upstream failed: the API server http:\/\/127\.0\.0\.1:1 is unreachable/);
    });
  });

  it('refuses a request without credentials on TCP, and serves it as the rewriter on its 0600 socket', async () => {
    const fake = await FakeUpstream.start();
    fake.handler = (req, res) => {
      if (req.path === '/readyz') res.end('ok');
      else sendJson(res, 200, internalVmi({ name: 'a' }));
    };
    const dir = await mkdtemp(join(tmpdir(), 'kv-rewriter-role-'));
    const socketPath = join(dir, 'kube-api.sock');
    const viaSocket = new Agent({ connect: { socketPath } });
    try {
      await withRewriter(
        fake.url,
        async (p) => {
          expect((await get(`http://127.0.0.1:${p.kubeApi}${VMI}`)).status).toBe(401);
          const proxied = (): string[] =>
            fake.requests
              .filter((r) => r.path !== '/readyz')
              .map((r) => `${r.path} ${r.headers.authorization}`);
          expect(proxied()).toEqual([]);
          expect((await stat(socketPath)).mode & 0o777).toBe(0o600);
          const res = await request(`http://localhost${VMI}`, { dispatcher: viaSocket });
          expect(await res.body.json()).toEqual(originalVmi({ name: 'a' }));
          expect(proxied()).toEqual([
            `/apis/${IG}/v1/namespaces/ns/internalvirtualizationvirtualmachineinstances/a Bearer rewriter-token`,
          ]);
        },
        { listenUnix: { path: socketPath } },
      );
    } finally {
      await viaSocket.destroy();
      await fake.close();
      await rm(dir, { recursive: true, force: true });
    }
  });
});
