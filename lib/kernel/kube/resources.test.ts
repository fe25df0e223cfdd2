import { describe, expect, it } from '@jest/globals';
import { KvError } from '../errors/errors.ts';
import {
  CONFIG_MAPS,
  CUSTOM_RESOURCE_DEFINITIONS,
  LEASES,
  NAMESPACES,
  NODES,
  PODS,
  gvkOf,
  gvrPath,
  type PathParts,
} from './resources.ts';
import type { GroupVersionResource } from './types.ts';

const VMIS: GroupVersionResource = {
  group: 'internal.virtualization.deckhouse.io',
  version: 'v1',
  resource: 'internalvirtualizationvirtualmachineinstances',
  kind: 'InternalVirtualizationVirtualMachineInstance',
  namespaced: true,
};

describe('gvrPath', () => {
  it.each<[string, GroupVersionResource, PathParts, string]>([
    ['core namespaced list, all namespaces', PODS, {}, '/api/v1/pods'],
    ['core namespaced list in a namespace', PODS, { namespace: 'ns' }, '/api/v1/namespaces/ns/pods'],
    ['core namespaced object', PODS, { namespace: 'ns', name: 'p' }, '/api/v1/namespaces/ns/pods/p'],
    [
      'core subresource',
      PODS,
      { namespace: 'ns', name: 'p', subresource: 'status' },
      '/api/v1/namespaces/ns/pods/p/status',
    ],
    ['core cluster-scoped list', NODES, {}, '/api/v1/nodes'],
    ['core cluster-scoped object', NODES, { name: 'n1' }, '/api/v1/nodes/n1'],
    [
      'namespace given to a cluster-scoped resource is ignored',
      NODES,
      { namespace: 'x', name: 'n1' },
      '/api/v1/nodes/n1',
    ],
    ['namespaces themselves', NAMESPACES, { name: 'kube-system' }, '/api/v1/namespaces/kube-system'],
    [
      'namespace finalize',
      NAMESPACES,
      { name: 'a', subresource: 'finalize' },
      '/api/v1/namespaces/a/finalize',
    ],
    [
      'named group, namespaced',
      LEASES,
      { namespace: 'kube-system', name: 'lock' },
      '/apis/coordination.k8s.io/v1/namespaces/kube-system/leases/lock',
    ],
    [
      'named group, cluster-scoped',
      CUSTOM_RESOURCE_DEFINITIONS,
      { name: 'a.b.io' },
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/a.b.io',
    ],
    [
      'CRD resource with status',
      VMIS,
      { namespace: 'd', name: 'vm', subresource: 'status' },
      '/apis/internal.virtualization.deckhouse.io/v1/namespaces/d/internalvirtualizationvirtualmachineinstances/vm/status',
    ],
    [
      'names are escaped',
      CONFIG_MAPS,
      { namespace: 'n', name: 'a b/c' },
      '/api/v1/namespaces/n/configmaps/a%20b%2Fc',
    ],
    ['an empty namespace means all namespaces', CONFIG_MAPS, { namespace: '' }, '/api/v1/configmaps'],
  ])('%s', (_name, gvr, parts, want) => {
    expect(gvrPath(gvr, parts)).toBe(want);
  });

  it('refuses a subresource without a name', () => {
    expect(() => gvrPath(PODS, { namespace: 'ns', subresource: 'status' })).toThrow(KvError);
  });
});

describe('gvkOf', () => {
  it.each<[GroupVersionResource, { apiVersion: string; kind: string }]>([
    [PODS, { apiVersion: 'v1', kind: 'Pod' }],
    [LEASES, { apiVersion: 'coordination.k8s.io/v1', kind: 'Lease' }],
    [
      CUSTOM_RESOURCE_DEFINITIONS,
      { apiVersion: 'apiextensions.k8s.io/v1', kind: 'CustomResourceDefinition' },
    ],
    [VMIS, { apiVersion: 'internal.virtualization.deckhouse.io/v1', kind: VMIS.kind }],
  ])('%o', (gvr, want) => {
    expect(gvkOf(gvr)).toEqual(want);
  });
});
