import { describe, expect, it } from '@jest/globals';
import { parseTarget, targetUrl } from './target.ts';
import { rewriteTarget, shouldRewriteBodies } from './target-rewrite.ts';
import { KUBEVIRT, kvRename, SYNTHETIC, synRename } from './testing/synthetic-rules.ts';

const IG = 'internal.virtualization.deckhouse.io';

describe('parseTarget', () => {
  it.each([
    ['/', { type: 'root' }],
    ['/api', { type: 'core', isDiscovery: true }],
    ['/api/v1', { type: 'core', version: 'v1', isDiscovery: true }],
    ['/api/v1/pods', { type: 'core', version: 'v1', resource: 'pods', isList: true }],
    ['/api/v1/nodes/n1/status', { resource: 'nodes', name: 'n1', subresource: 'status', isList: false }],
    ['/api/v1/namespaces/ns/pods', { namespace: 'ns', resource: 'pods', isList: true }],
    [
      '/api/v1/namespaces/ns/pods/p1/exec',
      { namespace: 'ns', resource: 'pods', name: 'p1', subresource: 'exec' },
    ],
    [
      '/api/v1/namespaces/ns1/status',
      { namespace: '', resource: 'namespaces', name: 'ns1', subresource: 'status' },
    ],
    ['/api/v1/namespaces/ns1', { namespace: '', resource: 'namespaces', name: 'ns1' }],
    ['/apis', { type: 'apis', group: '', isDiscovery: true }],
    ['/apis/group.io', { group: 'group.io', version: '', isDiscovery: true }],
    ['/apis/group.io/v1', { group: 'group.io', version: 'v1', isDiscovery: true }],
    ['/apis/group.io/v1/someresources', { resource: 'someresources', isList: true, isDiscovery: false }],
    [
      '/apis/group.io/v1/someresources/srname/status',
      { resource: 'someresources', name: 'srname', subresource: 'status' },
    ],
    [
      '/apis/group.io/v1/namespaces/ns/someresources/sr',
      { namespace: 'ns', resource: 'someresources', name: 'sr' },
    ],
    [
      '/apis/group.io/v1/namespaces/ns/someresources?watch=true',
      { namespace: 'ns', isWatch: true, isList: false },
    ],
    ['/apis/group.io/v1/namespaces/ns/someresources?watch=1&resourceVersion=5', { isWatch: true }],
    ['/apis/group.io/v1/namespaces/ns/someresources?watch=false', { isWatch: false, isList: true }],
    [
      '/apis/group.io/v1/watch/namespaces/ns/someresources',
      { watchSegment: true, isWatch: true, namespace: 'ns' },
    ],
    [
      '/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachineinstances/vmi/portforward/22/tcp',
      { name: 'vmi', subresource: 'portforward', remainder: ['22', 'tcp'] },
    ],
    ['/apis/apiextensions.k8s.io/v1/customresourcedefinitions', { isCRD: true, isList: true }],
    [
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/crname/status',
      { isCRD: true, name: 'crname', subresource: 'status' },
    ],
    ['/healthz', { type: 'unknown' }],
    [
      '/virtualmachines-mutate',
      {
        type: 'webhook',
        webhook: { path: '/virtualmachines-mutate', group: 'kubevirt.io', resource: 'virtualmachines' },
      },
    ],
  ])('%s', (url, expected) => {
    expect(parseTarget(url, KUBEVIRT)).toMatchObject(expected);
  });
});

describe('rewriteTarget (synthetic rules, as in the Go tests)', () => {
  it.each([
    ['/apis/original.group.io', '/apis/prefixed.resources.group.io'],
    ['/apis/original.group.io/v1', '/apis/prefixed.resources.group.io/v1'],
    [
      '/apis/original.group.io/v1/someresources',
      '/apis/prefixed.resources.group.io/v1/prefixedsomeresources',
    ],
    [
      '/apis/original.group.io/v1/someresources/srname',
      '/apis/prefixed.resources.group.io/v1/prefixedsomeresources/srname',
    ],
    [
      '/apis/original.group.io/v1/someresources/srname/status',
      '/apis/prefixed.resources.group.io/v1/prefixedsomeresources/srname/status',
    ],
    [
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/someresources.original.group.io',
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/prefixedsomeresources.prefixed.resources.group.io',
    ],
    [
      '/api/v1/namespaces/nsname/pods?labelSelector=labelgroup.io&limit=0',
      '/api/v1/namespaces/nsname/pods?labelSelector=replacedlabelgroup.io&limit=0',
    ],
    [
      '/api/v1/pods?labelSelector=labelgroup.io%2Fsome-attr&limit=500',
      '/api/v1/pods?labelSelector=replacedlabelgroup.io%2Fsome-attr&limit=500',
    ],
    [
      '/api/v1/namespaces/d8-virtualization/pods?labelSelector=labelgroup.io%3Dlabelvalue&limit=500',
      '/api/v1/namespaces/d8-virtualization/pods?labelSelector=replacedlabelgroup.io%3Dlabelvalue&limit=500',
    ],
    [
      '/api/v1/namespaces/d8-virtualization/pods?labelSelector=labelgroup.io+notin+%28value-one%2Cvalue-two%29&limit=500',
      '/api/v1/namespaces/d8-virtualization/pods?labelSelector=replacedlabelgroup.io+notin+%28value-one%2Cvalue-two%29&limit=500',
    ],
    [
      '/apis/apps/v1/deployments?labelSelector=labelgroup.io+notin+%28value-one%2ClabelValue%29&limit=500',
      '/apis/apps/v1/deployments?labelSelector=replacedlabelgroup.io+notin+%28labelValue%2Cvalue-one%29&limit=500',
    ],
    [
      '/api/v1/namespaces/d8-virtualization/pods?labelSelector=labelgroup.io%3DlabelValueToRename&limit=500',
      '/api/v1/namespaces/d8-virtualization/pods?labelSelector=replacedlabelgroup.io%3DrenamedLabelValue&limit=500',
    ],
    [
      '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings?labelSelector=labelgroup.io+notin+%28value-one%2ClabelValueToRename%29&limit=500',
      '/apis/admissionregistration.k8s.io/v1/validatingadmissionpolicybindings?labelSelector=replacedlabelgroup.io+notin+%28renamedLabelValue%2Cvalue-one%29&limit=500',
    ],
    ['/apis/original.group.io/v1/unknownresources', '/apis/original.group.io/v1/unknownresources'],
    ['/apis/apps/v1/deployments?limit=500', '/apis/apps/v1/deployments?limit=500'],
  ])('%s → %s', (input, expected) => {
    expect(targetUrl(rewriteTarget(parseTarget(input, SYNTHETIC), synRename))).toBe(expected);
  });
});

