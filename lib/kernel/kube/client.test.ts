import { afterAll, afterEach, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { FakeClock } from '../clock.ts';
import { KvError, StatusError, isConflict, isGone, isNotFound, newStatus } from '../errors/errors.ts';
import { HttpKubeClient, type HttpKubeClientOptions } from './client.ts';
import type { RestConfig } from './config.ts';
import { FakeApiServer, json } from './testing/fake-api-server.ts';
import { CONFIG_MAPS, LEASES, NODES, PODS } from './resources.ts';
import { makeTlsFixture, type TlsFixture } from '../../../testenv/pki.ts';
import type { KubeClient, KubeObject } from './types.ts';

let tls: TlsFixture;
let server: FakeApiServer;
const clients: HttpKubeClient[] = [];

type Overrides = { [K in keyof RestConfig]?: RestConfig[K] | undefined };

/** A config for the fake server; an override set to undefined removes that field. */
function config(over: Overrides = {}): RestConfig {
  const out: RestConfig = {
    server: server.url,
    ca: tls.cert,
    token: 'secret',
    qps: 0,
    burst: 1,
    userAgent: 'kv-test/1',
  };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) Reflect.deleteProperty(out, key);
    else Reflect.set(out, key, value);
  }
  return out;
}

function client(over: Overrides = {}, opts: HttpKubeClientOptions = {}): HttpKubeClient {
  const c = new HttpKubeClient(config(over), { keepAliveTimeout: 10, ...opts });
  clients.push(c);
  return c;
}

async function statusFailure(p: Promise<unknown>): Promise<StatusError> {
  const err = await failure(p);
  if (!(err instanceof StatusError)) throw new Error(`expected a StatusError, got ${err.code}`);
  return err;
}

async function failure(p: Promise<unknown>): Promise<KvError> {
  try {
    await p;
  } catch (err) {
    if (err instanceof KvError) return err;
    throw err;
  }
  throw new Error('expected the call to fail');
}

beforeAll(async () => {
  tls = await makeTlsFixture();
  server = await FakeApiServer.start(tls);
});
afterEach(async () => {
  await Promise.all(clients.splice(0).map((c) => c.destroy()));
  server.requests.length = 0;
  server.handler = (req, res) => {
    json(res, 200, { metadata: {}, echo: req.method });
  };
});
afterAll(async () => {
  await server.close();
  tls.remove();
});

const cm = (name: string, ns = 'ns'): KubeObject => ({
  apiVersion: 'v1',
  kind: 'ConfigMap',
  metadata: { name, namespace: ns },
});

/** [name, call, method, url, body, content-type] */
type RequestRow = [string, (c: KubeClient) => Promise<unknown>, string, string, unknown, string | undefined];

