import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { sendJson } from './testing/fake-upstream.ts';
import { IG } from '../../rename/testing/objects.ts';
import { call, startHarness, type Harness } from './testing/harness.ts';

const HASH = 'ABC123';
const INTERNAL_VM = `io.deckhouse.virtualization.internal.v1.InternalVirtualizationVirtualMachine`;

const internalDoc = {
  openapi: '3.0.0',
  paths: {
    [`/apis/${IG}/v1/namespaces/{namespace}/internalvirtualizationvirtualmachines`]: {
      get: { operationId: 'x', responses: { '200': { $ref: `#/components/schemas/${INTERNAL_VM}` } } },
    },
  },
  components: {
    schemas: {
      [INTERNAL_VM]: {
        type: 'object',
        'x-kubernetes-group-version-kind': [
          { group: IG, version: 'v1', kind: 'InternalVirtualizationVirtualMachine' },
        ],
      },
    },
  },
};

let h: Harness;
beforeEach(async () => {
  h = await startHarness();
});
afterEach(async () => {
  await h.close();
});

describe('kube-api proxy: OpenAPI', () => {
  it('asks for a kubevirt.io group-version under the internal group and restores it, with its own ETag', async () => {
    h.upstream.handler = (_req, res) => {
      // As kube-apiserver sends it: JSON, typed as Go sniffs it.
      res.writeHead(200, { etag: `"${HASH}"`, 'content-type': 'text/plain; charset=utf-8' });
      res.end(JSON.stringify(internalDoc));
    };
    const r = await call(h, `/openapi/v3/apis/kubevirt.io/v1?hash=${HASH}`, {
      headers: { accept: 'application/json', 'accept-encoding': 'gzip', 'if-none-match': `"${HASH}"` },
    });
    expect(h.upstream.last.url).toBe(`/openapi/v3/apis/${IG}/v1?hash=${HASH}`);
    expect(h.upstream.last.headers['accept-encoding']).toBeUndefined();
    expect(h.upstream.last.headers['if-none-match']).toBeUndefined();
    expect(r.status).toBe(200);
    const doc = r.json() as {
      paths: Record<string, unknown>;
      components: { schemas: Record<string, unknown> };
    };
    expect(Object.keys(doc.paths)).toEqual(['/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines']);
    expect(doc.components.schemas['io.kubevirt.v1.VirtualMachine']).toEqual({
      type: 'object',
      'x-kubernetes-group-version-kind': [{ group: 'kubevirt.io', version: 'v1', kind: 'VirtualMachine' }],
    });
    expect(r.headers['content-length']).toBe(String(r.raw.length));
    expect(r.headers['content-type']).toBe('application/json');
    const etag = r.headers['etag'];
    expect(etag).toMatch(/^"[0-9A-F]{128}"$/);
    expect(etag).not.toBe(`"${HASH}"`);

    const again = await call(h, `/openapi/v3/apis/kubevirt.io/v1?hash=${HASH}`, {
      headers: { 'if-none-match': String(etag) },
    });
    expect(again.status).toBe(304);
    expect(again.raw.length).toBe(0);
  });

  it('lists the kubevirt.io group-version in the v3 index, pointing at the proxy', async () => {
    h.upstream.handler = (_req, res) => {
      sendJson(res, 200, {
        paths: {
          'apis/apps/v1': { serverRelativeURL: '/openapi/v3/apis/apps/v1?hash=1' },
          [`apis/${IG}/v1`]: { serverRelativeURL: `/openapi/v3/apis/${IG}/v1?hash=2` },
        },
      });
    };
    const r = await call(h, '/openapi/v3');
    expect(h.upstream.last.path).toBe('/openapi/v3');
    expect(r.json()).toEqual({
      paths: {
        'apis/apps/v1': { serverRelativeURL: '/openapi/v3/apis/apps/v1?hash=1' },
        'apis/kubevirt.io/v1': { serverRelativeURL: '/openapi/v3/apis/kubevirt.io/v1?hash=2' },
      },
    });
  });

  it('names the original group in the Location of a redirect to a newer hash', async () => {
    h.upstream.handler = (_req, res) => {
      res.writeHead(301, { location: `/openapi/v3/apis/${IG}/v1?hash=NEW`, 'content-type': 'text/html' });
      res.end('moved');
    };
    const r = await call(h, '/openapi/v3/apis/kubevirt.io/v1?hash=OLD');
    expect(r.status).toBe(301);
    expect(r.headers['location']).toBe('/openapi/v3/apis/kubevirt.io/v1?hash=NEW');
    expect(r.text).toBe('moved');
  });

  it('hides the internal group-version', async () => {
    const r = await call(h, `/openapi/v3/apis/${IG}/v1`);
    expect(r.status).toBe(404);
    expect(h.upstream.requests).toHaveLength(0);
  });

  it('restores v2 asked as JSON and passes v2 asked as protobuf untouched', async () => {
    const v2 = { swagger: '2.0', paths: {}, definitions: { [INTERNAL_VM]: { type: 'object' } } };
    h.upstream.handler = (req, res) => {
      if ((req.headers.accept ?? '').includes('protobuf')) {
        res.writeHead(200, { 'content-type': 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' });
        res.end(Buffer.from([1, 2, 3]));
      } else sendJson(res, 200, v2);
    };
    const asJson = await call(h, '/openapi/v2', { headers: { accept: 'application/json' } });
    expect(asJson.json()).toEqual({
      swagger: '2.0',
      paths: {},
      definitions: { 'io.kubevirt.v1.VirtualMachine': { type: 'object' } },
    });
    const accept = 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf';
    const asProto = await call(h, '/openapi/v2', { headers: { accept } });
    expect(h.upstream.last.headers.accept).toBe(accept);
    expect([...asProto.raw]).toEqual([1, 2, 3]);
  });

  it('passes other OpenAPI documents untouched', async () => {
    h.upstream.handler = (_req, res) => {
      sendJson(res, 200, { openapi: '3.0.0', paths: { '/apis/apps/v1/deployments': {} } });
    };
    const r = await call(h, '/openapi/v3/apis/apps/v1?hash=1');
    expect(h.upstream.last.url).toBe('/openapi/v3/apis/apps/v1?hash=1');
    expect(r.json()).toEqual({ openapi: '3.0.0', paths: { '/apis/apps/v1/deployments': {} } });
  });
});
