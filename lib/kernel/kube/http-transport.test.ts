import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { realClock } from '../clock.ts';
import { StatusError } from '../errors/errors.ts';
import { HttpKubeClient } from './client.ts';
import { endlessRefusal, type EndlessRefusal } from '../testing/endless-refusal.ts';

jest.setTimeout(20_000);

let srv: EndlessRefusal | undefined;
afterEach(async () => {
  await srv?.close();
  srv = undefined;
});

describe('HttpTransport: an error answer without end', () => {
  it('reads its body up to the cap, then fails with the Status it began with', async () => {
    srv = await endlessRefusal();
    const client = new HttpKubeClient({ server: srv.url, qps: 0, burst: 1, userAgent: 'kv-test/1' });
    const err = await client.request({ method: 'GET', path: '/api/v1/nodes' }).then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.destroy();
    expect(err).toBeInstanceOf(StatusError);
    expect((err as StatusError).status).toMatchObject({ code: 403, message: 'no' });
    // The client stopped reading: the server got out the cap (64 KiB) plus what socket buffers held.
    expect(srv.written()).toBeLessThan(16 * 1024 * 1024);
  });
});

describe('HttpTransport: answers that ask to be retried (client-go checkWait)', () => {
  let server: Server | undefined;
  afterEach(async () => {
    const s = server;
    if (s !== undefined) await new Promise((resolve) => s.close(resolve));
    server = undefined;
  });

  /** A server answering each request with the next of `answers` (status, Retry-After), then 200 `{}`. */
  async function serve(
    answers: [number, string | undefined][],
  ): Promise<{ url: string; seen: () => number }> {
    let n = 0;
    server = createServer((req, res) => {
      req.resume();
      const [code, retryAfter] = answers[n++] ?? [200, undefined];
      res.writeHead(code, {
        'content-type': 'application/json',
        ...(retryAfter !== undefined && { 'retry-after': retryAfter }),
      });
      res.end(
        code === 200
          ? '{}'
          : JSON.stringify({ kind: 'Status', code, message: 'storage is (re)initializing' }),
      );
    });
    await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
    const { port } = server.address() as AddressInfo;
    return { url: `http://127.0.0.1:${port}`, seen: () => n };
  }

  function client(url: string, slept: number[]): HttpKubeClient {
    const sleep = (ms: number): Promise<void> => {
      slept.push(ms);
      return Promise.resolve();
    };
    const clock = { ...realClock, sleep };
    return new HttpKubeClient({ server: url, qps: 0, burst: 1, userAgent: 'kv-test/1' }, { clock });
  }

  it.each<[string, [number, string | undefined][], number[]]>([
    [
      '429 with Retry-After 1, twice',
      [
        [429, '1'],
        [429, '1'],
      ],
      [1000, 1000],
    ],
    ['503 with Retry-After 2', [[503, '2']], [2000]],
  ])('%s: sent again after the delay asked, then succeeds', async (_, answers, delays) => {
    const srv = await serve(answers);
    const slept: number[] = [];
    const c = client(srv.url, slept);
    await expect(c.request({ method: 'POST', path: '/api/v1/namespaces', body: { a: 1 } })).resolves.toEqual(
      {},
    );
    await c.destroy();
    expect(slept).toEqual(delays);
    expect(srv.seen()).toBe(answers.length + 1);
  });

  it.each<[string, [number, string | undefined]]>([
    ['429 without Retry-After', [429, undefined]],
    ['409 with Retry-After', [409, '1']],
    ['503 with an HTTP-date Retry-After', [503, 'Wed, 21 Oct 2026 07:28:00 GMT']],
  ])('%s: fails at once', async (_, answer) => {
    const srv = await serve([answer]);
    const slept: number[] = [];
    const c = client(srv.url, slept);
    await expect(c.request({ method: 'GET', path: '/api/v1/nodes' })).rejects.toBeInstanceOf(StatusError);
    await c.destroy();
    expect(slept).toEqual([]);
    expect(srv.seen()).toBe(1);
  });

  it('gives up after ten retries with the last answer', async () => {
    const srv = await serve(Array.from({ length: 20 }, (): [number, string] => [429, '1']));
    const slept: number[] = [];
    const c = client(srv.url, slept);
    const err = await c.request({ method: 'GET', path: '/api/v1/nodes' }).catch((e: unknown) => e);
    await c.destroy();
    expect((err as StatusError).status.code).toBe(429);
    expect(slept).toHaveLength(10);
    expect(srv.seen()).toBe(11);
  });
});
