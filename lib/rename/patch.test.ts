import { describe, expect, it } from '@jest/globals';
import { rewritePatch } from './patch.ts';
import { patchTargetOf, type PatchTarget } from './patch-target.ts';
import { parseTarget } from './target.ts';
import { deepFreeze, KUBEVIRT, kvRename, SYNTHETIC, synRename } from './testing/synthetic-rules.ts';

const IG = 'internal.virtualization.deckhouse.io';
const INT = `kubevirt.${IG}`;
const E_INT = INT.replaceAll('/', '~1');
const target = (url: string): PatchTarget => patchTargetOf(parseTarget(url, KUBEVIRT), KUBEVIRT);

const VM = target('/apis/kubevirt.io/v1/namespaces/ns/virtualmachines/vm1');
const POD = target('/api/v1/namespaces/ns/pods/p');
const NODE = target('/api/v1/nodes/n1');
const DEPLOY = target('/apis/apps/v1/namespaces/ns/deployments/d');
const SVC = target('/api/v1/namespaces/ns/services/s');
const CRD = target('/apis/apiextensions.k8s.io/v1/customresourcedefinitions/virtualmachines.kubevirt.io');
const VWC = target('/apis/admissionregistration.k8s.io/v1/validatingwebhookconfigurations/v');

describe('patch targets', () => {
  it.each([
    [
      '/apis/kubevirt.io/v1/namespaces/ns/virtualmachines/vm1',
      { kind: 'VirtualMachine', apiVersion: 'kubevirt.io/v1' },
    ],
    [
      '/apis/kubevirt.io/v1/namespaces/ns/virtualmachines/vm1/status',
      { kind: 'VirtualMachine', apiVersion: 'kubevirt.io/v1' },
    ],
    ['/apis/kubevirt.io/v1/namespaces/ns/virtualmachineinstancereplicasets/r/scale', {}],
    ['/api/v1/namespaces/ns/pods/p', { kind: 'Pod', apiVersion: 'v1' }],
    ['/api/v1/nodes/n1', {}],
    [
      '/apis/apiextensions.k8s.io/v1/customresourcedefinitions/x.y',
      { kind: 'CustomResourceDefinition', crdName: 'x.y' },
    ],
  ])('%s', (url, expected) => {
    expect(target(url)).toMatchObject(expected);
  });
});

