import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createServer, type Server } from 'node:https';
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { TLSSocket } from 'node:tls';
import { Registry } from 'prom-client';
import { Agent, request } from 'undici';
import { APISERVER_WEBHOOK_CLIENT_CN, WEBHOOKS } from '../../kubevirt/webhooks.ts';
import { nopLogger } from '../../kernel/log/log.ts';
import { makeTestPki, makeTlsFixture, pemOf, type TestPem, type TlsFixture } from '../../../testenv/pki.ts';
import { KUBEVIRT } from '../../rename/testing/synthetic-rules.ts';
import { rewriterMetrics } from './metrics.ts';
import type { ProxyServer } from './serve.ts';
import { IG, INT, internalVmi, originalVmi } from '../../rename/testing/objects.ts';
import { startWebhookProxy, type WebhookProxyOptions } from './webhook.ts';

const b64 = (v: unknown): string => Buffer.from(JSON.stringify(v)).toString('base64');
const unb64 = (s: unknown): unknown => JSON.parse(Buffer.from(String(s), 'base64').toString('utf8'));

interface Seen {
  url: string;
  body: string;
}

let tls: TlsFixture;
let webhook: Server;
let proxy: ProxyServer;
let client: Agent;
let seen: Seen[];
let answer: (review: { request?: { uid?: string } }, res: ServerResponse) => void;

/** The proxy on loopback in front of `upstream`, serving the fixture's certificate unless `o` says otherwise. */
const proxyTo = (upstream: Server, o: Partial<WebhookProxyOptions>): Promise<ProxyServer> =>
  startWebhookProxy({
    host: '127.0.0.1',
    port: 0,
    cert: tls.cert,
    key: tls.key,
    upstream: `https://127.0.0.1:${(upstream.address() as AddressInfo).port}`,
    index: KUBEVIRT,
    metrics: rewriterMetrics(new Registry()),
    log: nopLogger,
    maxBodyBytes: 1 << 20,
    keepAliveTimeout: 10,
    ...o,
  });

beforeAll(async () => {
  tls = await makeTlsFixture();
  webhook = createServer({ cert: tls.cert, key: tls.key }, (req: IncomingMessage, res: ServerResponse) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks).toString('utf8');
      seen.push({ url: req.url ?? '', body });
      answer(JSON.parse(body) as { request?: { uid?: string } }, res);
    });
  });
  await new Promise<void>((resolve) => webhook.listen(0, '127.0.0.1', resolve));
  proxy = await proxyTo(webhook, { upstreamCa: tls.cert });
  client = new Agent({ connect: { ca: tls.cert }, keepAliveTimeout: 10 });
});

afterAll(async () => {
  await proxy.close(100);
  webhook.closeAllConnections();
  await new Promise((resolve) => webhook.close(resolve));
  await client.destroy();
  tls.remove();
});

beforeEach(() => {
  seen = [];
});

function review(): object {
  return {
    kind: 'AdmissionReview',
    apiVersion: 'admission.k8s.io/v1',
    request: {
      uid: 'u1',
      kind: { group: IG, version: 'v1', kind: 'InternalVirtualizationVirtualMachineInstance' },
      resource: { group: IG, version: 'v1', resource: 'internalvirtualizationvirtualmachineinstances' },
      requestKind: { group: IG, version: 'v1', kind: 'InternalVirtualizationVirtualMachineInstance' },
      requestResource: {
        group: IG,
        version: 'v1',
        resource: 'internalvirtualizationvirtualmachineinstances',
      },
      name: 'a',
      namespace: 'ns',
      operation: 'CREATE',
      userInfo: { username: 'admin' },
      object: internalVmi({ name: 'a' }),
    },
  };
}

async function post(path: string, body: string): Promise<{ status: number; json: unknown }> {
  const res = await request(`https://127.0.0.1:${proxy.port}${path}`, {
    dispatcher: client,
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body,
  });
  const text = await res.body.text();
  return { status: res.statusCode, json: JSON.parse(text) as unknown };
}

