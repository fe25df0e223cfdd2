/**
 * A role's health server with secure metrics against a real kube-apiserver: a ServiceAccount's token is
 * refused /metrics until RBAC lets it get the non-resource URL, and the probes answer without a token.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes } from 'node:crypto';
import { makeTlsFixture, type TlsFixture } from '../../../testenv/pki.ts';
import { isNotFound } from '../errors/errors.ts';
import { HttpKubeClient } from '../kube/client.ts';
import { loadRestConfig } from '../kube/config.ts';
import { NAMESPACES } from '../kube/resources.ts';
import { memoryLogger } from '../log/log.ts';
import { runRole, untilAborted } from '../runtime/role.ts';
import { waitFor } from '../testing/wait.ts';
import { httpsCall, type HttpsAnswer } from '../tls/testing/https.ts';

const RBAC = '/apis/rbac.authorization.k8s.io/v1';
const id = randomBytes(4).toString('hex');
const ns = `metrics-itest-${id}`;
const reader = `kv-metrics-reader-${id}`;
const user = `system:serviceaccount:${ns}:scraper`;

const config = loadRestConfig({ inCluster: false, userAgent: 'kubevirt-ts/itest' });
const admin = new HttpKubeClient(config, { keepAliveTimeout: 10 });
const stop = new AbortController();
let tls: TlsFixture;
let role: Promise<void>;
let port: number | undefined;

const ignoreNotFound = (err: unknown): void => {
  if (!isNotFound(err)) throw err;
};

/** A fresh token of the scraper ServiceAccount: its own key in the authorizer's cache. */
async function scraperToken(): Promise<string> {
  const answer = await admin.request<{ status: { token: string } }>({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/serviceaccounts/scraper/token`,
    body: { apiVersion: 'authentication.k8s.io/v1', kind: 'TokenRequest', spec: { expirationSeconds: 3600 } },
  });
  return answer.status.token;
}

function get(path: string, token?: string): Promise<HttpsAnswer> {
  return httpsCall(new URL(`https://127.0.0.1:${port ?? 0}${path}`), {
    method: 'GET',
    ca: tls.cert,
    ...(token !== undefined && { headers: { authorization: `Bearer ${token}` } }),
  });
}

beforeAll(async () => {
  tls = await makeTlsFixture();
  await admin.create(NAMESPACES, { apiVersion: 'v1', kind: 'Namespace', metadata: { name: ns } });
  await admin.request({
    method: 'POST',
    path: `/api/v1/namespaces/${ns}/serviceaccounts`,
    body: { apiVersion: 'v1', kind: 'ServiceAccount', metadata: { name: 'scraper' } },
  });
  role = runRole(
    {
      component: 'test',
      log: memoryLogger().log,
      health: {
        port: 0,
        host: '127.0.0.1',
        secure: { tls, config },
      },
      start: (ctx) => {
        port = ctx.healthPort;
        return Promise.resolve({ run: untilAborted });
      },
    },
    stop.signal,
  );
  await waitFor(() => port, 'the health server');
}, 60_000);

afterAll(async () => {
  stop.abort();
  await role;
  await admin
    .request({ method: 'DELETE', path: `${RBAC}/clusterrolebindings/${reader}` })
    .catch(ignoreNotFound);
  await admin.request({ method: 'DELETE', path: `${RBAC}/clusterroles/${reader}` }).catch(ignoreNotFound);
  await admin.delete(NAMESPACES, ns).catch(ignoreNotFound);
  await admin.destroy();
  tls.remove();
});

describe('/metrics authorized by a real kube-apiserver', () => {
  it('answers 401 without a token or with one the cluster does not know, and keeps the probes open', async () => {
    expect((await get('/metrics')).status).toBe(401);
    expect((await get('/metrics', 'not-a-token')).status).toBe(401);
    expect(await get('/healthz')).toMatchObject({ status: 200, text: 'ok' });
    expect((await get('/readyz')).status).toBe(200);
  });

  it('answers 403 to a ServiceAccount without RBAC, naming it', async () => {
    const r = await get('/metrics', await scraperToken());
    expect(r).toMatchObject({ status: 403, text: `Forbidden: user "${user}" may not get /metrics` });
  });

  it('answers 200 with the metrics once a ClusterRoleBinding grants get on /metrics', async () => {
    await admin.request({
      method: 'POST',
      path: `${RBAC}/clusterroles`,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRole',
        metadata: { name: reader },
        rules: [{ nonResourceURLs: ['/metrics'], verbs: ['get'] }],
      },
    });
    await admin.request({
      method: 'POST',
      path: `${RBAC}/clusterrolebindings`,
      body: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'ClusterRoleBinding',
        metadata: { name: reader },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'ClusterRole', name: reader },
        subjects: [{ kind: 'ServiceAccount', name: 'scraper', namespace: ns }],
      },
    });
    // The API server's RBAC cache follows its informers; each try brings a token the authorizer has not seen.
    const r = await waitFor(
      async () => {
        const answer = await get('/metrics', await scraperToken());
        return answer.status === 200 && answer;
      },
      'the binding to take effect',
      { timeoutMs: 20_000, intervalMs: 200 },
    );
    expect(r.text).toMatch(/^process_cpu_user_seconds_total /m);
  });
});
