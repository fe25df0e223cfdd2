// proxyStream over real TLS on 127.0.0.1: a stand-in handler (a mutual-TLS websocket echo server that refuses
// one path with 409) and a client that reaches it through a small https server doing what the api does.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:https';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { realClock } from '../../kernel/clock.ts';
import { memoryLogger } from '../../kernel/log/log.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { makeTestPki, pemOf, type TestPem } from '../../../testenv/pki.ts';
import type { RelaySession } from '../../kernel/ws/relay.ts';
import { PLAIN_STREAM_PROTOCOL } from './dial.ts';
import {
  DECKHOUSE_STREAM_PROTOCOL,
  MAX_CLIENT_MESSAGE_BYTES,
  newStreamServer,
  proxyStream,
} from './proxy.ts';

let pki: Record<string, TestPem>;
let handler: Server;
let api: Server;
const sessions = new Set<RelaySession>();
const opened: string[] = [];
/** The sizes of the messages the stand-in handler received. */
const handlerGot: number[] = [];
const { log, lines } = memoryLogger('virt-api', 2);

const listen = (s: Server): Promise<number> =>
  new Promise((resolve) =>
    s.listen(0, '127.0.0.1', () => {
      resolve((s.address() as AddressInfo).port);
    }),
  );

beforeAll(async () => {
  pki = await makeTestPki([
    { name: 'ca', cn: 'test-ca', ca: true },
    { name: 'handler', cn: 'virt-handler', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
    { name: 'client', cn: 'virt-api-client', issuer: 'ca', usage: 'clientAuth' },
    { name: 'api', cn: 'virt-api', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
  ]);
  const h = pemOf(pki, 'handler');
  handler = createServer({ ...h, ca: pemOf(pki, 'ca').cert, requestCert: true, rejectUnauthorized: true });
  const echo = new WebSocketServer({
    noServer: true,
    handleProtocols: (p) => (p.has(PLAIN_STREAM_PROTOCOL) ? PLAIN_STREAM_PROTOCOL : false),
  });
  handler.on('upgrade', (req, socket, head) => {
    if (req.url?.endsWith('/busy')) {
      socket.end('HTTP/1.1 409 Conflict\r\nContent-Length: 12\r\nConnection: close\r\n\r\nconsole busy');
      return;
    }
    echo.handleUpgrade(req, socket, head, (ws) => {
      ws.send(Buffer.from('hello from the guest'));
      ws.on('message', (d: Buffer) => {
        handlerGot.push(d.length);
        ws.send(d);
      });
    });
  });
  const handlerPort = await listen(handler);
  api = createServer(pemOf(pki, 'api'));
  const wss = newStreamServer();
  api.on('upgrade', (req, socket, head) => {
    const kind = 'console';
    void proxyStream(
      {
        wss,
        tls: {
          ca: Buffer.from(pemOf(pki, 'ca').cert),
          cert: Buffer.from(pemOf(pki, 'client').cert),
          key: Buffer.from(pemOf(pki, 'client').key),
          serverName: 'virt-handler',
        },
        clock: realClock,
        pingIntervalMs: 60_000,
        log,
        sessions,
        opened: (k, d) => opened.push(`${k}${d > 0 ? '+' : '-'}`),
      },
      { kind, address: { host: '127.0.0.1', port: handlerPort }, path: req.url ?? '/' },
      { req, socket, head },
      log,
    );
  });
  await listen(api);
}, 60_000);

afterAll(async () => {
  await new Promise((r) => handler.close(r));
  await new Promise((r) => api.close(r));
});

function open(path: string, protocol: string): Promise<WebSocket> {
  return new Promise((resolve, reject) => {
    const ws = new WebSocket(`wss://127.0.0.1:${(api.address() as AddressInfo).port}${path}`, [protocol], {
      ca: pemOf(pki, 'ca').cert,
    });
    ws.once('open', () => {
      resolve(ws);
    });
    ws.once('unexpected-response', (_r, res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        reject(
          Object.assign(new Error('refused'), {
            status: res.statusCode,
            body: Buffer.concat(chunks).toString(),
          }),
        );
      });
    });
    ws.once('error', reject);
  });
}

describe('proxyStream', () => {
  it('relays the handler’s stream both ways with the subprotocol the client offered', async () => {
    const ws = await open('/console', DECKHOUSE_STREAM_PROTOCOL);
    expect(ws.protocol).toBe(DECKHOUSE_STREAM_PROTOCOL);
    let got = '';
    ws.on('message', (d: Buffer) => (got += d.toString()));
    await waitFor(() => got.includes('hello from the guest'), 'the guest greeting');
    ws.send(Buffer.from('echo me'));
    await waitFor(() => got.includes('echo me'), 'the echo');
    expect(sessions.size).toBe(1);
    const closed = new Promise<number>((r) =>
      ws.once('close', (code) => {
        r(code);
      }),
    );
    for (const s of sessions) s.end(1001, 'server shutting down');
    expect(await closed).toBe(1001);
    await waitFor(() => sessions.size === 0, 'the session gone');
    expect(opened).toEqual(['console+', 'console-']);
    expect(lines.find((l) => l['msg'] === 'stream session ended')).toMatchObject({
      reason: 'ended',
      code: 1001,
    });
  });

  it('answers the handler’s refusal with its status and text as a Status, before any upgrade', async () => {
    await expect(open('/busy', 'plain.kubevirt.io')).rejects.toMatchObject({ status: 409 });
    const err = (await open('/busy', 'plain.kubevirt.io').catch((e: unknown) => e)) as { body: string };
    expect(JSON.parse(err.body)).toMatchObject({ kind: 'Status', code: 409, message: 'console busy' });
  });

  it('relays a message of 1 MiB, and ends the session with 1009 at one byte more, before the handler sees it', async () => {
    const ws = await open('/console', 'plain.kubevirt.io');
    let echoed = 0;
    ws.on('message', (d: Buffer) => (echoed += d.length));
    handlerGot.length = 0;
    ws.send(Buffer.alloc(MAX_CLIENT_MESSAGE_BYTES, 1));
    await waitFor(() => echoed >= MAX_CLIENT_MESSAGE_BYTES, 'the 1 MiB echo');
    const closed = new Promise<number>((r) =>
      ws.once('close', (code) => {
        r(code);
      }),
    );
    ws.send(Buffer.alloc(MAX_CLIENT_MESSAGE_BYTES + 1, 2));
    expect(await closed).toBe(1009);
    expect(handlerGot).toEqual([MAX_CLIENT_MESSAGE_BYTES]);
    await waitFor(() => sessions.size === 0, 'the session gone');
  });
});
