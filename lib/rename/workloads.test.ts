import { describe, expect, it } from '@jest/globals';
import { rewriteDocument } from './document.ts';
import { KV, roundTrip, SYN } from './testing/round-trip-rows.ts';
import { synRename } from './testing/synthetic-rules.ts';

const IG = 'internal.virtualization.deckhouse.io';
const INT = `kubevirt.${IG}`;

describe('pods and workloads', () => {
  const affinity = (key: string, value: string, nodeKey: string, topologyKey: string): object => ({
    nodeAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: {
        nodeSelectorTerms: [
          {
            matchExpressions: [{ key: nodeKey, operator: 'In', values: ['true'] }],
            matchFields: [{ key: 'metadata.name', operator: 'In', values: ['n1'] }],
          },
        ],
      },
      preferredDuringSchedulingIgnoredDuringExecution: [
        { weight: 1, preference: { matchExpressions: [{ key, operator: 'In', values: [value] }] } },
      ],
    },
    podAntiAffinity: {
      preferredDuringSchedulingIgnoredDuringExecution: [
        {
          weight: 1,
          podAffinityTerm: {
            labelSelector: { matchExpressions: [{ key, operator: 'In', values: [value] }] },
            topologyKey,
            namespaceSelector: { matchLabels: { 'kubevirt.io': 'ns' } },
          },
        },
      ],
    },
    podAffinity: {
      requiredDuringSchedulingIgnoredDuringExecution: [
        { labelSelector: { matchLabels: { [key]: value } }, topologyKey, matchLabelKeys: [key] },
      ],
    },
  });
  const podSpec = (labelKey: string, nodeKey: string, value: string): object => ({
    nodeSelector: { [nodeKey]: 'true', 'kubernetes.io/os': 'linux' },
    affinity: affinity(labelKey, value, nodeKey, 'kubernetes.io/hostname'),
    topologySpreadConstraints: [
      {
        maxSkew: 1,
        topologyKey: 'zone',
        labelSelector: { matchLabels: { [labelKey]: value } },
        matchLabelKeys: [labelKey],
      },
    ],
    containers: [{ name: 'compute', image: 'x' }],
  });

  roundTrip(
    'Pod: nodeSelector, node and pod (anti-)affinity, topology spread; namespaceSelector untouched',
    KV,
    {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: {
        name: 'virt-launcher-vm-abcde',
        labels: { 'kubevirt.io': 'virt-launcher', 'vm.kubevirt.io/name': 'vm' },
      },
      spec: podSpec('kubevirt.io/domain', 'cpu-model.node.kubevirt.io/Haswell', 'vm'),
    },
    {
      kind: 'Pod',
      apiVersion: 'v1',
      metadata: {
        name: 'virt-launcher-vm-abcde',
        labels: { [INT]: 'virt-launcher', [`vm.${INT}/name`]: 'vm' },
      },
      spec: podSpec(`${INT}/domain`, 'cpu-model.node.virtualization.deckhouse.io/Haswell', 'vm'),
    },
  );

  const deployment = (l: string, a: string, v: string): object => ({
    kind: 'Deployment',
    apiVersion: 'apps/v1',
    metadata: { name: 'testdeployment', labels: { [l]: 'labelValue' }, annotations: { [a]: 'annoValue' } },
    spec: {
      replicas: 1,
      selector: {
        matchLabels: { [l]: 'labelValue' },
        matchExpressions: [{ key: l, operator: 'In', values: [v] }],
      },
      template: {
        metadata: { labels: { [l]: 'labelValue' }, annotations: { [a]: 'annoValue' } },
        spec: podSpec(l, l, v),
      },
    },
  });
  roundTrip(
    'Deployment (synthetic rules, the Go app_test case)',
    SYN,
    deployment('component.labelgroup.io/labelName', 'annogroup.io', 'labelValueToRename'),
    deployment('component.replacedlabelgroup.io/labelName', 'replacedanno.io', 'labelValueToRename'),
  );
  it('Deployment: key=value rules apply to matchExpressions values', () => {
    const out = rewriteDocument(deployment('labelgroup.io', 'annogroup.io', 'labelValueToRename'), synRename);
    expect(out).toMatchObject({
      spec: {
        selector: { matchExpressions: [{ key: 'replacedlabelgroup.io', values: ['renamedLabelValue'] }] },
      },
    });
  });
  for (const kind of ['StatefulSet', 'DaemonSet', 'ReplicaSet', 'Job']) {
    roundTrip(
      kind,
      KV,
      {
        kind,
        metadata: { name: 'x' },
        spec: {
          selector: { matchLabels: { 'kubevirt.io': 'a' } },
          template: { metadata: { labels: { 'kubevirt.io': 'a' } } },
        },
      },
      {
        kind,
        metadata: { name: 'x' },
        spec: {
          selector: { matchLabels: { [INT]: 'a' } },
          template: { metadata: { labels: { [INT]: 'a' } } },
        },
      },
    );
  }
  roundTrip(
    'CronJob',
    KV,
    {
      kind: 'CronJob',
      metadata: { name: 'c' },
      spec: {
        jobTemplate: {
          metadata: { labels: { 'kubevirt.io': 'a' } },
          spec: { template: { spec: { nodeSelector: { 'kubevirt.io/schedulable': 'true' } } } },
        },
      },
    },
    {
      kind: 'CronJob',
      metadata: { name: 'c' },
      spec: {
        jobTemplate: {
          metadata: { labels: { [INT]: 'a' } },
          spec: { template: { spec: { nodeSelector: { [`${INT}/schedulable`]: 'true' } } } },
        },
      },
    },
  );
  roundTrip(
    'Service selector',
    KV,
    {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 's' },
      spec: { selector: { 'kubevirt.io': 'virt-api' }, ports: [{ port: 443 }] },
    },
    {
      kind: 'Service',
      apiVersion: 'v1',
      metadata: { name: 's' },
      spec: { selector: { [INT]: 'virt-api' }, ports: [{ port: 443 }] },
    },
  );
  roundTrip(
    'PodDisruptionBudget selector',
    KV,
    {
      kind: 'PodDisruptionBudget',
      metadata: { name: 'p' },
      spec: { selector: { matchLabels: { 'kubevirt.io/created-by': 'uid' } } },
    },
    {
      kind: 'PodDisruptionBudget',
      metadata: { name: 'p' },
      spec: { selector: { matchLabels: { [`${INT}/created-by`]: 'uid' } } },
    },
  );
  roundTrip(
    'ServiceMonitor selector',
    KV,
    {
      kind: 'ServiceMonitor',
      metadata: { name: 'm' },
      spec: { selector: { matchExpressions: [{ key: 'prometheus.kubevirt.io', operator: 'Exists' }] } },
    },
    {
      kind: 'ServiceMonitor',
      metadata: { name: 'm' },
      spec: { selector: { matchExpressions: [{ key: `prometheus.${INT}`, operator: 'Exists' }] } },
    },
  );
  roundTrip(
    'PersistentVolumeClaim dataSource and dataSourceRef (synthetic, the Go core_test case)',
    SYN,
    {
      kind: 'PersistentVolumeClaim',
      apiVersion: 'v1',
      metadata: { name: 'pvc' },
      spec: {
        dataSourceRef: { apiGroup: 'original.group.io', kind: 'SomeResource', name: 'some-name' },
        dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' },
      },
    },
    {
      kind: 'PersistentVolumeClaim',
      apiVersion: 'v1',
      metadata: { name: 'pvc' },
      spec: {
        dataSourceRef: {
          apiGroup: 'prefixed.resources.group.io',
          kind: 'PrefixedSomeResource',
          name: 'some-name',
        },
        dataSource: { apiGroup: 'snapshot.storage.k8s.io', kind: 'VolumeSnapshot', name: 's' },
      },
    },
  );
  roundTrip(
    'ControllerRevision metadata and owner references',
    KV,
    {
      kind: 'ControllerRevision',
      apiVersion: 'apps/v1',
      metadata: {
        name: 'cr',
        ownerReferences: [{ apiVersion: 'kubevirt.io/v1', kind: 'VirtualMachine', name: 'vm', uid: 'u' }],
      },
      data: { spec: { 'kubevirt.io/x': 'y' } },
    },
    {
      kind: 'ControllerRevision',
      apiVersion: 'apps/v1',
      metadata: {
        name: 'cr',
        ownerReferences: [
          { apiVersion: `${IG}/v1`, kind: 'InternalVirtualizationVirtualMachine', name: 'vm', uid: 'u' },
        ],
      },
      data: { spec: { 'kubevirt.io/x': 'y' } },
    },
  );
});
