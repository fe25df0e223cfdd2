/**
 * OpenAPI through the kube-api proxy against a real kube-apiserver with the internal CRDs, read as `kubectl
 * explain` reads it: the v3 index lists kubevirt.io/v1 (and no internal group), its serverRelativeURL leads
 * through the proxy to a document whose schemas carry the kubevirt.io group-version-kinds with the spec the API
 * server publishes for the internal CRDs; /openapi/v2 as JSON likewise.
 */
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { request } from 'undici';
import { waitFor } from '../../kernel/testing/wait.ts';
import { IG } from '../../rename/testing/objects.ts';
import { startCluster, type Cluster } from './testing/cluster.ts';

let c: Cluster;
beforeAll(async () => {
  c = await startCluster('rewriter-openapi');
});
afterAll(async () => {
  await c.close();
});

interface Gvk {
  group: string;
  version: string;
  kind: string;
}
interface Schema {
  'x-kubernetes-group-version-kind'?: Gvk[];
  properties?: { spec?: { properties?: Record<string, unknown> } };
}
interface Index {
  paths: Record<string, { serverRelativeURL: string }>;
}

const KINDS = ['VirtualMachine', 'VirtualMachineInstance', 'VirtualMachineInstanceMigration', 'KubeVirt'];

/** GET as JSON, through the proxy with the client's token or straight to the API server as the admin. */
async function getJson<T>(path: string, via: 'proxy' | 'direct'): Promise<T> {
  if (via === 'direct') {
    const body = await c.direct.request({ method: 'GET', path: path.split('?')[0] ?? path });
    return (typeof body === 'string' ? JSON.parse(body) : body) as T;
  }
  const res = await request(`${c.proxyUrl}${path}`, {
    headers: { accept: 'application/json', authorization: `Bearer ${c.token}` },
  });
  expect(res.statusCode).toBe(200);
  return (await res.body.json()) as T;
}

function schemaOf(schemas: Record<string, Schema>, gvk: Gvk): Schema | undefined {
  return Object.values(schemas).find((s) =>
    (s['x-kubernetes-group-version-kind'] ?? []).some(
      (g) => g.group === gvk.group && g.version === gvk.version && g.kind === gvk.kind,
    ),
  );
}

const specOf = (s: Schema | undefined): Record<string, unknown> | undefined =>
  s?.properties?.spec?.properties;

describe('OpenAPI through the kube-api proxy', () => {
  it('lists kubevirt.io/v1 in the v3 index, and no internal group', async () => {
    const index = await waitFor(async () => {
      const i = await getJson<Index>('/openapi/v3', 'proxy');
      return 'apis/kubevirt.io/v1' in i.paths && i;
    }, 'apis/kubevirt.io/v1 in the OpenAPI v3 index');
    expect(index.paths['apis/kubevirt.io/v1']?.serverRelativeURL).toMatch(
      /^\/openapi\/v3\/apis\/kubevirt\.io\/v1\?hash=\w+$/,
    );
    expect(Object.keys(index.paths).filter((k) => k.includes(IG))).toEqual([]);
    const direct = await getJson<Index>('/openapi/v3', 'direct');
    expect(Object.keys(direct.paths)).toContain(`apis/${IG}/v1`);
  });

  it.each(KINDS)('serves %s in the kubevirt.io/v1 v3 document with the internal CRD spec', async (kind) => {
    const index = await waitFor(async () => {
      const i = await getJson<Index>('/openapi/v3', 'proxy');
      return 'apis/kubevirt.io/v1' in i.paths && i;
    }, 'apis/kubevirt.io/v1 in the OpenAPI v3 index');
    const url = index.paths['apis/kubevirt.io/v1']?.serverRelativeURL ?? '';
    const doc = await getJson<{ components: { schemas: Record<string, Schema> } }>(url, 'proxy');
    const restored = schemaOf(doc.components.schemas, { group: 'kubevirt.io', version: 'v1', kind });
    expect(doc.components.schemas[`io.kubevirt.v1.${kind}`]).toBe(restored);
    const internal = await getJson<{ components: { schemas: Record<string, Schema> } }>(
      `/openapi/v3/apis/${IG}/v1`,
      'direct',
    );
    const stored = schemaOf(internal.components.schemas, {
      group: IG,
      version: 'v1',
      kind: `InternalVirtualization${kind}`,
    });
    expect(specOf(stored)).toBeDefined();
    expect(specOf(restored)).toEqual(specOf(stored));
    expect(JSON.stringify(doc)).not.toContain(IG);
  });

  it('hides the internal group-version document', async () => {
    const res = await request(`${c.proxyUrl}/openapi/v3/apis/${IG}/v1`, {
      headers: { authorization: `Bearer ${c.token}` },
    });
    expect(res.statusCode).toBe(404);
    await res.body.dump();
  });

  it('serves the kubevirt.io kinds in /openapi/v2 as JSON', async () => {
    const v2 = await waitFor(async () => {
      const d = await getJson<{ definitions: Record<string, Schema> }>('/openapi/v2', 'proxy');
      return 'io.kubevirt.v1.VirtualMachine' in d.definitions && d;
    }, 'io.kubevirt.v1.VirtualMachine in /openapi/v2');
    const direct = await getJson<{ definitions: Record<string, Schema> }>('/openapi/v2', 'direct');
    for (const kind of KINDS) {
      const restored = schemaOf(v2.definitions, { group: 'kubevirt.io', version: 'v1', kind });
      const stored = schemaOf(direct.definitions, {
        group: IG,
        version: 'v1',
        kind: `InternalVirtualization${kind}`,
      });
      expect(restored).toBe(v2.definitions[`io.kubevirt.v1.${kind}`]);
      expect(specOf(stored)).toBeDefined();
      expect(specOf(restored)).toEqual(specOf(stored));
    }
    expect(Object.keys(v2.definitions).filter((k) => k.includes('InternalVirtualization'))).toEqual([]);
  });
});
