// The api's TLS port on 127.0.0.1:0 with the real router (restApi) and stand-in admitters and authorizer: who
// may call the webhooks, the cap on reviews in flight per path, and authentication before any 404 or 405.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { WEBHOOKS, webhooksServedBy } from '../kubevirt/webhooks.ts';
import { realClock } from '../kernel/clock.ts';
import { RecordingClient } from '../kernel/kube/testing/recording-client.ts';
import { nopLogger } from '../kernel/log/log.ts';
import { newRegistry } from '../kernel/metrics/registry.ts';
import { waitFor } from '../kernel/testing/wait.ts';
import { httpsCall, type HttpsAnswer } from '../kernel/tls/testing/https.ts';
import type { TestPem } from '../../testenv/pki.ts';
import type { RelaySession } from '../kernel/ws/relay.ts';
import { makeAuthPki, type AuthPki } from './auth/testing/tls.ts';
import type { Authorizer } from './auth/index.ts';
import { newApiMetrics } from './metrics.ts';
import { restApi } from './rest/api.ts';
import { startApiServer, type ApiServer } from './server.ts';
import type { Admitter } from '../kubevirt/admission/admit.ts';

const CAP = 2;
let pki: AuthPki;
let server: ApiServer;
const reviewed: string[] = [];
let gate: Promise<void> = Promise.resolve();
const allowAll: Authorizer = { authorize: () => Promise.resolve({ allowed: true }) };

const held = (name: string): Admitter => ({
  kind: 'VirtualMachine',
  admit: async () => {
    reviewed.push(name);
    await gate;
    return { allowed: true };
  },
});

beforeAll(async () => {
  pki = await makeAuthPki();
  const sessions = new Set<RelaySession>();
  const metrics = newApiMetrics(newRegistry({ defaultMetrics: false }), realClock);
  server = await startApiServer({
    port: 0,
    host: '127.0.0.1',
    tls: pki.server,
    auth: pki.config,
    authorizer: allowAll,
    webhookClients: pki.webhookClients,
    admitters: { [WEBHOOKS.vmValidate.path]: held('validate'), [WEBHOOKS.vmMutate.path]: held('mutate') },
    maxReviewsInFlight: CAP,
    subresources: restApi({
      client: new RecordingClient(),
      handlers: { port: 1, tls: { ca: Buffer.from(''), cert: Buffer.from(''), key: Buffer.from('') } },
      metrics,
      sessions,
      clock: realClock,
      log: nopLogger,
    }),
    metrics,
    sessions,
    clock: realClock,
    log: nopLogger,
  });
}, 60_000);

afterAll(async () => {
  await server.close();
});

const review = JSON.stringify({
  apiVersion: 'admission.k8s.io/v1',
  kind: 'AdmissionReview',
  request: { uid: 'u1', operation: 'CREATE', object: { kind: 'VirtualMachine', metadata: {}, spec: {} } },
});

function call(
  method: string,
  path: string,
  o: { client?: TestPem | undefined; headers?: Record<string, string>; body?: string } = {},
): Promise<HttpsAnswer> {
  return httpsCall(new URL(`https://127.0.0.1:${server.port}${path}`), {
    method,
    ca: pki.servingCa,
    cert: o.client?.cert,
    key: o.client?.key,
    ...(o.headers !== undefined && { headers: o.headers }),
    ...(o.body !== undefined && { body: o.body }),
  });
}

const client = (name: string): TestPem => {
  const c = pki.clients[name];
  if (c === undefined) throw new Error(`no client ${name}`);
  return c;
};
const statusOf = (a: HttpsAnswer): unknown => ({ status: a.status, body: JSON.parse(a.text) as unknown });

