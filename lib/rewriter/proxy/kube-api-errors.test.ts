import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { connect, createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import type { AddressInfo } from 'node:net';
import { memoryLogger } from '../../kernel/log/log.ts';
import { sendJson } from './testing/fake-upstream.ts';
import { internalVmi, originalVmi } from '../../rename/testing/objects.ts';
import { call, sample, startHarness, type Harness } from './testing/harness.ts';

const VMIS = '/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstances';
const LABELS = { name: 'kube-api', resource: 'virtualmachineinstances', method: 'GET', watch: 'false' };

let h: Harness;
beforeEach(async () => {
  h = await startHarness({ maxBodyBytes: 4096 });
});
afterEach(async () => {
  await h.close();
});

const KUBECTL_TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';

describe('kube-api proxy: content negotiation', () => {
  it.each([
    ['protobuf', 'application/vnd.kubernetes.protobuf, application/json', 'application/json'],
    ['a Table (kubectl get)', KUBECTL_TABLE, KUBECTL_TABLE],
    [
      'a Table in protobuf',
      'application/vnd.kubernetes.protobuf;as=Table;v=v1;g=meta.k8s.io,application/json',
      'application/json;as=Table;v=v1;g=meta.k8s.io,application/json',
    ],
  ])('asks the API server for JSON when the client asks for %s', async (_name, accept, forwarded) => {
    h.upstream.handler = (_req, res) => {
      sendJson(res, 200, internalVmi({ name: 'a' }));
    };
    const r = await call(h, `${VMIS}/a`, { headers: { accept } });
    expect(h.upstream.last.headers['accept']).toBe(forwarded);
    expect(r.json()).toEqual(originalVmi({ name: 'a' }));
  });

  it('keeps any other Accept', async () => {
    await call(h, `${VMIS}/a`, { headers: { accept: 'application/json;g=apidiscovery.k8s.io;v=v2' } });
    expect(h.upstream.last.headers['accept']).toBe('application/json;g=apidiscovery.k8s.io;v=v2');
  });
});

describe('kube-api proxy: bodies it cannot read', () => {
  it('passes a body that is not JSON through untouched and counts it', async () => {
    const proto = Buffer.from([0x6b, 0x38, 0x73, 0x00, 0x0a, 0x0f, 0xff, 0x01]);
    h.upstream.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/vnd.kubernetes.protobuf' });
      res.end(proto);
    };
    const r = await call(h, `${VMIS}/a`);
    expect(r.raw).toEqual(proto);
    expect(r.headers['content-type']).toBe('application/vnd.kubernetes.protobuf');
    expect(
      await sample(h.registry, 'kube_api_rewriter_target_response_invalid_json_total', {
        ...LABELS,
        status: '200',
      }),
    ).toBe(1);
  });

  it.each([
    ['an object', `${VMIS}/a`, '{"kind":"InternalVirtualizationVirtualMachineInstance","metadata":{"name":'],
    [
      'a list',
      VMIS,
      '{"kind":"InternalVirtualizationVirtualMachineInstanceList","metadata":{"x":tru},"items":[]}',
    ],
  ])('passes a broken JSON body of %s through as it came and counts it', async (_name, path, body) => {
    h.upstream.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(body);
    };
    const r = await call(h, path);
    expect(r.status).toBe(200);
    expect(r.text).toBe(body);
    expect(
      await sample(h.registry, 'kube_api_rewriter_target_response_invalid_json_total', {
        ...LABELS,
        status: '200',
      }),
    ).toBe(1);
  });
});

describe('kube-api proxy: bad input from the client', () => {
  it('answers malformed JSON with a 400 Status and does not call the API server', async () => {
    const r = await call(h, VMIS, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"kind": ',
    });
    expect(r.status).toBe(400);
    expect(r.json()).toMatchObject({ kind: 'Status', code: 400, reason: 'BadRequest' });
    expect((r.json() as { message: string }).message).toMatch(/not valid JSON/);
    expect(h.upstream.requests).toHaveLength(0);
  });

  it.each([
    ['declared in Content-Length', false],
    ['sent chunked', true],
  ])(
    'answers a body over the limit (%s) with a 413 Status, and serves the connection on',
    async (_name, chunked) => {
      const big = Buffer.alloc(10_000, 'a');
      const body = chunked ? Readable.from([big.subarray(0, 5000), big.subarray(5000)]) : big;
      const { request } = await import('undici');
      const res = await request(`${h.base}${VMIS}`, {
        dispatcher: h.client,
        method: 'POST',
        headers: { ...h.auth, 'content-type': 'application/json' },
        body,
      });
      expect(res.statusCode).toBe(413);
      expect(await res.body.json()).toMatchObject({
        kind: 'Status',
        code: 413,
        reason: 'RequestEntityTooLarge',
      });
      expect(h.upstream.requests).toHaveLength(0);
      expect((await call(h, `${VMIS}/a`)).status).toBe(200);
    },
  );
});