describe('HttpKubeClient requests', () => {
  it.each<RequestRow>([
    [
      'get',
      (c) => c.get(CONFIG_MAPS, 'a', { namespace: 'ns' }),
      'GET',
      '/api/v1/namespaces/ns/configmaps/a',
      undefined,
      undefined,
    ],
    ['get cluster-scoped', (c) => c.get(NODES, 'n1'), 'GET', '/api/v1/nodes/n1', undefined, undefined],
    [
      'list with options',
      (c) =>
        c.list(CONFIG_MAPS, {
          namespace: 'ns',
          labelSelector: 'a=b',
          fieldSelector: 'f=g',
          limit: 2,
          continue: 'tok',
        }),
      'GET',
      '/api/v1/namespaces/ns/configmaps?labelSelector=a%3Db&fieldSelector=f%3Dg&limit=2&continue=tok',
      undefined,
      undefined,
    ],
    [
      'list all namespaces at a resourceVersion',
      (c) => c.list(PODS, { resourceVersion: '0', resourceVersionMatch: 'NotOlderThan' }),
      'GET',
      '/api/v1/pods?resourceVersion=0&resourceVersionMatch=NotOlderThan',
      undefined,
      undefined,
    ],
    [
      'create',
      (c) => c.create(CONFIG_MAPS, cm('a'), { fieldManager: 'me', dryRun: true }),
      'POST',
      '/api/v1/namespaces/ns/configmaps?dryRun=All&fieldManager=me',
      cm('a'),
      'application/json',
    ],
    [
      'create on a subresource',
      (c) =>
        c.create(
          PODS,
          { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: 'ns' } },
          { subresource: 'eviction' },
        ),
      'POST',
      '/api/v1/namespaces/ns/pods/p/eviction',
      { apiVersion: 'policy/v1', kind: 'Eviction', metadata: { name: 'p', namespace: 'ns' } },
      'application/json',
    ],
    [
      'update',
      (c) => c.update(CONFIG_MAPS, cm('a', 'x')),
      'PUT',
      '/api/v1/namespaces/x/configmaps/a',
      cm('a', 'x'),
      'application/json',
    ],
    [
      'update status',
      (c) => c.update(LEASES, cm('l'), { subresource: 'status' }),
      'PUT',
      '/apis/coordination.k8s.io/v1/namespaces/ns/leases/l/status',
      cm('l'),
      'application/json',
    ],
    [
      'json patch',
      (c) =>
        c.patch(CONFIG_MAPS, 'a', [{ op: 'add', path: '/data', value: {} }], {
          type: 'json',
          namespace: 'ns',
        }),
      'PATCH',
      '/api/v1/namespaces/ns/configmaps/a',
      [{ op: 'add', path: '/data', value: {} }],
      'application/json-patch+json',
    ],
    [
      'merge patch on status',
      (c) => c.patch(PODS, 'p', { status: {} }, { type: 'merge', namespace: 'ns', subresource: 'status' }),
      'PATCH',
      '/api/v1/namespaces/ns/pods/p/status',
      { status: {} },
      'application/merge-patch+json',
    ],
    [
      'strategic merge patch',
      (c) => c.patch(NODES, 'n', { metadata: { labels: { a: 'b' } } }, { type: 'strategic' }),
      'PATCH',
      '/api/v1/nodes/n',
      { metadata: { labels: { a: 'b' } } },
      'application/strategic-merge-patch+json',
    ],
    [
      'server-side apply, forced',
      (c) =>
        c.patch(CONFIG_MAPS, 'a', cm('a'), {
          type: 'apply',
          namespace: 'ns',
          fieldManager: 'virt',
          force: true,
        }),
      'PATCH',
      '/api/v1/namespaces/ns/configmaps/a?fieldManager=virt&force=true',
      cm('a'),
      'application/apply-patch+yaml',
    ],
    [
      'delete with options',
      (c) =>
        c.delete(PODS, 'p', {
          namespace: 'ns',
          propagationPolicy: 'Foreground',
          gracePeriodSeconds: 0,
          preconditions: { uid: 'u1' },
        }),
      'DELETE',
      '/api/v1/namespaces/ns/pods/p',
      {
        apiVersion: 'v1',
        kind: 'DeleteOptions',
        propagationPolicy: 'Foreground',
        gracePeriodSeconds: 0,
        preconditions: { uid: 'u1' },
      },
      'application/json',
    ],
    ['delete, no options', (c) => c.delete(NODES, 'n'), 'DELETE', '/api/v1/nodes/n', undefined, undefined],
    [
      'raw request',
      (c) =>
        c.request({
          method: 'POST',
          path: '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews',
          query: { dryRun: 'All', x: undefined },
          body: { spec: {} },
        }),
      'POST',
      '/apis/authorization.k8s.io/v1/selfsubjectaccessreviews?dryRun=All',
      { spec: {} },
      'application/json',
    ],
  ])('%s', async (...[, call, method, url, body, contentType]: RequestRow) => {
    await call(client());
    const r = server.last;
    expect(r.method).toBe(method);
    expect(r.url).toBe(url);
    expect(r.body === '' ? undefined : (JSON.parse(r.body) as unknown)).toEqual(body);
    expect(r.headers['content-type']).toBe(contentType);
  });

  it('returns the decoded answer', async () => {
    server.handler = (_req, res) => {
      json(res, 201, { metadata: { name: 'a', resourceVersion: '7' } });
    };
    await expect(client().create(CONFIG_MAPS, cm('a'))).resolves.toEqual({
      metadata: { name: 'a', resourceVersion: '7' },
    });
  });

  it('sends Accept, User-Agent, the bearer token and the client certificate', async () => {
    await client({ cert: tls.cert, key: tls.key }).get(NODES, 'n');
    const r = server.last;
    expect(r.headers['accept']).toBe('application/json');
    expect(r.headers['user-agent']).toBe('kv-test/1');
    expect(r.headers['authorization']).toBe('Bearer secret');
    expect(r.clientCertAuthorized).toBe(true);
  });

  it('sends no Authorization header and no certificate when the config has none', async () => {
    await client({ token: undefined }).get(NODES, 'n');
    expect(server.last.headers['authorization']).toBeUndefined();
    expect(server.last.clientCertAuthorized).toBe(false);
  });

  it('keeps the path prefix of the server URL', async () => {
    await client({ server: `${server.url}/k8s/clusters/c1/` }).get(NODES, 'n');
    expect(server.last.path).toBe('/k8s/clusters/c1/api/v1/nodes/n');
  });

  it('returns text answers of raw requests as text', async () => {
    server.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/plain' });
      res.end('ok');
    };
    await expect(client().request({ method: 'GET', path: '/healthz' })).resolves.toBe('ok');
  });

  it('refuses a namespaced call without a namespace before sending', async () => {
    const err = await failure(client().get(PODS, 'p'));
    expect(err.code).toBe('KV_ERR_INTERNAL');
    expect(server.requests).toHaveLength(0);
  });
});