describe('webhook proxy', () => {
  it('hands the webhook the review with original names, and renames the patch it answers with', async () => {
    answer = (r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(
        JSON.stringify({
          kind: 'AdmissionReview',
          apiVersion: 'admission.k8s.io/v1',
          response: {
            uid: r.request?.uid,
            allowed: true,
            patchType: 'JSONPatch',
            patch: b64([
              { op: 'add', path: '/metadata/labels/kubevirt.io~1vm', value: 'a' },
              {
                op: 'add',
                path: '/metadata/finalizers/-',
                value: 'kubevirt.io/foregroundDeleteVirtualMachine',
              },
            ]),
          },
        }),
      );
    };
    const r = await post('/virtualmachineinstances-mutate?timeout=10s', JSON.stringify(review()));
    expect(seen).toHaveLength(1);
    expect(seen[0]?.url).toBe('/virtualmachineinstances-mutate?timeout=10s');
    expect(JSON.parse(seen[0]?.body ?? '')).toMatchObject({
      request: {
        kind: { group: 'kubevirt.io', version: 'v1', kind: 'VirtualMachineInstance' },
        resource: { group: 'kubevirt.io', resource: 'virtualmachineinstances' },
        object: originalVmi({ name: 'a' }),
      },
    });
    expect(r.status).toBe(200);
    const response = (r.json as { response: { uid: string; allowed: boolean; patch: string } }).response;
    expect(response).toMatchObject({ uid: 'u1', allowed: true });
    expect(unb64(response.patch)).toEqual([
      { op: 'add', path: `/metadata/labels/${INT}~1vm`, value: 'a' },
      { op: 'add', path: '/metadata/finalizers/-', value: `${INT}/foregroundDeleteVirtualMachine` },
    ]);
  });

  it('passes a denial without a patch through', async () => {
    const denial = {
      kind: 'AdmissionReview',
      apiVersion: 'admission.k8s.io/v1',
      response: { uid: 'u1', allowed: false, status: { code: 422, message: 'spec.domain is required' } },
    };
    answer = (_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify(denial));
    };
    expect((await post(WEBHOOKS.vmiValidateCreate.path, JSON.stringify(review()))).json).toEqual(denial);
  });

  it('answers a review that is not JSON with a 400 Status', async () => {
    const r = await post(WEBHOOKS.vmMutate.path, '{"kind":');
    expect(r.status).toBe(400);
    expect(r.json).toMatchObject({ kind: 'Status', code: 400 });
    expect(seen).toHaveLength(0);
  });

  it('passes paths outside the rule set through untouched', async () => {
    answer = (_r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"kind":"AdmissionReview","response":{"uid":"u1","allowed":true}}');
    };
    const body = JSON.stringify(review());
    await post('/some-other-webhook', body);
    expect(seen[0]).toEqual({ url: '/some-other-webhook', body });
  });
});

/** The common name of the certificate the peer of this request showed, or 'none'. */
function peerOf(req: IncomingMessage): string {
  if (!(req.socket instanceof TLSSocket)) return 'none';
  const cert = req.socket.getPeerCertificate();
  return Object.keys(cert).length === 0 ? 'none' : String(cert.subject.CN);
}

