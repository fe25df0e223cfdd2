import { describe, expect, it } from '@jest/globals';
import type { Pod } from '../core/pod.ts';
import type { VirtualMachineInstance } from '../index.ts';
import {
  onSpec,
  pod,
  podReady,
  vmi,
  withPhase,
  withPodPhase,
  withVmiCondition,
  type Option,
} from '../testing/objects.ts';
import {
  decideEviction,
  isDryRunEviction,
  markFailedMessage,
  type EvictionDecision,
  type EvictionInput,
} from './pod-eviction.ts';

const onVmiNode =
  (node: string): Option<VirtualMachineInstance> =>
  (v) => {
    (v.status ??= {}).nodeName = node;
  };

const withDomain: Option<Pod> = (p) => {
  p.metadata.annotations = { 'kubevirt.io/domain': 'testvm' };
};
const launcher = pod(withDomain, podReady('node1'));
const hotplug = pod(podReady('node1'), (p) => {
  p.metadata.name = 'hp-volume-x';
  p.metadata.labels = { 'kubevirt.io': 'hotplug-disk' };
  p.metadata.ownerReferences = [
    { apiVersion: 'v1', kind: 'Pod', name: 'virt-launcher-testvm-abcde', uid: 'pod-uid-1' },
  ];
});
const strategy = (
  s: NonNullable<VirtualMachineInstance['spec']['evictionStrategy']>,
): Option<VirtualMachineInstance> =>
  onSpec((spec) => {
    spec.evictionStrategy = s;
  });
const migratable = withVmiCondition('LiveMigratable', 'True');
const notMigratable = withVmiCondition('LiveMigratable', 'False', 'DisksNotLiveMigratable');
const running = (...opts: Option<VirtualMachineInstance>[]): VirtualMachineInstance =>
  vmi(withPhase('Running'), onVmiNode('node1'), ...opts);

const TRIGGERED = 'Eviction triggered evacuation of VMI "default/testvm"';
const denied = (message: string, evacuateNode?: string): EvictionDecision => ({
  allowed: false,
  code: 429,
  message,
  ...(evacuateNode !== undefined && { evacuateNode }),
});
const allowed: EvictionDecision = { allowed: true };
const evacuate = denied(TRIGGERED, 'node1');

