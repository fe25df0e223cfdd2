// The operator's webhook server on 127.0.0.1:0 over real TLS, with the real KubeVirt CR admitters over a fake
// cluster: reviews with the stored names restored and answered with KubeVirt's messages, the serving
// certificate set after start and rotated, unknown paths, methods and bodies, the cap per path, the callers.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { X509Certificate } from 'node:crypto';
import { connect } from 'node:tls';
import { makeTestPki, pemOf, type TestPem } from '../../../testenv/pki.ts';
import type { KubeVirt } from '../../kubevirt/index.ts';
import { kubevirtCr, withSpec } from '../../kubevirt/validation/testing/kubevirts.ts';
import { APISERVER_WEBHOOK_CLIENT_CN, WEBHOOKS } from '../../kubevirt/webhooks.ts';
import type { GroupVersionResource, KubeClient, KubeObject, ObjectList } from '../../kernel/kube/index.ts';
import { memoryLogger } from '../../kernel/log/log.ts';
import { waitFor } from '../../kernel/testing/wait.ts';
import { httpsCall, type HttpsAnswer } from '../../kernel/tls/testing/https.ts';
import {
  startOperatorWebhookServer,
  type OperatorWebhookServer,
  type OperatorWebhookServerOptions,
} from './server.ts';
import { internalReview } from './testing/reviews.ts';

let pki: Record<string, TestPem>;
const logged = memoryLogger('virt-operator');

/** The cluster the lookups see: KubeVirt CRs, how many VMIs and VMs, and the lists asked for. */
const world = {
  kubevirts: [] as KubeVirt[],
  workloads: {} as Record<string, number>,
  calls: [] as string[],
  gate: Promise.resolve(),
};
const client: Pick<KubeClient, 'list'> = {
  list: async <T extends KubeObject>(gvr: GroupVersionResource): Promise<ObjectList<T>> => {
    world.calls.push(`${gvr.group}/${gvr.resource}`);
    await world.gate;
    const n = world.workloads[gvr.resource] ?? 0;
    const items = gvr.resource === 'kubevirts' ? world.kubevirts : Array.from({ length: n }, () => ({}));
    return { metadata: {}, items: items as T[] };
  },
};
const direct: Pick<KubeClient, 'create'> = {
  create: () => Promise.reject(new Error('no placement probe is expected here')),
};

const servers: OperatorWebhookServer[] = [];
async function start(o: Partial<OperatorWebhookServerOptions> = {}): Promise<OperatorWebhookServer> {
  const s = await startOperatorWebhookServer({
    host: '127.0.0.1',
    port: 0,
    client,
    direct,
    log: logged.log,
    ...o,
  });
  servers.push(s);
  return s;
}

let server: OperatorWebhookServer;

beforeAll(async () => {
  pki = await makeTestPki([
    { name: 'ca', cn: 'kubevirt-ca' },
    {
      name: 'serving',
      cn: 'kubevirt-operator-webhook',
      issuer: 'ca',
      usage: 'serverAuth',
      sans: 'IP:127.0.0.1',
    },
    {
      name: 'rotated',
      cn: 'kubevirt-operator-webhook',
      issuer: 'ca',
      usage: 'serverAuth',
      sans: 'IP:127.0.0.1',
    },
    { name: 'callers-ca', cn: 'webhook-clients' },
    { name: 'apiserver', cn: APISERVER_WEBHOOK_CLIENT_CN, issuer: 'callers-ca', usage: 'clientAuth' },
    { name: 'other', cn: 'someone-else', issuer: 'callers-ca', usage: 'clientAuth' },
  ]);
  server = await start({ maxReviewsInFlight: 1 });
  server.setServingCertificate(pemOf(pki, 'serving').cert, pemOf(pki, 'serving').key);
}, 60_000);

afterAll(async () => {
  await Promise.all(servers.map((s) => s.close()));
});

function post(
  at: OperatorWebhookServer,
  path: string,
  body: string,
  o: { method?: string; client?: TestPem } = {},
): Promise<HttpsAnswer> {
  return httpsCall(new URL(`https://127.0.0.1:${at.port}${path}`), {
    method: o.method ?? 'POST',
    ca: pemOf(pki, 'ca').cert,
    cert: o.client?.cert,
    key: o.client?.key,
    body,
  });
}

/** The response of a review answered 200. */
async function review(path: string, body: string): Promise<Record<string, unknown>> {
  const a = await post(server, path, body);
  expect(a.status).toBe(200);
  return (JSON.parse(a.text) as { response: Record<string, unknown> }).response;
}