describe('webhook proxy to a server that asks for a client certificate', () => {
  let pki: Record<string, TestPem>;
  let strict: Server;
  let certProxy: ProxyServer;
  const peers: string[] = [];
  /** A server that asks for a certificate without requiring one, and the proxy in front of it. */
  let asking: Server;
  let askingProxy: ProxyServer;
  const asked: { url: string; peer: string }[] = [];

  beforeAll(async () => {
    pki = await makeTestPki([
      { name: 'ca', cn: 'ca', ca: true },
      { name: 'server', cn: 'server', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
      { name: 'client', cn: 'kube-api-rewriter', issuer: 'ca', usage: 'clientAuth' },
    ]);
    const ca = pemOf(pki, 'ca').cert;
    strict = createServer({ ...pemOf(pki, 'server'), ca, requestCert: true, rejectUnauthorized: true });
    strict.on('secureConnection', (socket: TLSSocket) => {
      peers.push(String(socket.getPeerCertificate().subject.CN));
    });
    strict.on('request', (req: IncomingMessage, res: ServerResponse) => {
      req.resume();
      res.writeHead(429, { 'content-type': 'application/json', 'retry-after': '1' });
      res.end('{"kind":"Status","apiVersion":"v1","status":"Failure","code":429,"reason":"TooManyRequests"}');
    });
    await new Promise<void>((resolve) => strict.listen(0, '127.0.0.1', resolve));
    certProxy = await proxyTo(strict, { upstreamCa: ca, upstreamClient: pemOf(pki, 'client') });
    asking = createServer({ ...pemOf(pki, 'server'), ca, requestCert: true, rejectUnauthorized: false });
    asking.on('request', (req: IncomingMessage, res: ServerResponse) => {
      asked.push({ url: req.url ?? '', peer: peerOf(req) });
      req.resume();
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end('{"kind":"AdmissionReview","response":{"uid":"u1","allowed":true}}');
    });
    await new Promise<void>((resolve) => asking.listen(0, '127.0.0.1', resolve));
    askingProxy = await proxyTo(asking, { upstreamCa: ca, upstreamClient: pemOf(pki, 'client') });
  }, 30_000);

  afterAll(async () => {
    await Promise.all([certProxy.close(100), askingProxy.close(100)]);
    for (const s of [strict, asking]) {
      s.closeAllConnections();
      await new Promise((resolve) => s.close(resolve));
    }
  });

  it('shows its client certificate, and passes the server’s 429 back with its Retry-After', async () => {
    const res = await request(`https://127.0.0.1:${certProxy.port}${WEBHOOKS.vmMutate.path}`, {
      dispatcher: client,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(review()),
    });
    expect(res.statusCode).toBe(429);
    expect(res.headers['retry-after']).toBe('1');
    expect(await res.body.json()).toMatchObject({ kind: 'Status', code: 429 });
    expect(peers).toEqual(['kube-api-rewriter']);
  });

  it('shows its client certificate on a webhook path only, never on a path it passes through', async () => {
    for (const path of [WEBHOOKS.vmMutate.path, '/some-other-webhook', WEBHOOKS.vmiMutate.path, '/healthz']) {
      const res = await request(`https://127.0.0.1:${askingProxy.port}${path}`, {
        dispatcher: client,
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(review()),
      });
      expect(res.statusCode).toBe(200);
      await res.body.text();
    }
    expect(asked).toEqual([
      { url: WEBHOOKS.vmMutate.path, peer: 'kube-api-rewriter' },
      { url: '/some-other-webhook', peer: 'none' },
      { url: WEBHOOKS.vmiMutate.path, peer: 'kube-api-rewriter' },
      { url: '/healthz', peer: 'none' },
    ]);
  });
});

describe('webhook proxy that knows its callers', () => {
  let pki: Record<string, TestPem>;
  let guarded: ProxyServer;
  const agents: Agent[] = [];

  beforeAll(async () => {
    pki = await makeTestPki([
      { name: 'ca', cn: 'ca', ca: true },
      { name: 'other-ca', cn: 'other-ca', ca: true },
      { name: 'serving', cn: 'proxy', issuer: 'ca', usage: 'serverAuth', sans: 'IP:127.0.0.1' },
      { name: 'apiserver', cn: APISERVER_WEBHOOK_CLIENT_CN, issuer: 'ca', usage: 'clientAuth' },
      { name: 'someone', cn: 'someone-else', issuer: 'ca', usage: 'clientAuth' },
      { name: 'stranger', cn: APISERVER_WEBHOOK_CLIENT_CN, issuer: 'other-ca', usage: 'clientAuth' },
    ]);
    guarded = await proxyTo(webhook, {
      ...pemOf(pki, 'serving'),
      upstreamCa: tls.cert,
      callers: { ca: pemOf(pki, 'ca').cert, allowedNames: [APISERVER_WEBHOOK_CLIENT_CN] },
    });
  }, 30_000);

  afterAll(async () => {
    await guarded.close(100);
    await Promise.all(agents.map((a) => a.destroy()));
  });

  /** A review from a new connection showing the certificate `as` (none when undefined). */
  const call = (as?: string): Promise<{ code: number; body: unknown }> => {
    const agent = new Agent({
      connect: { ca: pemOf(pki, 'ca').cert, ...(as !== undefined && pemOf(pki, as)) },
    });
    agents.push(agent);
    return request(`https://127.0.0.1:${guarded.port}${WEBHOOKS.vmMutate.path}`, {
      dispatcher: agent,
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(review()),
    }).then(async (r) => ({ code: r.statusCode, body: await r.body.json() }));
  };

  it('forwards a review from the allowed name of its CA', async () => {
    answer = (r, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(JSON.stringify({ kind: 'AdmissionReview', response: { uid: r.request?.uid, allowed: true } }));
    };
    const got = await call('apiserver');
    expect(got.code).toBe(200);
    expect(seen).toHaveLength(1);
  });

  it.each(['no certificate', 'stranger'])('refuses a caller with %s in the TLS handshake', async (who) => {
    await expect(call(who === 'no certificate' ? undefined : who)).rejects.toThrow();
    expect(seen).toEqual([]);
  });

  it('answers 401 to another name of its CA, before the upstream sees anything', async () => {
    const got = await call('someone');
    expect(got).toEqual({
      code: 401,
      body: expect.objectContaining({
        kind: 'Status',
        code: 401,
        message:
          'Unauthorized: the client certificate has common name "someone-else", which is not in --webhook-client-allowed-names',
      }),
    });
    expect(seen).toEqual([]);
  });
});
