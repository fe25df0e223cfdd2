// readBody and sendStatus on a real HTTP server on 127.0.0.1:0, against a raw client that keeps sending a body
// far past the limit, announced by Content-Length or chunked.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import { connect, type AddressInfo } from 'node:net';
import { newStatus } from '../errors/errors.ts';
import { waitFor } from '../testing/wait.ts';
import { BodyTooLargeError, readBody, sendStatus } from './body.ts';

const LIMIT = 1024 * 1024;
const TOTAL = 64 * 1024 * 1024;
const CHUNK = Buffer.alloc(64 * 1024, 0x61);
let server: Server;
let port = 0;

beforeAll(async () => {
  server = createServer((req, res) => {
    readBody(req, LIMIT).then(
      (body) => sendStatus(res, newStatus(200, `read ${body.length} bytes`)),
      (err: unknown) => {
        if (err instanceof BodyTooLargeError) sendStatus(res, newStatus(413, err.message));
        else res.destroy();
      },
    );
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  server.closeAllConnections();
  server.close();
  await once(server, 'close');
});

interface Sent {
  /** Body bytes the socket took before it closed (or all of them). */
  readonly written: number;
  readonly closedByServer: boolean;
  readonly answer: string;
}

/** Sends the head, then body bytes up to TOTAL as fast as the socket takes them, until the server closes it. */
async function sendHuge(head: string, frame: (b: Buffer) => Buffer = (b) => b): Promise<Sent> {
  const socket = connect({ host: '127.0.0.1', port });
  let answer = '';
  const state = { closed: false };
  socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
  socket.on('error', () => undefined);
  const gone = new Promise<void>((resolve) =>
    socket.once('close', () => {
      state.closed = true;
      resolve();
    }),
  );
  await once(socket, 'connect');
  socket.write(head);
  let written = 0;
  while (!state.closed && written < TOTAL) {
    const ok = socket.write(frame(CHUNK));
    written += CHUNK.length;
    // 'drain' never comes once the server has closed; once() rejects on the write's error then.
    if (!ok) await Promise.race([once(socket, 'drain').catch(() => undefined), gone]);
  }
  const closedByServer = state.closed;
  socket.destroy();
  await gone;
  return { written, closedByServer, answer };
}

describe('a body past the limit', () => {
  it.each<[string, string, ((b: Buffer) => Buffer) | undefined]>([
    [
      'announced by Content-Length',
      `PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: ${TOTAL}\r\n\r\n`,
      undefined,
    ],
    [
      'sent chunked',
      'PUT /x HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n',
      (b) => Buffer.concat([Buffer.from(`${b.length.toString(16)}\r\n`), b, Buffer.from('\r\n')]),
    ],
  ])('%s: answered 413 and the connection closed without reading the rest', async (_what, head, frame) => {
    const sent = await sendHuge(head, frame);
    expect(sent.closedByServer).toBe(true);
    expect(sent.written).toBeLessThan(TOTAL / 2);
    expect(sent.answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(sent.answer).toMatch(/\r\nConnection: close\r\n/i);
  });

  it('leaves a body under the limit read and the connection open', async () => {
    const socket = connect({ host: '127.0.0.1', port });
    socket.on('error', () => undefined);
    let answer = '';
    socket.on('data', (d: Buffer) => (answer += d.toString('latin1')));
    await once(socket, 'connect');
    socket.write('PUT /x HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello');
    await waitFor(() => answer.includes('"code":200}'), 'the answer');
    expect(answer).toContain('read 5 bytes');
    expect(answer).not.toMatch(/connection: close/i);
    expect(socket.destroyed).toBe(false);
    socket.destroy();
  });
});