const uninstall = (what: string): string =>
  `Rejecting the uninstall request, since there are still ${what} present. Either delete all KubeVirt related workloads or change the uninstall strategy before uninstalling KubeVirt.`;

describe('reviews of the KubeVirt CR with the names the cluster stores', () => {
  it('refuses an update to infra replicas 0 with KubeVirt’s message, no patch, and logs no object', async () => {
    logged.lines.length = 0;
    const body = internalReview({
      operation: 'UPDATE',
      object: kubevirtCr(withSpec('infra', { replicas: 0 })),
      oldObject: kubevirtCr(),
    });
    const r = await review(WEBHOOKS.kubevirtValidateUpdate.path, body);
    expect(r).toEqual({
      uid: 'kv-1',
      allowed: false,
      status: {
        code: 422,
        reason: 'Invalid',
        message: "infra replica count can't be 0",
        details: { causes: [{ reason: 'FieldValueInvalid', message: "infra replica count can't be 0" }] },
      },
    });
    expect(logged.lines.find((l) => l['msg'] === 'admission review answered')).toMatchObject({
      level: 'info',
      component: 'virt-operator',
      path: WEBHOOKS.kubevirtValidateUpdate.path,
      uid: 'kv-1',
      operation: 'UPDATE',
      kind: 'KubeVirt',
      namespace: 'd8-virtualization',
      name: 'kubevirt',
      allowed: false,
      status: 422,
    });
    expect(JSON.stringify(logged.lines)).not.toContain('replicas');
  });

  it('refuses to create a second KubeVirt CR, having listed them by their kubevirt.io name', async () => {
    world.calls = [];
    world.kubevirts = [kubevirtCr()];
    const body = internalReview({
      operation: 'CREATE',
      object: kubevirtCr((kv) => (kv.metadata.name = 'two')),
    });
    expect(await review(WEBHOOKS.kubevirtValidateCreate.path, body)).toEqual({
      uid: 'kv-1',
      allowed: false,
      status: { code: 400, reason: 'BadRequest', message: 'Kubevirt is already created' },
    });
    expect(world.calls).toEqual(['kubevirt.io/kubevirts']);
    world.kubevirts = [];
    expect(await review(WEBHOOKS.kubevirtValidateCreate.path, body)).toEqual({ uid: 'kv-1', allowed: true });
  });

  it('refuses a delete under BlockUninstallIfWorkloadsExist while a VM exists, and allows it once none does', async () => {
    world.calls = [];
    world.workloads = { virtualmachines: 1 };
    const blocking = kubevirtCr(withSpec('uninstallStrategy', 'BlockUninstallIfWorkloadsExist'));
    const body = internalReview({ operation: 'DELETE', oldObject: blocking });
    expect(await review(WEBHOOKS.kubevirtValidateDelete.path, body)).toEqual({
      uid: 'kv-1',
      allowed: false,
      status: { code: 400, reason: 'BadRequest', message: uninstall('Virtual Machines') },
    });
    expect(world.calls).toEqual(['kubevirt.io/virtualmachineinstances', 'kubevirt.io/virtualmachines']);
    world.workloads = {};
    expect(await review(WEBHOOKS.kubevirtValidateDelete.path, body)).toEqual({ uid: 'kv-1', allowed: true });
  });
});

/** The HTTP answer to a request head sent alone over TLS, read until the server closes the connection. */
function rawAnswer(port: number, head: string): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const s = connect({ host: '127.0.0.1', port, ca: pemOf(pki, 'ca').cert }, () => s.write(head));
    s.on('data', (d: Buffer) => (text += d.toString('latin1')));
    s.on('close', () => {
      resolve(text);
    });
    s.on('error', reject);
  });
}

describe('what the server refuses', () => {
  const create = internalReview({ operation: 'CREATE', object: kubevirtCr() });

  it.each([
    ['a path it does not serve', 'POST', '/kubevirt-validate-nothing', 404],
    ['an api webhook path', 'POST', WEBHOOKS.vmValidate.path, 404],
    ['another method', 'GET', WEBHOOKS.kubevirtValidateCreate.path, 405],
  ])('answers %s with a Status', async (_what, method, path, code) => {
    const a = await post(server, path, create, { method });
    expect(a.status).toBe(code);
    expect(JSON.parse(a.text)).toMatchObject({ kind: 'Status', code });
  });

  it('answers a body over 3 MiB with 413 without reading it, and closes the connection', async () => {
    const head = `POST ${WEBHOOKS.kubevirtValidateCreate.path} HTTP/1.1\r\nHost: x\r\nContent-Length: ${3 * 1024 * 1024 + 1}\r\n\r\n`;
    const answer = await rawAnswer(server.port, head);
    expect(answer).toMatch(/^HTTP\/1\.1 413 /);
    expect(answer).toContain('the request body is larger than 3145728 bytes');
  });

  it('answers a review beyond the path’s cap with 429 and Retry-After, and the one in flight with its verdict', async () => {
    let open: () => void = () => undefined;
    world.gate = new Promise((resolve) => (open = resolve));
    world.calls = [];
    const first = post(server, WEBHOOKS.kubevirtValidateCreate.path, create);
    await waitFor(() => world.calls.length === 1, 'the first review waiting on the cluster');
    const beyond = await post(server, WEBHOOKS.kubevirtValidateCreate.path, create);
    expect([beyond.status, beyond.headers['retry-after']]).toEqual([429, '1']);
    open();
    world.gate = Promise.resolve();
    expect((await first).status).toBe(200);
  });
});

