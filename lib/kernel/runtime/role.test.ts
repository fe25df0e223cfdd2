import { describe, expect, it } from '@jest/globals';
import { KvError } from '../errors/errors.ts';
import { memoryLogger } from '../log/log.ts';
import { waitFor } from '../testing/wait.ts';
import { requireRegistry, runRole, type RoleContext } from './role.ts';

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
});
