/**
 * The test control plane itself: it serves the API with the admin kubeconfig, CRDs work, a SIGKILLed
 * kube-apiserver comes back on the same etcd with the same data, and an etcd compaction makes a watch
 * from an older resourceVersion fail with 410. Plain node:https (the kube client is not used here).
 * Tests tagged [destructive] need the local control plane (they throw against an external cluster).
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createInterface } from 'node:readline';
import { httpsRequest, openRequest } from './https.ts';
import { newNamespaceName, testEnv, UNCACHED_RESOURCE } from './handle.ts';
import { readKubeconfig, type ClusterAccess } from './kubeconfig.ts';

interface Obj {
  metadata: { name: string; uid?: string; resourceVersion?: string };
  [key: string]: unknown;
}

/** Per-test timeout: an API server restart takes a few seconds on a busy 2-core machine. */
const SLOW_MS = 60_000;
const env = testEnv();
const ns = newNamespaceName('testenv');
let cluster: ClusterAccess;

async function api(method: string, path: string, body?: unknown): Promise<{ status: number; obj: Obj }> {
  const res = await httpsRequest(`${cluster.server}${path}`, cluster.creds, {
    method,
    ...(body === undefined ? {} : { body }),
    ...(method === 'PATCH' ? { contentType: 'application/merge-patch+json' } : {}),
  });
  try {
    return { status: res.status, obj: JSON.parse(res.body) as Obj };
  } catch {
    // Not JSON (e.g. "404 page not found" before a new CRD's resource is served).
    return { status: res.status, obj: { metadata: { name: '' }, text: res.body } };
  }
}

/** The first event of a watch (or undefined when the stream ends first). */
async function firstWatchEvent(
  path: string,
): Promise<{ type: string; object: Record<string, unknown> } | undefined> {
  const res = await openRequest(`${cluster.server}${path}`, cluster.creds, { timeoutMs: 30_000 });
  try {
    for await (const line of createInterface({ input: res })) {
      return JSON.parse(line) as { type: string; object: Record<string, unknown> };
    }
    return undefined;
  } finally {
    res.destroy();
  }
}

beforeAll(async () => {
  cluster = await readKubeconfig(env.kubeconfigPath);
  const created = await api('POST', '/api/v1/namespaces', { metadata: { name: ns } });
  expect(created.status).toBe(201);
});

afterAll(async () => {
  await api('DELETE', `/api/v1/namespaces/${ns}`);
});

describe('test control plane', () => {
  it('answers /version and lists namespaces with the admin kubeconfig', async () => {
    const version = await api('GET', '/version');
    expect(version.status).toBe(200);
    expect(version.obj['major']).toBe('1');
    expect(version.obj['gitVersion']).toMatch(/^v1\.\d+\.\d+/);
    const list = await api('GET', '/api/v1/namespaces');
    expect((list.obj['items'] as Obj[]).map((n) => n.metadata.name)).toEqual(
      expect.arrayContaining(['default', ns]),
    );
  });

  it(
    'creates a CRD and serves its custom resources',
    async () => {
      const suffix = ns.slice(-8);
      const group = 'testenv.kubevirt-ts.io';
      const plural = `widgets${suffix}`;
      const crd = {
        apiVersion: 'apiextensions.k8s.io/v1',
        kind: 'CustomResourceDefinition',
        metadata: { name: `${plural}.${group}` },
        spec: {
          group,
          scope: 'Namespaced',
          names: {
            plural,
            singular: `widget${suffix}`,
            kind: `Widget${suffix}`,
            listKind: `Widget${suffix}List`,
          },
          versions: [
            {
              name: 'v1',
              served: true,
              storage: true,
              schema: {
                openAPIV3Schema: {
                  type: 'object',
                  properties: { spec: { type: 'object', properties: { size: { type: 'integer' } } } },
                },
              },
            },
          ],
        },
      };
      const crdPath = `/apis/apiextensions.k8s.io/v1/customresourcedefinitions/${plural}.${group}`;
      expect((await api('POST', '/apis/apiextensions.k8s.io/v1/customresourcedefinitions', crd)).status).toBe(
        201,
      );
      try {
        const crPath = `/apis/${group}/v1/namespaces/${ns}/${plural}`;
        const cr = {
          apiVersion: `${group}/v1`,
          kind: `Widget${suffix}`,
          metadata: { name: 'w1' },
          spec: { size: 3 },
        };
        // The new resource is served shortly after the CRD is Established: retry the create until then.
        let status = 0;
        for (let i = 0; i < 50 && status !== 201; i++) {
          status = (await api('POST', crPath, cr)).status;
          if (status !== 201) await new Promise((r) => setTimeout(r, 200));
        }
        expect(status).toBe(201);
        const got = await api('GET', `${crPath}/w1`);
        expect(got.obj['spec']).toEqual({ size: 3 });
      } finally {
        await api('DELETE', crdPath);
      }
    },
    SLOW_MS,
  );
});

describe('test control plane [destructive]', () => {
  it(
    'brings kube-apiserver back with the same data after SIGKILL',
    async () => {
      const cmPath = `/api/v1/namespaces/${ns}/configmaps`;
      const made = await api('POST', cmPath, { metadata: { name: 'survivor' }, data: { k: 'v' } });
      expect(made.status).toBe(201);

      await env.killApiServer();
      await expect(httpsRequest(`${cluster.server}/readyz`, cluster.creds)).rejects.toMatchObject({
        code: 'KV_ERR_TRANSPORT',
      });
      await env.startApiServer();

      const got = await api('GET', `${cmPath}/survivor`);
      expect(got.status).toBe(200);
      expect(got.obj.metadata.uid).toBe(made.obj.metadata.uid);
      expect(got.obj['data']).toEqual({ k: 'v' });
    },
    SLOW_MS,
  );

  it(
    'compacts etcd so that a watch from an older resourceVersion gets 410 Gone',
    async () => {
      const path = `/api/v1/namespaces/${ns}/${UNCACHED_RESOURCE.resource}`;
      const template = { template: { spec: { containers: [{ name: 'c', image: 'none' }] } } };
      const made = await api('POST', path, { metadata: { name: 'pt' }, ...template });
      expect(made.status).toBe(201);
      const firstRv = made.obj.metadata.resourceVersion ?? '';
      let lastRv = firstRv;
      for (const v of ['1', '2']) {
        const patched = await api('PATCH', `${path}/pt`, { metadata: { labels: { v } } });
        lastRv = patched.obj.metadata.resourceVersion ?? '';
      }

      const before = await firstWatchEvent(`${path}?watch=1&resourceVersion=${firstRv}`);
      expect(before?.type).toBe('MODIFIED');

      const revision = await env.compactEtcd();
      expect(BigInt(revision)).toBeGreaterThanOrEqual(BigInt(lastRv));

      const after = await firstWatchEvent(`${path}?watch=1&resourceVersion=${firstRv}`);
      expect(after).toMatchObject({
        type: 'ERROR',
        object: { kind: 'Status', code: 410, reason: 'Expired' },
      });
    },
    SLOW_MS,
  );
});