describe('HttpKubeClient errors', () => {
  it.each<[number, (e: unknown) => boolean, string]>([
    [404, isNotFound, 'NotFound'],
    [409, isConflict, 'Conflict'],
    [410, isGone, 'Expired'],
  ])('maps a %i Status', async (code, predicate, reason) => {
    const status = newStatus(code, `server says ${code}`, { reason: reason as 'NotFound' });
    server.handler = (_req, res) => {
      json(res, code, status);
    };
    const err = await statusFailure(client().get(CONFIG_MAPS, 'a', { namespace: 'ns' }));
    expect(predicate(err)).toBe(true);
    expect(err.status).toEqual(status);
    expect(err.message).toBe(`server says ${code}`);
  });

  it('synthesizes a Status when the body is not one', async () => {
    server.handler = (_req, res) => {
      res.writeHead(503, { 'content-type': 'text/plain' });
      res.end('upstream down\n');
    };
    const err = await statusFailure(client().get(NODES, 'n'));
    expect(err.status).toMatchObject({
      kind: 'Status',
      code: 503,
      reason: 'ServiceUnavailable',
      message: 'upstream down',
    });
  });

  it.each([
    [
      'a text body',
      'text/plain',
      (auth: string): string => `bad gateway; request had authorization: ${auth}`,
    ],
    [
      'a Status body',
      'application/json',
      (auth: string): string => JSON.stringify(newStatus(400, `rejected header Authorization: ${auth}`)),
    ],
  ])('never carries the bearer token the server echoed in %s', async (_name, type, body) => {
    server.handler = (req, res) => {
      res.writeHead(400, { 'content-type': type });
      res.end(body(String(req.headers['authorization'])));
    };
    const err = await statusFailure(client({ token: 'kv-echoed-token-42' }).get(NODES, 'n'));
    expect(server.requests[0]?.headers['authorization']).toBe('Bearer kv-echoed-token-42');
    expect(err.message).toMatch(/authorization: Bearer \[redacted\]/i);
    expect(`${err.message} ${JSON.stringify(err.status)}`).not.toContain('kv-echoed-token-42');
  });

  it('maps a refused connection to KV_ERR_TRANSPORT', async () => {
    const gone = await FakeApiServer.start(tls);
    await gone.close();
    const err = await failure(client({ server: gone.url }).get(NODES, 'n'));
    expect(err.code).toBe('KV_ERR_TRANSPORT');
    expect(err.cause).toBeDefined();
  });

  it('maps an untrusted server certificate to KV_ERR_TRANSPORT, and accepts it when told to skip verification', async () => {
    const err = await failure(client({ ca: undefined }).get(NODES, 'n'));
    expect(err.code).toBe('KV_ERR_TRANSPORT');
    await expect(client({ insecureSkipTLSVerify: true }).get(NODES, 'n')).resolves.toBeDefined();
  });

  it('maps an abort of a raw request to KV_ERR_ABORTED', async () => {
    server.handler = () => undefined; // never answers
    const ac = new AbortController();
    const pending = client().request({ method: 'GET', path: '/slow', signal: ac.signal });
    ac.abort();
    expect((await failure(pending)).code).toBe('KV_ERR_ABORTED');
  });
});

describe('HttpKubeClient credentials and limits', () => {
  it('re-reads a rotated token file after a 401', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'kv-kube-token-'));
    const tokenFile = join(dir, 'token');
    writeFileSync(tokenFile, 'first');
    try {
      const c = client({ token: undefined, tokenFile }, { clock: new FakeClock() });
      server.handler = (req, res) => {
        if (req.headers['authorization'] === 'Bearer first') json(res, 401, newStatus(401, 'expired token'));
        else json(res, 200, { metadata: {} });
      };
      expect((await statusFailure(c.get(NODES, 'n'))).httpCode).toBe(401);
      writeFileSync(tokenFile, 'second\n');
      await c.get(NODES, 'n');
      expect(server.last.headers['authorization']).toBe('Bearer second');
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('holds calls beyond the burst until the clock allows them', async () => {
    const clock = new FakeClock();
    const c = client({ qps: 1, burst: 2 }, { clock });
    await Promise.all([c.get(NODES, 'a'), c.get(NODES, 'b')]);
    let done = false;
    const third = c.get(NODES, 'c').then(() => (done = true));
    await new Promise<void>((resolve) => setImmediate(resolve));
    expect(clock.pendingCount).toBe(1);
    expect(server.requests).toHaveLength(2);
    expect(done).toBe(false);
    clock.advance(1000);
    await third;
    expect(server.requests.map((r) => r.path)).toEqual([
      '/api/v1/nodes/a',
      '/api/v1/nodes/b',
      '/api/v1/nodes/c',
    ]);
  });
});
