import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { FakeUpstream, sendJson } from './testing/fake-upstream.ts';
import {
  IG,
  INT,
  internalVmi,
  internalVmiList,
  originalVmi,
  originalVmiList,
} from '../../rename/testing/objects.ts';
import { call, sample, startHarness, type Harness } from './testing/harness.ts';

const VMIS = '/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstances';
const INTERNAL_VMIS = `/apis/${IG}/v1/namespaces/ns/internalvirtualizationvirtualmachineinstances`;

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe('kube-api proxy: the way in', () => {
  it('renames path, label selector and body; restores the answer', async () => {
    h.upstream.handler = (req, res) => {
      sendJson(res, 201, JSON.parse(req.body));
    };
    const r = await call(h, `${VMIS}?labelSelector=kubevirt.io%2FnodeName%3Dnode1&fieldManager=x`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(originalVmi({ name: 'a' })),
    });
    expect(h.upstream.last.path).toBe(INTERNAL_VMIS);
    expect(h.upstream.last.query.get('labelSelector')).toBe(`${INT}/nodeName=node1`);
    expect(h.upstream.last.query.get('fieldManager')).toBe('x');
    expect(JSON.parse(h.upstream.last.body)).toEqual(internalVmi({ name: 'a' }));
    expect(r.status).toBe(201);
    expect(r.json()).toEqual(originalVmi({ name: 'a' }));
    expect(r.headers['content-length']).toBe(String(Buffer.byteLength(r.text)));
  });

  it.each([
    [
      'a JSON patch',
      'application/json-patch+json',
      [{ op: 'add', path: '/metadata/labels/kubevirt.io~1vm', value: 'a' }],
      [{ op: 'add', path: `/metadata/labels/${INT}~1vm`, value: 'a' }],
    ],
    [
      'a merge patch',
      'application/merge-patch+json',
      { metadata: { labels: { 'kubevirt.io/vm': 'a' } } },
      { metadata: { labels: { [`${INT}/vm`]: 'a' } } },
    ],
  ])('renames %s by its content type', async (_name, type, patch, renamed) => {
    h.upstream.handler = (_req, res) => {
      sendJson(res, 200, internalVmi({ name: 'a' }));
    };
    const r = await call(h, `${VMIS}/a`, {
      method: 'PATCH',
      headers: { 'content-type': type },
      body: JSON.stringify(patch),
    });
    expect(h.upstream.last.path).toBe(`${INTERNAL_VMIS}/a`);
    expect(h.upstream.last.headers['content-type']).toBe(type);
    expect(JSON.parse(h.upstream.last.body)).toEqual(renamed);
    expect(r.json()).toEqual(originalVmi({ name: 'a' }));
  });

  it('renames a server-side apply patch sent as YAML, and sends it on as JSON', async () => {
    h.upstream.handler = (_req, res) => {
      sendJson(res, 200, internalVmi({ name: 'a' }));
    };
    const yaml =
      'apiVersion: kubevirt.io/v1\nkind: VirtualMachineInstance\nmetadata:\n  name: a\n  labels:\n    kubevirt.io/vm: a\n';
    await call(h, `${VMIS}/a?fieldManager=me`, {
      method: 'PATCH',
      headers: { 'content-type': 'application/apply-patch+yaml' },
      body: yaml,
    });
    expect(JSON.parse(h.upstream.last.body)).toEqual({
      apiVersion: `${IG}/v1`,
      kind: 'InternalVirtualizationVirtualMachineInstance',
      metadata: { name: 'a', labels: { [`${INT}/vm`]: 'a' } },
    });
  });

  it('passes requests for resources without rules through untouched', async () => {
    const body = '{"kind":"Lease","metadata":{"labels":{"kubevirt.io":"x"}}}';
    h.upstream.handler = (req, res) => {
      res.writeHead(200, { 'content-type': 'application/json', 'x-extra': 'kept' });
      res.end(req.body);
    };
    const r = await call(h, '/apis/coordination.k8s.io/v1/namespaces/ns/leases/l?x=1', {
      method: 'PUT',
      headers: { 'content-type': 'application/json', accept: 'application/vnd.kubernetes.protobuf' },
      body,
    });
    expect(h.upstream.last.url).toBe('/apis/coordination.k8s.io/v1/namespaces/ns/leases/l?x=1');
    expect(h.upstream.last.body).toBe(body);
    expect(h.upstream.last.headers['accept']).toBe('application/vnd.kubernetes.protobuf');
    expect(r.text).toBe(body);
    expect(r.headers['x-extra']).toBe('kept');
  });
});

