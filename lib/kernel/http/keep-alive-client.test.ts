import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { KeepAliveClient } from './keep-alive-client.ts';
import type { ResponseBody } from './response.ts';

/** A server on 127.0.0.1:0 counting its connections; /stream sends one line and never ends. */
interface TestServer {
  url: URL;
  connections: Socket[];
  requests: { method: string; headers: IncomingMessage['headers']; body: string }[];
  /** The /stream answers still open. */
  streams: ServerResponse[];
}

let server: Server;
let srv: TestServer;
let client: KeepAliveClient | undefined;

beforeEach(async () => {
  const state: Omit<TestServer, 'url'> = { connections: [], requests: [], streams: [] };
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      state.requests.push({ method: req.method ?? '', headers: req.headers, body });
      if (req.url === '/stream') {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.write('{"type":"ADDED"}\n');
        state.streams.push(res);
        return;
      }
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end(`hello ${req.method ?? ''}`);
    });
  });
  server.on('connection', (s) => state.connections.push(s));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  srv = { ...state, url: new URL(`http://127.0.0.1:${String((server.address() as AddressInfo).port)}`) };
});
afterEach(async () => {
  await client?.destroy();
  client = undefined;
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

function newClient(keepAliveTimeout = 1000): KeepAliveClient {
  client = new KeepAliveClient({ server: srv.url, keepAliveTimeout });
  return client;
}

/** Every chunk of the body until it ends, or the error it breaks with. */
async function drain(body: ResponseBody): Promise<{ chunks: string[]; error?: unknown }> {
  const chunks: string[] = [];
  try {
    for await (const c of body) chunks.push((c as Buffer).toString());
    return { chunks };
  } catch (error) {
    return { chunks, error };
  }
}

const closed = (s: Socket): Promise<void> =>
  s.closed
    ? Promise.resolve()
    : new Promise((resolve) => {
        s.once('close', () => {
          resolve();
        });
      });

describe('KeepAliveClient', () => {
  it('sends two calls one after the other over one socket', async () => {
    const c = newClient();
    const first = await c.request({ method: 'GET', path: '/a', headers: {} });
    expect(await first.body.text()).toBe('hello GET');
    const second = await c.request({ method: 'GET', path: '/b', headers: {} });
    expect(await second.body.text()).toBe('hello GET');
    expect(srv.connections).toHaveLength(1);
  });

  it('closes an idle socket after keepAliveTimeout', async () => {
    const c = newClient(20);
    await (await c.request({ method: 'GET', path: '/a', headers: {} })).body.dump();
    const [socket] = srv.connections;
    if (socket === undefined) throw new Error('no connection');
    await closed(socket);
    expect(socket.closed).toBe(true);
  });

  it.each(['DELETE', 'POST', 'PATCH'])('frames a %s body with its Content-Length', async (method) => {
    const c = newClient();
    await (await c.request({ method, path: '/a', headers: {}, body: '{"ü":1}' })).body.dump();
    expect(srv.requests[0]).toMatchObject({ method, body: '{"ü":1}' });
    expect(srv.requests[0]?.headers['content-length']).toBe('8');
  });

  it('breaks a body being read with an AbortError when the signal aborts', async () => {
    const ac = new AbortController();
    const res = await newClient().request({ method: 'GET', path: '/stream', headers: {}, signal: ac.signal });
    const read = drain(res.body);
    setTimeout(() => {
      ac.abort();
    }, 20);
    const { chunks, error } = await read;
    expect(chunks).toEqual(['{"type":"ADDED"}\n']);
    expect((error as Error).name).toBe('AbortError');
    await closed(srv.connections[0] as Socket);
  });

  it('fails a call whose signal has aborted before it is sent, sending nothing', async () => {
    const ac = new AbortController();
    ac.abort();
    await expect(
      newClient().request({ method: 'GET', path: '/a', headers: {}, signal: ac.signal }),
    ).rejects.toMatchObject({ name: 'AbortError' });
    expect(srv.connections).toHaveLength(0);
  });

  it('fails a call with a header Node refuses, sending nothing', async () => {
    await expect(
      newClient().request({ method: 'GET', path: '/a', headers: { 'x-bad': 'a\nb' } }),
    ).rejects.toMatchObject({ code: 'ERR_INVALID_CHAR' });
    expect(srv.connections).toHaveLength(0);
  });

  it('destroy() breaks an open stream and closes its socket', async () => {
    const c = newClient();
    const res = await c.request({ method: 'GET', path: '/stream', headers: {}, bodyTimeout: 0 });
    const read = drain(res.body);
    await c.destroy();
    const { error } = await read;
    expect(error).toMatchObject({ code: 'ECONNRESET' });
    await closed(srv.connections[0] as Socket);
    await expect(c.request({ method: 'GET', path: '/a', headers: {} })).rejects.toMatchObject({
      code: 'KV_ERR_TRANSPORT',
    });
  });

  it('close() waits for the call in flight, then keeps no socket', async () => {
    const c = newClient(60_000);
    const res = await c.request({ method: 'GET', path: '/stream', headers: {}, bodyTimeout: 0 });
    const read = drain(res.body);
    let done = false;
    const closing = c.close().then(() => (done = true));
    await new Promise((resolve) => setTimeout(resolve, 30));
    expect(done).toBe(false);
    srv.streams[0]?.end('{"type":"DELETED"}\n');
    await closing;
    expect((await read).chunks.join('')).toBe('{"type":"ADDED"}\n{"type":"DELETED"}\n');
    // Without close() the socket would stay for 60 s.
    await closed(srv.connections[0] as Socket);
  });
});
