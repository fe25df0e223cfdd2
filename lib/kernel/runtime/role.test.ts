import { describe, expect, it } from '@jest/globals';
import { makeTlsFixture } from '../../../testenv/pki.ts';
import { KvError } from '../errors/errors.ts';
import { FakeApiServer, json } from '../kube/testing/fake-api-server.ts';
import { memoryLogger } from '../log/log.ts';
import { waitFor } from '../testing/wait.ts';
import { httpsCall } from '../tls/testing/https.ts';
import { requireRegistry, runRole, untilAborted, type RoleContext } from './role.ts';

const health = { port: 0, host: '127.0.0.1' };

async function readyz(port: number): Promise<{ status: number; body: string }> {
  const res = await fetch(`http://127.0.0.1:${port}/readyz?verbose`);
  return { status: res.status, body: await res.text() };
}

describe('runRole', () => {
  it('runs the work until the signal aborts, then the cleanups in reverse order, the health server last', async () => {
    const { log, lines } = memoryLogger();
    const order: string[] = [];
    const ac = new AbortController();
    let port = 0;
    const done = runRole(
      {
        component: 'test',
        log,
        health,
        start: (ctx) => {
          port = ctx.healthPort ?? 0;
          ctx.defer(() => {
            order.push('first');
          });
          ctx.defer(() => {
            order.push('failing');
            throw new Error('boom');
          });
          ctx.defer(async () => {
            order.push('last');
            // The health server still answers while the cleanups run.
            order.push(`healthz ${(await fetch(`http://127.0.0.1:${port}/healthz`)).status}`);
          });
          return Promise.resolve({
            run: (signal) =>
              new Promise<void>((resolve) => {
                order.push('run');
                signal.addEventListener('abort', () => {
                  resolve();
                });
              }),
          });
        },
      },
      ac.signal,
    );
    await waitFor(() => order.includes('run'), 'the work to run');
    ac.abort();
    await done;
    expect(order).toEqual(['run', 'last', 'healthz 200', 'failing', 'first']);
    expect(lines.some((l) => l['msg'] === 'cleanup step failed' && l['reason'] === 'boom')).toBe(true);
    await expect(fetch(`http://127.0.0.1:${port}/healthz`)).rejects.toThrow();
  });

  it('serves the readiness checks the role adds, and a metrics registry', async () => {
    const ac = new AbortController();
    let ready: true | string = 'warming up';
    let ctx: RoleContext | undefined;
    const done = runRole(
      {
        component: 'test',
        log: memoryLogger().log,
        health,
        start: (c) => {
          ctx = c;
          c.readinessCheck('warm', () => ready);
          return Promise.resolve({
            run: () =>
              new Promise<void>((r) => {
                ac.signal.addEventListener('abort', () => {
                  r();
                });
              }),
          });
        },
      },
      ac.signal,
    );
    const started = await waitFor(() => ctx, 'start');
    const port = started.healthPort ?? 0;
    expect(await readyz(port)).toEqual({
      status: 503,
      body: expect.stringContaining('[-]warm failed: warming up'),
    });
    ready = true;
    expect(await readyz(port)).toEqual({ status: 200, body: expect.stringContaining('[+]warm ok') });
    expect(requireRegistry(started).getSingleMetric('process_cpu_user_seconds_total')).toBeDefined();
    ac.abort();
    await done;
  });

  it('runs the cleanups registered so far when start fails, and rejects with its error', async () => {
    const order: string[] = [];
    const failure = new KvError('KV_ERR_CONFIG', 'no such socket');
    const run = runRole(
      {
        component: 'test',
        log: memoryLogger().log,
        start: (ctx) => {
          ctx.defer(() => {
            order.push('cleaned');
          });
          return Promise.reject(failure);
        },
      },
      new AbortController().signal,
    );
    await expect(run).rejects.toBe(failure);
    expect(order).toEqual(['cleaned']);
  });

  it('has no registry without health, and says so when one is required', async () => {
    let ctx: RoleContext | undefined;
    await runRole(
      {
        component: 'launcher',
        log: memoryLogger().log,
        start: (c) => {
          ctx = c;
          return Promise.resolve({ run: () => Promise.resolve() });
        },
      },
      new AbortController().signal,
    );
    expect(ctx?.registry).toBeUndefined();
    expect(ctx?.healthPort).toBeUndefined();
    expect(() => requireRegistry(ctx as RoleContext)).toThrow(
      expect.objectContaining({ code: 'KV_ERR_INTERNAL' }),
    );
  });

  it('with secure health serves TLS and asks the cluster about each /metrics caller with its own config', async () => {
    const [tls, api] = await Promise.all([makeTlsFixture(), FakeApiServer.start()]);
    api.handler = (req, res): void => {
      const body = JSON.parse(req.body) as { spec: { token?: string; user?: string } };
      if (req.path.endsWith('/tokenreviews'))
        json(res, 201, {
          status: { authenticated: body.spec.token === 'scraper', user: { username: 'scraper' } },
        });
      else json(res, 201, { status: { allowed: body.spec.user === 'scraper' } });
    };
    const ac = new AbortController();
    let port: number | undefined;
    const done = runRole(
      {
        component: 'test',
        log: memoryLogger().log,
        health: {
          ...health,
          secure: {
            tls: { cert: tls.cert, key: tls.key, certFile: tls.certFile, keyFile: tls.keyFile },
            config: { server: api.url, token: 'role-token', qps: 0, burst: 1, userAgent: 'test' },
          },
        },
        start: (ctx) => {
          port = ctx.healthPort;
          return Promise.resolve({ run: () => untilAborted(ac.signal) });
        },
      },
      ac.signal,
    );
    const base = new URL(`https://127.0.0.1:${await waitFor(() => port, 'start')}/`);
    const scrape = (token?: string): Promise<number> =>
      httpsCall(new URL('/metrics', base), {
        method: 'GET',
        ca: tls.cert,
        ...(token !== undefined && { headers: { authorization: `Bearer ${token}` } }),
      }).then((r) => r.status);
    expect([await scrape(), await scrape('nobody'), await scrape('scraper')]).toEqual([401, 401, 200]);
    expect(api.requests.map((r) => [r.path, r.headers.authorization])).toEqual([
      ['/apis/authentication.k8s.io/v1/tokenreviews', 'Bearer role-token'],
      ['/apis/authentication.k8s.io/v1/tokenreviews', 'Bearer role-token'],
      ['/apis/authorization.k8s.io/v1/subjectaccessreviews', 'Bearer role-token'],
    ]);
    ac.abort();
    await done;
    await api.close();
    tls.remove();
  });
});
