import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { cachedPods, launcherPodFor } from '../testing/pods.ts';
import { launcherPodProblem, launcherPodSelectors, trustedLauncherPod } from './pods.ts';

const NODE = 'node1';

function vmiOf(
  namespace: string,
  name: string,
  uid: string,
  activePods: Record<string, string> = {},
): VirtualMachineInstance {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { namespace, name, uid },
    spec: { domain: { devices: {} } },
    status: { nodeName: NODE, activePods },
  };
}

const vmi = vmiOf('ns', 'vm', 'vmi-1');
const otherVmi = vmiOf('ns', 'other', 'vmi-2');
/** The VMI of another tenant, named with the same uid in its own namespace's Pod. */
const elsewhere = vmiOf('tenant-b', 'vm', 'vmi-1');
const own = launcherPodFor(vmi, 'pod-1', NODE);

function edited(p: Pod, edit: (p: Pod) => void): Pod {
  const out = structuredClone(p);
  edit(out);
  return out;
}

/** An attachment Pod of the VMI's launcher Pod (kubevirt.io=hotplug-disk, controlled by the launcher Pod). */
const attachment = edited(own, (p) => {
  p.metadata.labels = { 'kubevirt.io': 'hotplug-disk' };
  p.metadata.ownerReferences = [
    { apiVersion: 'v1', kind: 'Pod', name: 'virt-launcher-vm-abcde', uid: 'launcher', controller: true },
  ];
});

describe('launcherPodProblem', () => {
  it.each<[string, Pod | undefined, string | undefined]>([
    ['its own launcher Pod on this node', own, undefined],
    [
      "a Pod in another namespace with the VMI's uid as its controller",
      launcherPodFor(elsewhere, 'pod-1', NODE),
      "pod pod-1 is not in the VMI's namespace ns",
    ],
    [
      'a launcher Pod of the same namespace controlled by another VMI',
      launcherPodFor(otherVmi, 'pod-1', NODE),
      'pod pod-1 is not controlled by VMI ns/vm',
    ],
    [
      'its launcher Pod on another node',
      launcherPodFor(vmi, 'pod-1', 'node2'),
      'pod pod-1 does not run on node node1',
    ],
    ['an attachment Pod', attachment, 'pod pod-1 is not controlled by VMI ns/vm'],
    [
      'a Pod it controls without the launcher labels',
      edited(own, (p) => (p.metadata.labels = {})),
      'pod pod-1 is not labelled as the launcher pod of VMI ns/vm',
    ],
    [
      'a launcher Pod it controls labelled as created by another VMI',
      edited(own, (p) => (p.metadata.labels = { ...p.metadata.labels, 'kubevirt.io/created-by': 'vmi-2' })),
      'pod pod-1 is not labelled as the launcher pod of VMI ns/vm',
    ],
    [
      'a Pod whose owner reference to the VMI is not its controller',
      edited(own, (p) => {
        for (const r of p.metadata.ownerReferences ?? []) r.controller = false;
      }),
      'pod pod-1 is not controlled by VMI ns/vm',
    ],
    [
      'a controller of another kind with the VMI uid',
      edited(own, (p) => {
        for (const r of p.metadata.ownerReferences ?? []) r.kind = 'VirtualMachine';
      }),
      'pod pod-1 is not controlled by VMI ns/vm',
    ],
    ['no such Pod in the cache', undefined, "pod pod-1 is not a launcher pod in the node's cache"],
    [
      'a cached Pod of another uid',
      edited(own, (p) => (p.metadata.uid = 'pod-9')),
      "pod pod-1 is not a launcher pod in the node's cache",
    ],
  ])('%s', (_what, pod, want) => {
    expect(launcherPodProblem(vmi, 'pod-1', pod, NODE)).toBe(want);
  });

  it('refuses every Pod for a VMI without a uid, also one whose owner and label name no uid', () => {
    const blank = edited(own, (p) => {
      for (const r of p.metadata.ownerReferences ?? []) r.uid = '';
      p.metadata.labels = { ...p.metadata.labels, 'kubevirt.io/created-by': '' };
    });
    expect(launcherPodProblem(vmiOf('ns', 'vm', ''), 'pod-1', blank, NODE)).toBe('the VMI has no uid');
  });
});

describe('trustedLauncherPod', () => {
  const forged = launcherPodFor(elsewhere, 'pod-v', NODE);
  const at = (p: Pod, created: string): Pod =>
    edited(p, (x) => {
      x.metadata.creationTimestamp = created;
    });
  // A migration's source Pod that completed, its uid sorting after its target's.
  const source = edited(at(launcherPodFor(vmi, 'pod-z', NODE), '2026-01-01T00:00:00Z'), (p) => {
    p.status = { phase: 'Succeeded' };
  });
  const older = at(launcherPodFor(vmi, 'pod-y', NODE), '2026-01-01T00:00:00Z');
  const target = at(launcherPodFor(vmi, 'pod-a', NODE), '2026-01-02T00:00:00Z');
  const pods = cachedPods(own, forged, launcherPodFor(vmi, 'pod-0', NODE), source, older, target);
  it.each<[string, Record<string, string>, ReturnType<typeof trustedLauncherPod>]>([
    ['its own Pod', { 'pod-1': NODE }, { uid: 'pod-1' }],
    ['the newest of two own Pods here', { 'pod-0': NODE, 'pod-1': NODE }, { uid: 'pod-1' }],
    [
      'a running Pod before one that ended, whatever their uids',
      { 'pod-a': NODE, 'pod-z': NODE },
      { uid: 'pod-a' },
    ],
    ['the newer by creation, whatever their uids', { 'pod-a': NODE, 'pod-y': NODE }, { uid: 'pod-a' }],
    [
      "another tenant's Pod listed after its own: its own",
      { 'pod-1': NODE, 'pod-v': NODE },
      { uid: 'pod-1' },
    ],
    [
      "only another tenant's Pod",
      { 'pod-v': NODE },
      { refused: ["pod pod-v is not in the VMI's namespace ns"], cached: true },
    ],
    [
      'only a Pod the cache does not hold (yet)',
      { 'pod-new': NODE },
      { refused: ["pod pod-new is not a launcher pod in the node's cache"], cached: false },
    ],
    ['its own Pod listed for another node', { 'pod-1': 'node2' }, { refused: [], cached: false }],
    ['no active Pods', {}, { refused: [], cached: false }],
  ])('%s', (_what, activePods, want) => {
    expect(trustedLauncherPod(vmiOf('ns', 'vm', 'vmi-1', activePods), NODE, pods)).toEqual(want);
  });
});

describe('launcherPodSelectors', () => {
  it('selects the launcher Pods of the node', () => {
    expect(launcherPodSelectors(NODE)).toEqual({
      labelSelector: 'kubevirt.io=virt-launcher',
      fieldSelector: 'spec.nodeName=node1',
    });
  });
});