describe('the admission webhooks', () => {
  it('answer a review without a client certificate with 401, before the admitter sees it', async () => {
    reviewed.length = 0;
    const a = await call('POST', WEBHOOKS.vmValidate.path, { body: review });
    expect(statusOf(a)).toMatchObject({
      status: 401,
      body: {
        kind: 'Status',
        code: 401,
        message: 'Unauthorized: the admission webhooks need a client certificate',
      },
    });
    expect(reviewed).toEqual([]);
  });

  it.each(['frontProxy', 'virtualizationApi', 'webhookOther'])(
    'answer a review from %s (a certificate not of a webhook caller) with 401',
    async (name) => {
      const a = await call('POST', WEBHOOKS.vmValidate.path, { client: client(name), body: review });
      expect(a.status).toBe(401);
    },
  );

  it('answer the webhook client certificate with the verdict', async () => {
    const a = await call('POST', WEBHOOKS.vmValidate.path, {
      client: client('webhookClient'),
      body: review,
    });
    expect(statusOf(a)).toEqual({
      status: 200,
      body: {
        apiVersion: 'admission.k8s.io/v1',
        kind: 'AdmissionReview',
        response: { uid: 'u1', allowed: true },
      },
    });
  });

  it.each([...webhooksServedBy('operator').map((w) => w.path), '/some-other-webhook'])(
    'answer the webhook caller at %s, which the api does not serve, as at any path of the subresource API: 401',
    async (path) => {
      const a = await call('POST', path, { client: client('webhookClient'), body: review });
      expect(statusOf(a)).toMatchObject({
        status: 401,
        body: {
          kind: 'Status',
          code: 401,
          message:
            'Unauthorized: the client certificate is not accepted: it is not signed by a CA trusted for proxied requests',
        },
      });
    },
  );

  it('refuse a review beyond the cap of one path with 429 and Retry-After, while another path is served', async () => {
    let open: () => void = () => undefined;
    gate = new Promise((resolve) => (open = resolve));
    reviewed.length = 0;
    const post = (path: string): Promise<HttpsAnswer> =>
      call('POST', path, { client: client('webhookClient'), body: review });
    const inFlight = Array.from({ length: CAP }, () => post(WEBHOOKS.vmValidate.path));
    await waitFor(() => reviewed.length === CAP, 'the first reviews in flight');
    expect(reviewed).toEqual(['validate', 'validate']);
    const beyond = await post(WEBHOOKS.vmValidate.path);
    expect(beyond.status).toBe(429);
    expect(beyond.headers['retry-after']).toBe('1');
    expect(JSON.parse(beyond.text)).toMatchObject({
      kind: 'Status',
      code: 429,
      reason: 'TooManyRequests',
      details: { retryAfterSeconds: 1 },
    });
    const other = post(WEBHOOKS.vmMutate.path);
    await waitFor(() => reviewed.length === CAP + 1, 'the other path’s review in flight');
    expect(reviewed).toEqual(['validate', 'validate', 'mutate']);
    open();
    expect((await Promise.all([...inFlight, other])).map((a) => a.status)).toEqual([200, 200, 200]);
    expect((await post(WEBHOOKS.vmValidate.path)).status).toBe(200);
  });
});

describe('the subresource API', () => {
  const G = '/apis/subresources.kubevirt.io/v1/namespaces/ns1/virtualmachineinstances/vmi1';
  const alice = { 'X-Remote-User': 'alice' };

  it.each([
    ['an unknown subresource', 'GET', `${G}/explode`],
    ['a wrong method', 'PATCH', `${G}/pause`],
    ['an unknown path', 'GET', '/metrics'],
    ['a path that does not decode', 'GET', `${G}%2Fconsole/pause`],
  ])('answers %s with 401 to a caller without a certificate', async (_what, method, path) => {
    const a = await call(method, path, { headers: alice });
    expect(statusOf(a)).toMatchObject({ status: 401, body: { kind: 'Status', code: 401 } });
  });

  it('answers 404 and 405 (with Allow) once the caller is authenticated and authorized', async () => {
    const asAlice = { client: client('frontProxy'), headers: alice };
    const missing = await call('GET', `${G}/explode`, asAlice);
    expect(statusOf(missing)).toMatchObject({
      status: 404,
      body: { code: 404, message: '404: Page Not Found' },
    });
    const wrong = await call('PATCH', `${G}/pause`, asAlice);
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('PUT');
  });

  it('serves the information endpoints to anyone', async () => {
    const a = await call('GET', '/apis/subresources.kubevirt.io/v1/');
    expect(a.status).toBe(200);
    expect(JSON.parse(a.text)).toMatchObject({ kind: 'APIResourceList' });
  });
});
