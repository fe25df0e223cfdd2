import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { createServer, type Server, type Socket } from 'node:net';
import { StatusError } from '../kernel/errors/errors.ts';
import { VirtctlClient } from './client.ts';
import { RequestFailed } from './failures.ts';
import { dialSubresource } from './ws-dial.ts';

jest.setTimeout(20_000);

let server: Server | undefined;
const sockets = new Set<Socket>();
afterEach(async () => {
  for (const s of sockets) s.destroy();
  sockets.clear();
  await new Promise<void>((resolve) => {
    if (server === undefined) resolve();
    else
      server.close(() => {
        resolve();
      });
  });
  server = undefined;
});

/**
 * A server that refuses every upgrade with 403 and a Status, then keeps sending body bytes (chunked) for as
 * long as the client reads; answers how many body bytes it managed to write.
 */
async function endlessRefusal(): Promise<{ url: string; written: () => number }> {
  let written = 0;
  const status = JSON.stringify({ kind: 'Status', apiVersion: 'v1', status: 'Failure', code: 403 });
  const chunk = Buffer.alloc(16 * 1024, 0x20);
  server = createServer((sock) => {
    sockets.add(sock);
    sock.on('error', () => undefined);
    sock.once('data', () => {
      const head =
        'HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n';
      sock.write(head + `${status.length.toString(16)}\r\n${status}\r\n`);
      const pump = (): void => {
        while (!sock.destroyed) {
          written += chunk.length;
          if (!sock.write(`${chunk.length.toString(16)}\r\n${chunk.toString()}\r\n`)) {
            sock.once('drain', pump);
            return;
          }
        }
      };
      pump();
    });
  });
  await new Promise<void>((resolve) => server?.listen(0, '127.0.0.1', resolve));
  const addr = server.address();
  const port = typeof addr === 'object' && addr !== null ? addr.port : 0;
  return { url: `http://127.0.0.1:${port}`, written: () => written };
}

describe('dialSubresource', () => {
  it('reads a refusal body only up to its cap, then fails with the status', async () => {
    const srv = await endlessRefusal();
    const client = new VirtctlClient(
      { server: srv.url, qps: 0, burst: 1, userAgent: 'virtctl-ts/test' },
      'default',
    );
    const err = await dialSubresource(client, '/apis/x').then(
      () => undefined,
      (e: unknown) => e,
    );
    await client.close();
    expect(err).toBeInstanceOf(RequestFailed);
    expect((err as RequestFailed).cause).toBeInstanceOf(StatusError);
    expect(((err as RequestFailed).cause as StatusError).status.code).toBe(403);
    // The client stopped reading: what the server got out is the cap (64 KiB) plus what socket buffers held.
    expect(srv.written()).toBeLessThan(16 * 1024 * 1024);
  });
});