describe('rewriteTarget (KubeVirt rules)', () => {
  it.each([
    [
      '/apis/kubevirt.io/v1/namespaces/ns/virtualmachines/vm1',
      `/apis/${IG}/v1/namespaces/ns/internalvirtualizationvirtualmachines/vm1`,
    ],
    [
      '/apis/kubevirt.io/v1/watch/namespaces/ns/virtualmachineinstances?resourceVersion=10',
      `/apis/${IG}/v1/watch/namespaces/ns/internalvirtualizationvirtualmachineinstances?resourceVersion=10`,
    ],
    [
      '/apis/kubevirt.io/v1/virtualmachineinstances?labelSelector=kubevirt.io%2Fnodename%3Dnode1&watch=true',
      `/apis/${IG}/v1/internalvirtualizationvirtualmachineinstances?labelSelector=kubevirt.internal.virtualization.deckhouse.io%2Fnodename%3Dnode1&watch=true`,
    ],
    ['/apis/snapshot.kubevirt.io/v1alpha1', `/apis/snapshot.${IG}/v1alpha1`],
    [
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldSelector=metadata.name%3Dvirtualmachines.kubevirt.io',
      `/apis/apiextensions.k8s.io/v1/customresourcedefinitions?fieldSelector=metadata.name%3Dinternalvirtualizationvirtualmachines.${IG}`,
    ],
    [
      '/api/v1/namespaces/ns/events?fieldSelector=involvedObject.kind%3DVirtualMachine%2CinvolvedObject.name%3Dvm1',
      '/api/v1/namespaces/ns/events?fieldSelector=involvedObject.kind%3DInternalVirtualizationVirtualMachine%2CinvolvedObject.name%3Dvm1',
    ],
    [
      '/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachineinstances/vmi/vnc',
      '/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachineinstances/vmi/vnc',
    ],
    ['/virtualmachines-mutate', '/virtualmachines-mutate'],
  ])('%s → %s', (input, expected) => {
    expect(targetUrl(rewriteTarget(parseTarget(input, KUBEVIRT), kvRename))).toBe(expected);
  });

  it('returns the same target when nothing changes', () => {
    const t = parseTarget('/api/v1/namespaces/ns/pods?limit=5', KUBEVIRT);
    expect(rewriteTarget(t, kvRename)).toBe(t);
  });

  it('keeps the parsed parts in step with the path', () => {
    const t = rewriteTarget(
      parseTarget('/apis/kubevirt.io/v1/namespaces/ns/virtualmachines/vm1/status', KUBEVIRT),
      kvRename,
    );
    expect(t).toMatchObject({
      group: IG,
      resource: 'internalvirtualizationvirtualmachines',
      name: 'vm1',
      subresource: 'status',
    });
  });
});

describe('shouldRewriteBodies', () => {
  it.each([
    ['/apis/kubevirt.io/v1/virtualmachines', true],
    [`/apis/${IG}/v1/internalvirtualizationvirtualmachines`, true],
    ['/apis', true],
    ['/api/v1', true],
    ['/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.y', true],
    ['/api/v1/pods', true],
    ['/api/v1/nodes/n1', true],
    ['/apis/apps/v1/deployments', true],
    ['/apis/coordination.k8s.io/v1/leases', false],
    ['/api/v1/namespaces/ns1', false],
    ['/apis/other.product.group.io/v1alpha1/someresources', false],
    ['/healthz', false],
    ['/', false],
    ['/virtualmachines-validate', true],
  ])('%s → %s', (url, expected) => {
    expect(shouldRewriteBodies(parseTarget(url, KUBEVIRT), KUBEVIRT)).toBe(expected);
  });
});