describe('kube-api proxy: API server trouble', () => {
  it('answers 503 with the reason when the API server cannot be reached', async () => {
    const { log, lines } = memoryLogger();
    const dead = await startHarness({ config: { server: 'http://127.0.0.1:1' }, log });
    try {
      const r = await call(dead, `${VMIS}/a`);
      expect(r.status).toBe(503);
      expect(r.json()).toMatchObject({ kind: 'Status', code: 503, reason: 'ServiceUnavailable' });
      expect((r.json() as { message: string }).message).toMatch(/ECONNREFUSED/);
      expect(lines).toContainEqual(
        expect.objectContaining({ level: 'warning', msg: 'API server request failed' }),
      );
    } finally {
      await dead.close();
    }
  });

  it('answers 502 when the API server drops the connection', async () => {
    const server = createServer((sock) => {
      sock.on('error', () => undefined);
      sock.once('data', () => sock.destroy());
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const port = (server.address() as AddressInfo).port;
    const flaky = await startHarness({ config: { server: `http://127.0.0.1:${port}` } });
    try {
      const r = await call(flaky, `${VMIS}/a`);
      expect(r.status).toBe(502);
      expect(r.json()).toMatchObject({ kind: 'Status', code: 502 });
    } finally {
      await flaky.close();
      await new Promise((resolve) => server.close(resolve));
    }
  });

  const LIST_HEAD =
    '{"kind":"InternalVirtualizationVirtualMachineInstanceList","apiVersion":"internal.virtualization.deckhouse.io/v1","items":[';

  it('answers 502 when the API server breaks off a list before anything reached the client', async () => {
    h.upstream.handler = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(LIST_HEAD);
      setImmediate(() => req.raw.socket.destroy());
    };
    const r = await call(h, VMIS);
    expect(r.status).toBe(502);
    expect((r.json() as { message: string }).message).toMatch(/ECONNRESET/);
  });

  it('cuts the client off when the API server breaks off a list midway', async () => {
    const item = JSON.stringify(internalVmi({ name: 'a' }));
    h.upstream.handler = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.write(LIST_HEAD + Array.from({ length: 400 }, () => item).join(','));
      setTimeout(() => req.raw.socket.destroy(), 20);
    };
    await expect(call(h, VMIS)).rejects.toThrow();
  });
});

describe('kube-api proxy: credentials are never echoed', () => {
  const TOKEN = 'kv-proxy-secret-3b9e';

  /** Sends a raw upgrade request to the proxy's socket and returns everything it wrote back before closing. */
  function rawUpgrade(socketPath: string): Promise<string> {
    const sock = connect(socketPath);
    const chunks: Buffer[] = [];
    sock.on('data', (c: Buffer) => chunks.push(c));
    sock.on('error', () => undefined);
    sock.write(
      'GET /api/v1/namespaces/ns/pods/p/exec HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n',
    );
    return new Promise((resolve) =>
      sock.once('close', () => {
        resolve(Buffer.concat(chunks).toString());
      }),
    );
  }

  it('sends no header a broken token file would inject, and quotes the token nowhere', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kv-proxy-token-'));
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, `${TOKEN}\r\nX-Injected: yes\n`);
    const { log, lines } = memoryLogger();
    // On the socket: only there does a request without credentials take the rewriter's token.
    const broken = await startHarness({ config: { tokenFile }, log, unix: {} });
    const upgrades: string[] = [];
    broken.upstream.upgrade = (req, socket) => {
      upgrades.push(JSON.stringify(req.headers));
      socket.destroy();
    };
    try {
      const plain = await call(broken, `${VMIS}/a`);
      const upgraded = await rawUpgrade(broken.socketPath ?? '');
      expect(plain.status).toBe(502);
      expect(upgrades.join()).not.toContain('x-injected');
      expect(broken.upstream.requests.map((r) => r.headers['x-injected'])).toEqual([]);
      expect(`${plain.text} ${upgraded} ${JSON.stringify(lines)}`).not.toContain(TOKEN);
      expect(JSON.stringify(lines)).toContain(`token file ${tokenFile}: holds characters`);
    } finally {
      await broken.close();
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it("keeps a client's own Authorization out of the answer and the log when the API server is down", async () => {
    const { log, lines } = memoryLogger();
    const dead = await startHarness({ config: { server: 'http://127.0.0.1:1' }, log });
    try {
      const r = await call(dead, `${VMIS}/a`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(r.status).toBe(503);
      expect(`${r.text} ${JSON.stringify(lines)}`).not.toContain(TOKEN);
    } finally {
      await dead.close();
    }
  });
});
