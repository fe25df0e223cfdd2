import { afterEach, describe, expect, it } from '@jest/globals';
import { Counter, Registry } from 'prom-client';
import { memoryLogger, nopLogger } from '../log/log.ts';
import { startHealthServer } from './server.ts';
import type { HealthServer, ReadinessCheck } from './server.ts';

const servers: HealthServer[] = [];
afterEach(async () => {
  await Promise.all(servers.splice(0).map((s) => s.close()));
});

async function start(
  checks: Record<string, ReadinessCheck> = {},
  registry = new Registry(),
): Promise<string> {
  const s = await startHealthServer({ port: 0, host: '127.0.0.1', registry, checks, log: nopLogger });
  servers.push(s);
  return `http://127.0.0.1:${s.port}`;
}

async function get(
  url: string,
  init?: RequestInit,
): Promise<{ status: number; body: string; type: string | null }> {
  const res = await fetch(url, init);
  return { status: res.status, body: await res.text(), type: res.headers.get('content-type') };
}

describe('startHealthServer', () => {
  it('serves the registry in Prometheus text format on /metrics', async () => {
    const registry = new Registry();
    new Counter({ name: 'kubevirt_test_events_total', help: 'events', registers: [registry] }).inc(3);
    const base = await start({}, registry);
    const r = await get(`${base}/metrics`);
    expect(r.status).toBe(200);
    expect(r.type).toBe(registry.contentType);
    expect(r.body).toMatch(/^kubevirt_test_events_total 3$/m);
  });

  it('answers /healthz with 200 ok, and HEAD without a body', async () => {
    const base = await start({ leader: () => false });
    expect(await get(`${base}/healthz`)).toMatchObject({ status: 200, body: 'ok' });
    expect(await get(`${base}/healthz`, { method: 'HEAD' })).toMatchObject({ status: 200, body: '' });
  });

  interface ReadyCase {
    name: string;
    checks: Record<string, ReadinessCheck>;
    query?: string;
    status: number;
    lines: string[];
  }
  it.each<ReadyCase>([
    {
      name: 'all pass',
      checks: { 'informers-synced': () => true, leader: () => true },
      status: 200,
      lines: ['ok'],
    },
    { name: 'no checks', checks: {}, status: 200, lines: ['ok'] },
    {
      name: 'all pass, verbose',
      checks: { 'informers-synced': () => true },
      query: '?verbose',
      status: 200,
      lines: ['[+]informers-synced ok', 'readyz check passed'],
    },
    {
      name: 'one false',
      checks: { 'informers-synced': () => true, leader: () => false },
      status: 503,
      lines: ['[+]informers-synced ok', '[-]leader failed: not ready', 'readyz check failed'],
    },
    {
      name: 'a reason string',
      checks: { 'informers-synced': () => 'vmi cache not synced' },
      status: 503,
      lines: ['[-]informers-synced failed: vmi cache not synced', 'readyz check failed'],
    },
    {
      name: 'a throwing check',
      checks: {
        leader: () => {
          throw new Error('boom');
        },
      },
      status: 503,
      lines: ['[-]leader failed: boom', 'readyz check failed'],
    },
  ])('answers /readyz: $name', async ({ checks, query, status, lines }) => {
    const base = await start(checks);
    const r = await get(`${base}/readyz${query ?? ''}`);
    expect(r.status).toBe(status);
    expect(r.body.trimEnd().split('\n')).toEqual(lines);
  });

  it('reads the checks on every request', async () => {
    let synced = false;
    const base = await start({ 'informers-synced': () => synced });
    expect((await get(`${base}/readyz`)).status).toBe(503);
    synced = true;
    expect((await get(`${base}/readyz`)).status).toBe(200);
  });

  it.each([
    ['an unknown path', '/nope', 'GET', 404],
    ['a POST', '/metrics', 'POST', 405],
  ])('rejects %s', async (_name, path, method, status) => {
    const base = await start();
    expect((await get(`${base}${path}`, { method })).status).toBe(status);
  });

  it('answers 500 and logs when collecting metrics fails', async () => {
    const registry = new Registry();
    new Counter({
      name: 'kubevirt_test_broken_total',
      help: 'broken',
      registers: [registry],
      collect: () => {
        throw new Error('collector broke');
      },
    });
    const { log, lines } = memoryLogger();
    const s = await startHealthServer({ port: 0, host: '127.0.0.1', registry, log });
    servers.push(s);
    expect((await get(`http://127.0.0.1:${s.port}/metrics`)).status).toBe(500);
    expect(lines).toContainEqual(
      expect.objectContaining({
        level: 'error',
        msg: 'health server request failed',
        reason: 'collector broke',
      }),
    );
  });

  it('fails to start on a port in use, and stops listening on close', async () => {
    const base = await start();
    const port = Number(new URL(base).port);
    await expect(
      startHealthServer({ port, host: '127.0.0.1', registry: new Registry(), log: nopLogger }),
    ).rejects.toMatchObject({ code: 'EADDRINUSE' });
    await servers.splice(0)[0]?.close();
    await expect(fetch(`${base}/healthz`)).rejects.toThrow();
  });
});
