import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { stat } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { connect } from 'node:net';
import type { Duplex } from 'node:stream';
import { TLSSocket } from 'node:tls';
import { makeTlsFixture, type TlsFixture } from '../../../testenv/pki.ts';
import { FakeUpstream, sendJson } from './testing/fake-upstream.ts';
import { call, CLIENT_TOKEN, startHarness, type Harness, type HarnessOptions } from './testing/harness.ts';

const VMI = '/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstances/a';

/** What reached the API server: the path, its Authorization, and whether a client certificate came with it. */
interface Seen {
  readonly path: string;
  readonly auth: string;
  readonly cert: boolean;
}

let tls: TlsFixture;
beforeAll(async () => {
  tls = await makeTlsFixture();
});
afterAll(() => {
  tls.remove();
});

const harnesses: Harness[] = [];
afterEach(async () => {
  await Promise.all(harnesses.splice(0).map((h) => h.close()));
});

function peerCert(socket: Duplex | IncomingMessage['socket']): boolean {
  return socket instanceof TLSSocket && Object.keys(socket.getPeerCertificate()).length > 0;
}

/** A proxy with a token and a client certificate of its own, before an HTTPS API server that records `seen`. */
async function tlsHarness(o: HarnessOptions = {}): Promise<{ h: Harness; seen: Seen[] }> {
  const fake = await FakeUpstream.start(tls);
  const seen: Seen[] = [];
  fake.handler = (req, res) => {
    seen.push({ path: req.path, auth: req.headers.authorization ?? '', cert: peerCert(req.raw.socket) });
    sendJson(res, 200, { kind: 'Status', apiVersion: 'v1', status: 'Success' });
  };
  fake.upgrade = (req, socket) => {
    seen.push({ path: req.url ?? '', auth: req.headers.authorization ?? '', cert: peerCert(socket) });
    socket.end('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: SPDY/3.1\r\n\r\n');
  };
  const h = await startHarness({
    ...o,
    fake,
    config: { server: fake.url, ca: tls.cert, cert: tls.cert, key: tls.key, token: 'proxy-token' },
  });
  harnesses.push(h);
  return { h, seen };
}

/** A raw request on the proxy's TCP port or socket (the path exactly as written); its status line. */
function raw(h: Harness, head: string): Promise<string> {
  const sock = h.socketPath === undefined ? connect(h.proxy.port, '127.0.0.1') : connect(h.socketPath);
  const chunks: Buffer[] = [];
  sock.on('data', (c: Buffer) => chunks.push(c));
  sock.on('error', () => undefined);
  sock.write(`${head}Host: x\r\n\r\n`);
  return new Promise((resolve) =>
    sock.once('close', () => {
      resolve(Buffer.concat(chunks).toString('latin1').split('\r\n')[0] ?? '');
    }),
  );
}

/** An upgrade request (exec) with these header lines; the status line of the answer. */
const upgrade = (h: Harness, headers: string): Promise<string> =>
  raw(
    h,
    `GET /api/v1/namespaces/ns/pods/p/exec HTTP/1.1\r\n${headers}Connection: Upgrade\r\nUpgrade: SPDY/3.1\r\n`,
  );

describe("kube-api proxy on TCP: only with the client's own credentials", () => {
  it.each([
    ['no Authorization', {}],
    ['an empty Authorization', { authorization: ' ' }],
  ])('answers a request with %s 401 Unauthorized, and the API server never sees it', async (_n, headers) => {
    const { h, seen } = await tlsHarness();
    const r = await call(h, VMI, { anonymous: true, headers });
    expect(r.status).toBe(401);
    expect(r.json()).toMatchObject({
      kind: 'Status',
      apiVersion: 'v1',
      status: 'Failure',
      reason: 'Unauthorized',
      code: 401,
    });
    expect((r.json() as { message: string }).message).toMatch(/^Unauthorized: /);
    expect(seen).toEqual([]);
  });

  it('answers an upgrade without credentials 401, and the API server never sees it', async () => {
    const { h, seen } = await tlsHarness();
    expect(await upgrade(h, '')).toBe('HTTP/1.1 401 Unauthorized');
    expect(seen).toEqual([]);
  });

  it("forwards a bearer token as it came, without the rewriter's token or certificate", async () => {
    const { h, seen } = await tlsHarness();
    expect((await call(h, VMI)).status).toBe(200);
    expect(await upgrade(h, 'Authorization: Bearer upgrade-token\r\n')).toBe(
      'HTTP/1.1 101 Switching Protocols',
    );
    expect(seen.map((s) => [s.auth, s.cert])).toEqual([
      [`Bearer ${CLIENT_TOKEN}`, false],
      ['Bearer upgrade-token', false],
    ]);
  });
});

describe("kube-api proxy on its unix socket: the rewriter's identity for its own container", () => {
  it('creates the socket 0600, or 0660 with the group asked for', async () => {
    const { h } = await tlsHarness({ unix: {} });
    expect((await stat(h.socketPath ?? '')).mode & 0o777).toBe(0o600);
    const { h: shared } = await tlsHarness({ unix: { mode: 0o660, gid: 4242 } });
    const st = await stat(shared.socketPath ?? '');
    expect([st.mode & 0o777, st.gid]).toEqual([0o660, 4242]);
  });

  it("sends a request without credentials with the rewriter's token and certificate", async () => {
    const { h, seen } = await tlsHarness({ unix: {} });
    expect((await call(h, VMI)).status).toBe(200);
    expect(await upgrade(h, 'Authorization: \r\n')).toBe('HTTP/1.1 101 Switching Protocols');
    expect(seen.map((s) => [s.auth, s.cert])).toEqual([
      ['Bearer proxy-token', true],
      ['Bearer proxy-token', true],
    ]);
  });

  it('still sends a request with its own token as the client, without the certificate', async () => {
    const { h, seen } = await tlsHarness({ unix: {} });
    await call(h, VMI, { headers: { authorization: 'Bearer own' } });
    expect(seen.map((s) => [s.auth, s.cert])).toEqual([['Bearer own', false]]);
  });

  it.each([
    '/',
    '/logs/kube-apiserver.log',
    '/metrics',
    '/debug/pprof/',
    '/apis/../logs',
    '/api/v1/%2e%2e/%2E%2e/logs',
    '/apis/x/..%2f..%2flogs',
  ])('refuses %s with 403: it lends its identity to the Kubernetes API only', async (path) => {
    const { h, seen } = await tlsHarness({ unix: {} });
    expect(await raw(h, `GET ${path} HTTP/1.1\r\nConnection: close\r\n`)).toBe('HTTP/1.1 403 Forbidden');
    expect(seen).toEqual([]);
  });

  it.each(['/api', '/apis', '/version', '/openapi/v3', '/readyz', '/api/v1/namespaces/ns/pods'])(
    'forwards %s',
    async (path) => {
      const { h, seen } = await tlsHarness({ unix: {} });
      await call(h, path);
      expect(seen.map((s) => s.path)).toEqual([path]);
    },
  );
});