const rows: [string, EvictionInput, EvictionDecision][] = [
  [
    'a Pod that is no launcher',
    { pod: pod(withDomain, (p) => (p.metadata.labels = { app: 'web' })) },
    allowed,
  ],
  ['a completed launcher', { pod: pod(withDomain, withPodPhase('Succeeded')), vmi: running() }, allowed],
  ['a failed launcher', { pod: pod(withDomain, withPodPhase('Failed')), vmi: running() }, allowed],
  ['a launcher without its domain annotation', { pod: pod(podReady('node1')) }, allowed],
  [
    'the VMI cannot be read',
    { pod: launcher, vmi: { error: 'etcdserver: request timed out' } },
    denied('kubevirt failed getting the vmi: etcdserver: request timed out'),
  ],
  [
    'the VMI is gone',
    { pod: launcher, vmi: undefined },
    denied('kubevirt failed getting the vmi: virtualmachineinstances.kubevirt.io "testvm" not found'),
  ],
  ['no eviction strategy anywhere', { pod: launcher, vmi: running(migratable) }, allowed],
  [
    'strategy None over the cluster’s LiveMigrate',
    { pod: launcher, vmi: running(migratable, strategy('None')), clusterEvictionStrategy: 'LiveMigrate' },
    allowed,
  ],
  [
    'LiveMigrate, migratable: evacuate',
    { pod: launcher, vmi: running(migratable, strategy('LiveMigrate')) },
    evacuate,
  ],
  [
    'LiveMigrate, not migratable: refuse',
    { pod: launcher, vmi: running(notMigratable, strategy('LiveMigrate')) },
    denied('VMI testvm is configured with an eviction strategy but is not live-migratable'),
  ],
  [
    'LiveMigrate, no LiveMigratable condition: refuse',
    { pod: launcher, vmi: running(strategy('LiveMigrate')) },
    denied('VMI testvm is configured with an eviction strategy but is not live-migratable'),
  ],
  [
    'LiveMigrateIfPossible, not migratable: the Pod goes',
    { pod: launcher, vmi: running(notMigratable, strategy('LiveMigrateIfPossible')) },
    allowed,
  ],
  [
    'LiveMigrateIfPossible, migratable: evacuate',
    { pod: launcher, vmi: running(migratable, strategy('LiveMigrateIfPossible')) },
    evacuate,
  ],
  [
    'External, not migratable: evacuate',
    { pod: launcher, vmi: running(notMigratable, strategy('External')) },
    evacuate,
  ],
  [
    'the cluster’s LiveMigrate: evacuate',
    { pod: launcher, vmi: running(migratable), clusterEvictionStrategy: 'LiveMigrate' },
    evacuate,
  ],
  [
    'already marked for evacuation',
    {
      pod: launcher,
      vmi: running(migratable, strategy('LiveMigrate'), (v) => {
        (v.status ??= {}).evacuationNodeName = 'node1';
      }),
    },
    denied(`Evacuation in progress: ${TRIGGERED}`),
  ],
  [
    'the migration target’s Pod',
    { pod: pod(withDomain, podReady('node2')), vmi: running(migratable, strategy('LiveMigrate')) },
    denied('Eviction request for target Pod'),
  ],
  // hotplug-disk Pods
  [
    'hotplug Pod, owner unreadable',
    { pod: hotplug, ownerPod: { error: 'timeout' } },
    denied('failed getting owner for hotplug pod: timeout'),
  ],
  ['hotplug Pod, owner gone', { pod: hotplug, ownerPod: undefined }, allowed],
  [
    'hotplug Pod, owner no launcher',
    { pod: hotplug, ownerPod: pod((p) => (p.metadata.labels = {})) },
    allowed,
  ],
  [
    'hotplug Pod, owner completed',
    { pod: hotplug, ownerPod: pod(withDomain, withPodPhase('Succeeded')) },
    allowed,
  ],
  ['hotplug Pod, owner without domain', { pod: hotplug, ownerPod: pod(podReady('node1')) }, allowed],
  [
    'hotplug Pod, VMI unreadable',
    { pod: hotplug, ownerPod: launcher, vmi: { error: 'timeout' } },
    denied('kubevirt failed getting the vmi: timeout'),
  ],
  ['hotplug Pod, VMI gone', { pod: hotplug, ownerPod: launcher, vmi: undefined }, allowed],
  [
    'hotplug Pod of a live VMI',
    { pod: hotplug, ownerPod: launcher, vmi: running() },
    denied('cannot evict hotplug pod: hp-volume-x associated with running vmi: testvm in namespace default'),
  ],
  [
    'hotplug Pod with two owners: not KubeVirt’s',
    {
      pod: pod(podReady('node1'), (p) => {
        p.metadata.labels = { 'kubevirt.io': 'hotplug-disk' };
        p.metadata.ownerReferences = [
          ...(hotplug.metadata.ownerReferences ?? []),
          ...(hotplug.metadata.ownerReferences ?? []),
        ];
      }),
      ownerPod: launcher,
      vmi: running(),
    },
    allowed,
  ],
];

describe('decideEviction', () => {
  it.each(rows)('%s', (_name, input, want) => {
    expect(decideEviction(input)).toEqual(want);
  });

  it.each<[string, boolean | undefined, unknown, boolean]>([
    ['the review’s dryRun', true, {}, true],
    ['neither', false, { deleteOptions: {} }, false],
    ['the Eviction’s deleteOptions.dryRun All', undefined, { deleteOptions: { dryRun: ['All'] } }, true],
    ['another first dryRun value', false, { deleteOptions: { dryRun: ['None', 'All'] } }, false],
    ['no Eviction', false, null, false],
  ])('is a dry run by %s: %s', (_name, review, eviction, want) => {
    expect(isDryRunEviction(review, eviction)).toBe(want);
  });

  it('answers a failed evacuation mark with KubeVirt’s message', () => {
    expect(markFailedMessage('conflict')).toBe('kubevirt failed marking the vmi for eviction: conflict');
  });
});
