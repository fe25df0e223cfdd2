import { describe, expect, it } from '@jest/globals';
import { rewriteDocument } from './document.ts';
import { deepFreeze, kvRename, kvRestore, synRestore } from './testing/synthetic-rules.ts';

const IG = 'internal.virtualization.deckhouse.io';

const groupOf = (name: string, versions: string[]): Record<string, unknown> => ({
  name,
  versions: versions.map((v) => ({ groupVersion: `${name}/${v}`, version: v })),
  preferredVersion: { groupVersion: `${name}/${versions[0] ?? ''}`, version: versions[0] },
});

describe('APIGroupList and APIGroup', () => {
  const list = deepFreeze({
    kind: 'APIGroupList',
    apiVersion: 'v1',
    groups: [
      groupOf('apps', ['v1']),
      groupOf(IG, ['v1', 'v1alpha3']),
      groupOf('kubevirt.io', ['v1']),
      groupOf(`pool.${IG}`, ['v1alpha1']),
    ],
  });

  it('restores renamed groups and drops groups that exist under an original name', () => {
    expect(rewriteDocument(list, kvRestore)).toEqual({
      kind: 'APIGroupList',
      apiVersion: 'v1',
      groups: [
        groupOf('apps', ['v1']),
        groupOf('kubevirt.io', ['v1', 'v1alpha3']),
        groupOf('pool.kubevirt.io', ['v1alpha1']),
      ],
    });
  });

  it('leaves discovery alone on rename', () => {
    expect(rewriteDocument(list, kvRename)).toBe(list);
  });

  it('restores one APIGroup, and leaves other groups untouched', () => {
    const renamed = deepFreeze({
      kind: 'APIGroup',
      apiVersion: 'v1',
      ...groupOf(`snapshot.${IG}`, ['v1alpha1']),
    });
    expect(rewriteDocument(renamed, kvRestore)).toEqual({
      kind: 'APIGroup',
      apiVersion: 'v1',
      ...groupOf('snapshot.kubevirt.io', ['v1alpha1']),
    });
    const apps = deepFreeze({ kind: 'APIGroup', apiVersion: 'v1', ...groupOf('apps', ['v1']) });
    expect(rewriteDocument(apps, kvRestore)).toBe(apps);
  });
});

describe('APIResourceList', () => {
  it('restores names, kinds, short names and categories (synthetic rules, as in the Go test)', () => {
    const body = deepFreeze({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'prefixed.resources.group.io/v1',
      resources: [
        {
          name: 'prefixedsomeresources',
          singularName: 'prefixedsomeresource',
          namespaced: true,
          kind: 'PrefixedSomeResource',
          verbs: ['get', 'list'],
          shortNames: ['psr', 'psrs'],
          categories: ['prefixed'],
          storageVersionHash: 'QUMxLW9gfYs=',
        },
        {
          name: 'prefixedsomeresources/status',
          singularName: '',
          namespaced: true,
          kind: 'PrefixedSomeResource',
          verbs: ['get'],
        },
        {
          name: 'prefixedsomeresources/scale',
          singularName: '',
          namespaced: true,
          group: 'autoscaling',
          version: 'v1',
          kind: 'Scale',
          verbs: ['get'],
        },
        {
          name: 'prefixedunknowns',
          singularName: 'prefixedunknown',
          namespaced: true,
          kind: 'PrefixedUnknown',
          verbs: [],
        },
      ],
    });
    expect(rewriteDocument(body, synRestore)).toEqual({
      kind: 'APIResourceList',
      apiVersion: 'v1',
      groupVersion: 'original.group.io/v1',
      resources: [
        {
          name: 'someresources',
          singularName: 'someresource',
          namespaced: true,
          kind: 'SomeResource',
          verbs: ['get', 'list'],
          shortNames: ['sr', 'srs'],
          categories: ['all'],
          storageVersionHash: 'QUMxLW9gfYs=',
        },
        {
          name: 'someresources/status',
          singularName: '',
          namespaced: true,
          kind: 'SomeResource',
          verbs: ['get'],
        },
        {
          name: 'someresources/scale',
          singularName: '',
          namespaced: true,
          group: 'autoscaling',
          version: 'v1',
          kind: 'Scale',
          verbs: ['get'],
        },
      ],
    });
  });

  it('leaves lists of groups without rules untouched', () => {
    const body = deepFreeze({
      kind: 'APIResourceList',
      groupVersion: 'v1',
      resources: [{ name: 'pods', kind: 'Pod' }],
    });
    expect(rewriteDocument(body, kvRestore)).toBe(body);
  });
});

describe('APIGroupDiscoveryList (aggregated discovery)', () => {
  const resource = (
    group: string,
    version: string,
    prefix: string,
    kindPrefix: string,
  ): Record<string, unknown> => ({
    resource: `${prefix}virtualmachines`,
    responseKind: { group, version, kind: `${kindPrefix}VirtualMachine` },
    scope: 'Namespaced',
    singularResource: `${prefix}virtualmachine`,
    shortNames: [`${prefix === '' ? '' : 'intvirt'}vm`, `${prefix === '' ? '' : 'intvirt'}vms`],
    categories: [prefix === '' ? 'all' : 'intvirt'],
    verbs: ['get', 'list'],
    subresources: [
      {
        subresource: 'status',
        responseKind: { group, version, kind: `${kindPrefix}VirtualMachine` },
        verbs: ['get'],
      },
      {
        subresource: 'scale',
        responseKind: { group: 'autoscaling', version: 'v1', kind: 'Scale' },
        verbs: ['get'],
      },
    ],
  });
  const groupItem = (name: string, prefix: string, kindPrefix: string): Record<string, unknown> => ({
    metadata: { name, creationTimestamp: null },
    versions: [
      { version: 'v1', freshness: 'Current', resources: [resource(name, 'v1', prefix, kindPrefix)] },
      {
        version: 'v1alpha3',
        freshness: 'Stale',
        resources: [resource(name, 'v1alpha3', prefix, kindPrefix)],
      },
    ],
  });
  const apps = {
    metadata: { name: 'apps', creationTimestamp: null },
    versions: [
      {
        version: 'v1',
        resources: [
          { resource: 'deployments', responseKind: { group: '', version: '', kind: 'Deployment' } },
        ],
      },
    ],
  };

  it.each(['apidiscovery.k8s.io/v2', 'apidiscovery.k8s.io/v2beta1'])(
    'restores groups, keeps versions in order (%s)',
    (apiVersion) => {
      const body = deepFreeze({
        kind: 'APIGroupDiscoveryList',
        apiVersion,
        metadata: {},
        items: [
          apps,
          groupItem(IG, 'internalvirtualization', 'InternalVirtualization'),
          groupItem('kubevirt.io', '', ''),
        ],
      });
      expect(rewriteDocument(body, kvRestore)).toEqual({
        kind: 'APIGroupDiscoveryList',
        apiVersion,
        metadata: {},
        items: [apps, groupItem('kubevirt.io', '', '')],
      });
    },
  );

  it('drops renamed resources without a rule', () => {
    const body = {
      kind: 'APIGroupDiscoveryList',
      items: [
        {
          metadata: { name: IG },
          versions: [{ version: 'v1', resources: [{ resource: 'internalvirtualizationfoos' }] }],
        },
      ],
    };
    expect(rewriteDocument(body, kvRestore)).toEqual({
      kind: 'APIGroupDiscoveryList',
      items: [{ metadata: { name: 'kubevirt.io' }, versions: [{ version: 'v1', resources: [] }] }],
    });
  });
});
