import { afterEach, describe, expect, it, jest } from '@jest/globals';
import { createServer, type Server, type Socket } from 'node:net';
import { StatusError } from '../errors/errors.ts';
import { HttpKubeClient } from './client.ts';

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

/** Answers every request 403 with a Status, then more body (chunked) for as long as the client reads. */
async function endlessRefusal(): Promise<{ url: string; written: () => number }> {
  let written = 0;
  const status = JSON.stringify({
    kind: 'Status',
    apiVersion: 'v1',
    status: 'Failure',
    code: 403,
    message: 'no',
  });
  const chunk = ' '.repeat(16 * 1024);
  server = createServer((sock) => {
    sockets.add(sock);
    sock.on('error', () => undefined);
    sock.once('data', () => {
      const head =
        'HTTP/1.1 403 Forbidden\r\ncontent-type: application/json\r\ntransfer-encoding: chunked\r\n\r\n';
      sock.write(`${head}${status.length.toString(16)}\r\n${status}\r\n`);
      const pump = (): void => {
        while (!sock.destroyed) {
          written += chunk.length;
          if (!sock.write(`${chunk.length.toString(16)}\r\n${chunk}\r\n`)) {
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

describe('HttpTransport: an error answer without end', () => {
  it('reads its body up to the cap, then fails with the Status it began with', async () => {
    const srv = await endlessRefusal();
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