describe('JSON patch operations (KubeVirt rules)', () => {
  it.each<[string, PatchTarget, object, object]>([
    [
      'label map',
      NODE,
      {
        op: 'replace',
        path: '/metadata/labels',
        value: { 'kubevirt.io/schedulable': 'false', cpumanager: 'false' },
      },
      {
        op: 'replace',
        path: '/metadata/labels',
        value: { [`${INT}/schedulable`]: 'false', cpumanager: 'false' },
      },
    ],
    [
      'one label by path',
      NODE,
      { op: 'add', path: '/metadata/labels/kubevirt.io~1schedulable', value: 'true' },
      { op: 'add', path: `/metadata/labels/${E_INT}~1schedulable`, value: 'true' },
    ],
    [
      'label removal',
      NODE,
      { op: 'remove', path: '/metadata/labels/cpu-model.node.kubevirt.io~1Haswell' },
      { op: 'remove', path: '/metadata/labels/cpu-model.node.virtualization.deckhouse.io~1Haswell' },
    ],
    [
      'key=value label rule',
      NODE,
      { op: 'add', path: '/metadata/labels/app.kubernetes.io~1managed-by', value: 'virt-operator' },
      {
        op: 'add',
        path: '/metadata/labels/app.kubernetes.io~1managed-by',
        value: 'virt-operator-internal-virtualization',
      },
    ],
    [
      'preserved label',
      NODE,
      { op: 'test', path: '/metadata/labels/preserved-original-kubevirt.io~1x', value: 'v' },
      { op: 'test', path: '/metadata/labels/kubevirt.io~1x', value: 'v' },
    ],
    [
      'annotation by path',
      VM,
      { op: 'replace', path: '/metadata/annotations/kubevirt.io~1heartbeat', value: 't' },
      { op: 'replace', path: `/metadata/annotations/${E_INT}~1heartbeat`, value: 't' },
    ],
    [
      'finalizer list',
      VM,
      {
        op: 'replace',
        path: '/metadata/finalizers',
        value: ['kubevirt.io/virtualMachineControllerFinalize', 'other'],
      },
      {
        op: 'replace',
        path: '/metadata/finalizers',
        value: [`${INT}/virtualMachineControllerFinalize`, 'other'],
      },
    ],
    [
      'finalizer by index',
      VM,
      { op: 'test', path: '/metadata/finalizers/0', value: 'kubevirt.io/virtualMachineControllerFinalize' },
      { op: 'test', path: '/metadata/finalizers/0', value: `${INT}/virtualMachineControllerFinalize` },
    ],
    [
      'owner reference',
      POD,
      {
        op: 'add',
        path: '/metadata/ownerReferences/-',
        value: { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachineInstance', name: 'v', uid: 'u' },
      },
      {
        op: 'add',
        path: '/metadata/ownerReferences/-',
        value: {
          apiVersion: `${IG}/v1`,
          kind: 'InternalVirtualizationVirtualMachineInstance',
          name: 'v',
          uid: 'u',
        },
      },
    ],
    [
      'whole metadata',
      POD,
      { op: 'replace', path: '/metadata', value: { name: 'p', labels: { 'kubevirt.io': 'virt-launcher' } } },
      { op: 'replace', path: '/metadata', value: { name: 'p', labels: { [INT]: 'virt-launcher' } } },
    ],
    [
      'move with from',
      NODE,
      { op: 'move', from: '/metadata/labels/kubevirt.io~1a', path: '/metadata/labels/kubevirt.io~1b' },
      { op: 'move', from: `/metadata/labels/${E_INT}~1a`, path: `/metadata/labels/${E_INT}~1b` },
    ],
    [
      'pod nodeSelector key',
      POD,
      { op: 'add', path: '/spec/nodeSelector/kubevirt.io~1schedulable', value: 'true' },
      { op: 'add', path: `/spec/nodeSelector/${E_INT}~1schedulable`, value: 'true' },
    ],
    [
      'pod affinity term',
      POD,
      {
        op: 'add',
        path: '/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0',
        value: { labelSelector: { matchLabels: { 'kubevirt.io/vm': 'x' } }, topologyKey: 'h' },
      },
      {
        op: 'add',
        path: '/spec/affinity/podAntiAffinity/requiredDuringSchedulingIgnoredDuringExecution/0',
        value: { labelSelector: { matchLabels: { [`${INT}/vm`]: 'x' } }, topologyKey: 'h' },
      },
    ],
    [
      'deployment template labels',
      DEPLOY,
      { op: 'replace', path: '/spec/template/metadata/labels', value: { 'kubevirt.io': 'virt-api' } },
      { op: 'replace', path: '/spec/template/metadata/labels', value: { [INT]: 'virt-api' } },
    ],
    [
      'deployment /spec',
      DEPLOY,
      { op: 'replace', path: '/spec', value: { selector: { matchLabels: { 'kubevirt.io': 'virt-api' } } } },
      { op: 'replace', path: '/spec', value: { selector: { matchLabels: { [INT]: 'virt-api' } } } },
    ],
    [
      'service /spec',
      SVC,
      { op: 'replace', path: '/spec', value: { selector: { 'kubevirt.io': 'virt-api' } } },
      { op: 'replace', path: '/spec', value: { selector: { [INT]: 'virt-api' } } },
    ],
    [
      'CRD /spec',
      CRD,
      {
        op: 'replace',
        path: '/spec',
        value: {
          group: 'kubevirt.io',
          names: {
            kind: 'VirtualMachine',
            plural: 'virtualmachines',
            shortNames: ['vm'],
            categories: ['all'],
          },
        },
      },
      {
        op: 'replace',
        path: '/spec',
        value: {
          group: IG,
          names: {
            kind: 'InternalVirtualizationVirtualMachine',
            plural: 'internalvirtualizationvirtualmachines',
            shortNames: ['intvirtvm'],
            categories: ['intvirt'],
          },
        },
      },
    ],
    [
      'webhooks',
      VWC,
      {
        op: 'replace',
        path: '/webhooks',
        value: [{ name: 'w', rules: [{ apiGroups: ['kubevirt.io'], resources: ['virtualmachines'] }] }],
      },
      {
        op: 'replace',
        path: '/webhooks',
        value: [
          { name: 'w', rules: [{ apiGroups: [IG], resources: ['internalvirtualizationvirtualmachines'] }] },
        ],
      },
    ],
    [
      'whole object',
      VM,
      {
        op: 'replace',
        path: '',
        value: {
          apiVersion: 'kubevirt.io/v1',
          kind: 'VirtualMachine',
          metadata: { name: 'vm1', labels: { 'kubevirt.io/vm': 'x' } },
        },
      },
      {
        op: 'replace',
        path: '',
        value: {
          apiVersion: `${IG}/v1`,
          kind: 'InternalVirtualizationVirtualMachine',
          metadata: { name: 'vm1', labels: { [`${INT}/vm`]: 'x' } },
        },
      },
    ],
    [
      'spec of a custom resource is left alone',
      VM,
      { op: 'replace', path: '/spec/template/metadata/labels', value: { 'kubevirt.io/vm': 'x' } },
      { op: 'replace', path: '/spec/template/metadata/labels', value: { 'kubevirt.io/vm': 'x' } },
    ],
    [
      'status',
      VM,
      { op: 'replace', path: '/status/printableStatus', value: 'Running' },
      { op: 'replace', path: '/status/printableStatus', value: 'Running' },
    ],
  ])('%s', (_name, t, op, expected) => {
    expect(rewritePatch(deepFreeze([op]), 'json', t, kvRename)).toEqual([expected]);
  });

  it('returns the same array when nothing changes', () => {
    const ops = deepFreeze([{ op: 'replace', path: '/spec/running', value: true }]);
    expect(rewritePatch(ops, 'json', VM, kvRename)).toBe(ops);
  });

  it('passes shapes it does not expect through', () => {
    const odd = deepFreeze({ op: 'x' });
    expect(rewritePatch(odd, 'json', VM, kvRename)).toBe(odd);
    expect(rewritePatch([{ op: 'add', path: 'no-slash', value: 1 }], 'json', VM, kvRename)).toEqual([
      { op: 'add', path: 'no-slash', value: 1 },
    ]);
  });
});

describe('JSON patch operations (synthetic rules, the Go core_test cases)', () => {
  const svc = patchTargetOf(
    parseTarget('/api/v1/namespaces/default/services/testservice', SYNTHETIC),
    SYNTHETIC,
  );
  const node = patchTargetOf(parseTarget('/api/v1/nodes/master-node-0', SYNTHETIC), SYNTHETIC);
  it('service selector', () => {
    expect(
      rewritePatch(
        [{ op: 'replace', path: '/spec', value: { selector: { 'labelgroup.io': 'true' } } }],
        'json',
        svc,
        synRename,
      ),
    ).toEqual([{ op: 'replace', path: '/spec', value: { selector: { 'replacedlabelgroup.io': 'true' } } }]);
  });
  it('labels with preserved prefixes', () => {
    const value = (v: string): object => ({
      'preserved-original-labelgroup.io': 'original-label-value',
      'labelgroup.io': v,
    });
    const patch = [
      { op: 'test', path: '/metadata/labels', value: value('value-for-overriden-label') },
      { op: 'replace', path: '/metadata/labels', value: value('new-value-for-overriden-label') },
    ];
    const expected = (v: string): object => ({
      'labelgroup.io': 'original-label-value',
      'replacedlabelgroup.io': v,
    });
    expect(rewritePatch(patch, 'json', node, synRename)).toEqual([
      { op: 'test', path: '/metadata/labels', value: expected('value-for-overriden-label') },
      { op: 'replace', path: '/metadata/labels', value: expected('new-value-for-overriden-label') },
    ]);
  });
});

describe('merge, strategic merge and apply patches', () => {
  it.each<[string, { type: 'merge' | 'strategic' | 'apply'; target: PatchTarget }, object, object]>([
    [
      'node labels and annotations (merge)',
      { type: 'merge', target: NODE },
      {
        metadata: {
          labels: { 'kubevirt.io/schedulable': 'false', cpumanager: 'false' },
          annotations: { 'kubevirt.io/heartbeat': 't' },
        },
      },
      {
        metadata: {
          labels: { [`${INT}/schedulable`]: 'false', cpumanager: 'false' },
          annotations: { [`${INT}/heartbeat`]: 't' },
        },
      },
    ],
    [
      'label deletion with null (merge)',
      { type: 'merge', target: NODE },
      { metadata: { labels: { 'kubevirt.io/x': null } } },
      { metadata: { labels: { [`${INT}/x`]: null } } },
    ],
    [
      'custom resource status (merge): no apiVersion/kind added',
      { type: 'merge', target: VM },
      { status: { ready: true }, metadata: { finalizers: ['kubevirt.io/f'] } },
      { status: { ready: true }, metadata: { finalizers: [`${INT}/f`] } },
    ],
    [
      'deployment template (strategic)',
      { type: 'strategic', target: DEPLOY },
      { spec: { template: { metadata: { labels: { 'kubevirt.io': 'virt-api' } } } } },
      { spec: { template: { metadata: { labels: { [INT]: 'virt-api' } } } } },
    ],
    [
      'finalizer directives (strategic)',
      { type: 'strategic', target: VM },
      {
        metadata: {
          '$setElementOrder/finalizers': ['kubevirt.io/f'],
          '$deleteFromPrimitiveList/finalizers': ['kubevirt.io/g'],
        },
      },
      {
        metadata: {
          '$setElementOrder/finalizers': [`${INT}/f`],
          '$deleteFromPrimitiveList/finalizers': [`${INT}/g`],
        },
      },
    ],
    [
      'CRD names (merge, the name comes from the path)',
      { type: 'merge', target: CRD },
      { spec: { names: { shortNames: ['vm', 'vms'] } } },
      { spec: { names: { shortNames: ['intvirtvm', 'intvirtvms'] } } },
    ],
    [
      'apply keeps its own kind',
      { type: 'apply', target: VM },
      { apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', metadata: { name: 'vm1' } },
      { apiVersion: `${IG}/v1`, kind: 'InternalVirtualizationVirtualMachine', metadata: { name: 'vm1' } },
    ],
  ])('%s', (_name, { type, target: t }, patch, expected) => {
    expect(rewritePatch(deepFreeze(patch), type, t, kvRename)).toEqual(expected);
  });

  it('returns the same patch when nothing changes', () => {
    const patch = deepFreeze({ spec: { running: true } });
    expect(rewritePatch(patch, 'merge', VM, kvRename)).toBe(patch);
  });
});