const fingerprint = (pem: string): string => new X509Certificate(pem).fingerprint256;

/** The fingerprint of the certificate a new connection is served. */
function served(port: number): Promise<string> {
  return new Promise((resolve, reject) => {
    const s = connect({ host: '127.0.0.1', port, ca: pemOf(pki, 'ca').cert }, () => {
      resolve(s.getPeerX509Certificate()?.fingerprint256 ?? '');
      s.end();
    });
    s.on('error', reject);
  });
}

describe('the serving certificate', () => {
  it('is none until set: connections are closed; once set and rotated, new connections get the new one', async () => {
    const s = await start();
    await expect(served(s.port)).rejects.toMatchObject({ code: 'ECONNRESET' });
    s.setServingCertificate(pemOf(pki, 'serving').cert, pemOf(pki, 'serving').key);
    expect(await served(s.port)).toBe(fingerprint(pemOf(pki, 'serving').cert));
    s.setServingCertificate(pemOf(pki, 'rotated').cert, pemOf(pki, 'rotated').key);
    expect(await served(s.port)).toBe(fingerprint(pemOf(pki, 'rotated').cert));
  });

  it('refuses a key that is not the certificate’s, and keeps serving the one it had', async () => {
    const s = await start();
    s.setServingCertificate(pemOf(pki, 'serving').cert, pemOf(pki, 'serving').key);
    expect(() => {
      s.setServingCertificate(pemOf(pki, 'rotated').cert, pemOf(pki, 'serving').key);
    }).toThrow(expect.objectContaining({ code: 'KV_ERR_CONFIG' }));
    expect(await served(s.port)).toBe(fingerprint(pemOf(pki, 'serving').cert));
  });
});

describe('the callers', () => {
  let guarded: OperatorWebhookServer;
  const create = internalReview({ operation: 'CREATE', object: kubevirtCr() });

  beforeAll(async () => {
    world.kubevirts = [];
    logged.lines.length = 0;
    guarded = await start({
      callers: { ca: pemOf(pki, 'callers-ca').cert, allowedNames: [APISERVER_WEBHOOK_CLIENT_CN] },
    });
    guarded.setServingCertificate(pemOf(pki, 'serving').cert, pemOf(pki, 'serving').key);
  });

  it('serves a client certificate of the callers’ CA with an allowed name, and warns of nothing', async () => {
    const a = await post(guarded, WEBHOOKS.kubevirtValidateCreate.path, create, {
      client: pemOf(pki, 'apiserver'),
    });
    expect(a.status).toBe(200);
    expect(logged.lines.filter((l) => l['level'] === 'warning')).toEqual([]);
  });

  it('answers another name of that CA with 401, naming it', async () => {
    const a = await post(guarded, WEBHOOKS.kubevirtValidateCreate.path, create, {
      client: pemOf(pki, 'other'),
    });
    expect([a.status, (JSON.parse(a.text) as { message?: string }).message]).toEqual([
      401,
      'Unauthorized: the client certificate has common name "someone-else", which is not in --webhook-client-allowed-names',
    ]);
  });

  it('refuses a caller without a certificate in the handshake', async () => {
    await expect(post(guarded, WEBHOOKS.kubevirtValidateCreate.path, create)).rejects.toThrow();
  });

  it('are anyone without a CA, which is said once in a warning', async () => {
    logged.lines.length = 0;
    const open = await start();
    open.setServingCertificate(pemOf(pki, 'serving').cert, pemOf(pki, 'serving').key);
    expect((await post(open, WEBHOOKS.kubevirtValidateCreate.path, create)).status).toBe(200);
    expect(logged.lines.filter((l) => l['level'] === 'warning')).toMatchObject([
      {
        msg: 'the webhook server serves any caller: give it the CA of the API server webhook client certificate',
      },
    ]);
  });
});