describe('kube-api proxy: the way back', () => {
  it('restores a list', async () => {
    h.upstream.handler = (_req, res) => {
      sendJson(res, 200, internalVmiList([internalVmi({ name: 'a' }), internalVmi({ name: 'b' })]));
    };
    const r = await call(h, `${VMIS}?limit=2`);
    expect(r.json()).toEqual(originalVmiList([originalVmi({ name: 'a' }), originalVmi({ name: 'b' })]));
    expect(r.headers['content-length']).toBeUndefined();
  });

  it('restores a list that arrives in many small pieces', async () => {
    const text = JSON.stringify(
      internalVmiList(Array.from({ length: 20 }, (_, i) => internalVmi({ name: `v${i}` }))),
    );
    h.upstream.handler = (_req, res) => {
      res.writeHead(200, { 'content-type': 'application/json' });
      const step = 97;
      const write = (at: number): void => {
        if (at >= text.length) {
          res.end();
          return;
        }
        res.write(text.slice(at, at + step));
        setImmediate(() => {
          write(at + step);
        });
      };
      write(0);
    };
    const r = await call(h, VMIS);
    expect(r.json()).toEqual(
      originalVmiList(Array.from({ length: 20 }, (_, i) => originalVmi({ name: `v${i}` }))),
    );
  });

  it("answers a GET of an object of an original kind with 404, in the API server's words", async () => {
    h.upstream.handler = (_req, res) => {
      sendJson(res, 200, originalVmi({ name: 'real' }));
    };
    const r = await call(h, `${VMIS}/real`);
    expect(r.status).toBe(404);
    expect(r.json()).toMatchObject({
      kind: 'Status',
      code: 404,
      reason: 'NotFound',
      message: 'virtualmachineinstances.kubevirt.io "real" not found',
    });
  });

  it('restores a Status error answer (404 from the API server)', async () => {
    h.upstream.handler = (_req, res) => {
      sendJson(res, 404, {
        kind: 'Status',
        apiVersion: 'v1',
        status: 'Failure',
        code: 404,
        reason: 'NotFound',
        message: `internalvirtualizationvirtualmachineinstances.${IG} "x" not found`,
        details: { name: 'x', group: IG, kind: 'internalvirtualizationvirtualmachineinstances' },
      });
    };
    const r = await call(h, `${VMIS}/x`);
    expect(r.status).toBe(404);
    expect(r.json()).toMatchObject({
      details: { name: 'x', group: 'kubevirt.io', kind: 'virtualmachineinstances' },
    });
  });

  it('serves discovery of kubevirt.io/v1 from the internal group', async () => {
    h.upstream.handler = (_req, res) => {
      sendJson(res, 200, {
        kind: 'APIResourceList',
        apiVersion: 'v1',
        groupVersion: `${IG}/v1`,
        resources: [
          {
            name: 'internalvirtualizationvirtualmachines',
            singularName: 'internalvirtualizationvirtualmachine',
            namespaced: true,
            kind: 'InternalVirtualizationVirtualMachine',
            verbs: ['get', 'list'],
            shortNames: ['intvirtvm'],
            categories: ['intvirt'],
          },
        ],
      });
    };
    const r = await call(h, '/apis/kubevirt.io/v1');
    expect(h.upstream.last.path).toBe(`/apis/${IG}/v1`);
    expect(r.json()).toMatchObject({
      groupVersion: 'kubevirt.io/v1',
      resources: [{ name: 'virtualmachines', kind: 'VirtualMachine', shortNames: ['vm'] }],
    });
  });

  it('counts requests, rewrites and bytes in the kube_api_rewriter_* metrics', async () => {
    h.upstream.handler = (_req, res) => {
      sendJson(res, 200, internalVmi({ name: 'a' }));
    };
    await call(h, `${VMIS}/a`);
    await call(h, `${VMIS}/a`);
    const labels = { name: 'kube-api', resource: 'virtualmachineinstances', method: 'GET', watch: 'false' };
    expect(
      await sample(h.registry, 'kube_api_rewriter_client_requests_total', { ...labels, decision: 'rewrite' }),
    ).toBe(2);
    expect(
      await sample(h.registry, 'kube_api_rewriter_requests_handled_total', {
        ...labels,
        status: '200',
        error: '0',
      }),
    ).toBe(2);
    expect(
      await sample(h.registry, 'kube_api_rewriter_rewrites_total', {
        ...labels,
        side: 'target',
        operation: 'restore',
      }),
    ).toBe(2);
    expect(await sample(h.registry, 'kube_api_rewriter_to_client_bytes_total', labels)).toBeGreaterThan(100);
  });
});

describe('kube-api proxy over TLS', () => {
  it('verifies the API server with the CA and, as the rewriter, presents its client certificate', async () => {
    const { makeTlsFixture } = await import('../../../testenv/pki.ts');
    const tls = await makeTlsFixture();
    const fake = await FakeUpstream.start(tls);
    const th = await startHarness({
      fake,
      config: { server: fake.url, ca: tls.cert, cert: tls.cert, key: tls.key },
      unix: {},
    });
    try {
      fake.handler = (_req, res) => {
        sendJson(res, 200, internalVmi({ name: 'a' }));
      };
      const r = await call(th, `${VMIS}/a`);
      expect(r.json()).toEqual(originalVmi({ name: 'a' }));
      expect(fake.last.clientCertAuthorized).toBe(true);
    } finally {
      await th.close();
      tls.remove();
    }
  });
});
