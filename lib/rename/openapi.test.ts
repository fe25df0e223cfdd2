/**
 * OpenAPI restore goldens: testdata/openapi-<doc>.in.json are excerpts of what kube-apiserver serves with the
 * internal CRDs installed (plus a resource without a rule and an original-group entry, both to be hidden);
 * the .out.json files are the documents the client gets.
 */
import { describe, expect, it } from '@jest/globals';
import { goldens } from '../kernel/testing/golden.ts';
import type { JsonRecord } from './json.ts';
import { restoreOpenApiIndex, restoreOpenApiV2, restoreOpenApiV3 } from './openapi.ts';
import { deepFreeze, kvRestore } from './testing/synthetic-rules.ts';

const golden = goldens(import.meta.url);
const input = (name: string): JsonRecord => deepFreeze(JSON.parse(golden.read(name)) as JsonRecord);

type Schemas = Record<string, { 'x-kubernetes-group-version-kind'?: unknown; properties?: JsonRecord }>;

describe('OpenAPI goldens', () => {
  it.each([
    ['openapi-index', restoreOpenApiIndex],
    ['openapi-v3', restoreOpenApiV3],
    ['openapi-v2', restoreOpenApiV2],
  ])('%s', (name, restore) => {
    golden.expectJson(`${name}.out.json`, restore(input(`${name}.in.json`), kvRestore));
  });
});

describe('restoreOpenApiIndex', () => {
  it('lists the kubevirt group-version at the proxy path with the server hash, and no internal group', () => {
    const out = restoreOpenApiIndex(input('openapi-index.in.json'), kvRestore) as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    const keys = Object.keys(out.paths);
    expect(keys.filter((k) => k.includes('internal'))).toEqual([]);
    expect(out.paths['apis/kubevirt.io/v1']?.serverRelativeURL).toMatch(
      /^\/openapi\/v3\/apis\/kubevirt\.io\/v1\?hash=[0-9A-F]{128}$/,
    );
    expect(keys).toEqual(expect.arrayContaining(['api/v1', 'apis', 'apis/apps/v1']));
  });
});

describe('restoreOpenApiV3', () => {
  const doc = input('openapi-v3.in.json');
  const out = restoreOpenApiV3(doc, kvRestore);
  const schemas = (out['components'] as { schemas: Schemas }).schemas;

  it('names the schemas as the KubeVirt CRDs would, with their kubevirt.io group-version-kind', () => {
    expect(Object.keys(schemas).sort()).toEqual([
      'io.k8s.apimachinery.pkg.apis.meta.v1.ListMeta',
      'io.kubevirt.v1.VirtualMachine',
      'io.kubevirt.v1.VirtualMachineInstanceList',
      'io.kubevirt.v1.VirtualMachineList',
    ]);
    expect(schemas['io.kubevirt.v1.VirtualMachine']?.['x-kubernetes-group-version-kind']).toEqual([
      { group: 'kubevirt.io', kind: 'VirtualMachine', version: 'v1' },
    ]);
    const before = (doc['components'] as { schemas: Schemas }).schemas;
    expect(schemas['io.kubevirt.v1.VirtualMachine']?.properties?.['spec']).toBe(
      before['io.deckhouse.virtualization.internal.v1.InternalVirtualizationVirtualMachine']?.properties?.[
        'spec'
      ],
    );
  });

  it('leaves no internal name anywhere', () => {
    expect(JSON.stringify(out)).not.toMatch(/internalvirtualization|deckhouse/i);
  });

  it('changes nothing on a document without renamed names', () => {
    const plain = deepFreeze({
      openapi: '3.0.0',
      paths: {},
      components: { schemas: { 'io.k8s.api.core.v1.Pod': {} } },
    });
    expect(restoreOpenApiV3(plain, kvRestore)).toEqual(plain);
  });
});

describe('restoreOpenApiV2', () => {
  it('restores definitions and paths and hides the original group the server serves', () => {
    const out = restoreOpenApiV2(input('openapi-v2.in.json'), kvRestore) as {
      paths: JsonRecord;
      definitions: Schemas;
    };
    expect(Object.keys(out.paths).sort()).toEqual([
      '/api/v1/namespaces/{namespace}/pods/{name}',
      '/apis/kubevirt.io/v1/namespaces/{namespace}/virtualmachines',
    ]);
    expect(out.definitions['io.kubevirt.v1.VirtualMachine']?.['x-kubernetes-group-version-kind']).toEqual([
      { group: 'kubevirt.io', kind: 'VirtualMachine', version: 'v1' },
    ]);
    expect(out.definitions['io.kubevirt.v1.VirtualMachine']).not.toHaveProperty(
      'description',
      'served by the API server itself',
    );
    expect(JSON.stringify(out)).not.toMatch(/internalvirtualization|deckhouse/i);
  });
});
