import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { launcherPodFor } from '../testing/pods.ts';
import { domainUid, involvedUid, notifyVerdict, type NotifyEndpoint } from './accept.ts';

const endpoint: NotifyEndpoint = { podUid: 'pod-1', namespace: 'ns', name: 'vm', vmiUid: 'vmi-1' };

function vmi(uid: string, activePods: Record<string, string>): VirtualMachineInstance {
  return {
    apiVersion: 'kubevirt.io/v1',
    kind: 'VirtualMachineInstance',
    metadata: { namespace: 'ns', name: 'vm', uid },
    spec: { domain: { devices: {} } },
    status: { activePods },
  };
}

const mine = vmi('vmi-1', { 'pod-1': 'node1' });
const ownPod = launcherPodFor(mine, 'pod-1', 'node1');
/** Another tenant's VMI of the same name and uid, whose launcher Pod is pod-1 in its own namespace. */
const elsewhere = { ...mine, metadata: { ...mine.metadata, namespace: 'tenant-b' } };

describe('notifyVerdict', () => {
  it.each<[string, VirtualMachineInstance | undefined, string, string]>([
    ['its own VMI, cached, from its active Pod', mine, 'vmi-1', 'accept'],
    ['no uid', mine, '', 'it names no VMI uid'],
    ['a made-up uid', mine, 'random-1234', "it names another VMI than this Pod's (vmi-1)"],
    ['its VMI not in the cache', undefined, 'vmi-1', "VMI vmi-1 is not in the node's cache"],
    [
      'a VMI of the same name with another uid in the cache (recreated)',
      vmi('vmi-2', { 'pod-1': 'node1' }),
      'vmi-1',
      "VMI vmi-1 is not in the node's cache",
    ],
    [
      'a Pod that is not the VMI active Pod',
      vmi('vmi-1', { 'pod-2': 'node1' }),
      'vmi-1',
      'Pod pod-1 is not an active Pod of the VMI on this node',
    ],
    [
      'the VMI active Pod on another node',
      vmi('vmi-1', { 'pod-1': 'node2' }),
      'vmi-1',
      'Pod pod-1 is not an active Pod of the VMI on this node',
    ],
    [
      'the old and the new Pod both active here',
      vmi('vmi-1', { 'pod-0': 'node1', 'pod-1': 'node1' }),
      'vmi-1',
      'accept',
    ],
  ])('%s', (_what, cached, uid, want) => {
    const v = notifyVerdict({ endpoint, node: 'node1', cached, uid, pod: ownPod });
    expect(v.accept ? 'accept' : v.reason).toBe(want);
    if (v.accept) expect(v.vmi).toBe(cached);
  });
});

describe('notifyVerdict on the Pod an endpoint serves', () => {
  it.each<[string, Pod | undefined, string]>([
    ['its own launcher Pod', ownPod, 'accept'],
    [
      "its own VMI, but the Pod is another namespace's (the VMI's activePods forged)",
      launcherPodFor(elsewhere, 'pod-1', 'node1'),
      "pod pod-1 is not in the VMI's namespace ns",
    ],
    [
      'its own VMI, but the Pod is the launcher Pod of another VMI of the namespace',
      launcherPodFor(vmi('vmi-2', {}), 'pod-1', 'node1'),
      'pod pod-1 is not controlled by VMI ns/vm',
    ],
    [
      'its own VMI, the Pod gone from the cache',
      undefined,
      "pod pod-1 is not a launcher pod in the node's cache",
    ],
  ])('%s', (_what, pod, want) => {
    const v = notifyVerdict({ endpoint, node: 'node1', cached: mine, uid: 'vmi-1', pod });
    expect(v.accept ? 'accept' : v.reason).toBe(want);
  });
});

describe('the uid a message names', () => {
  it.each<[string, unknown, string]>([
    ['a domain', { ObjectMeta: { uid: 'u' } }, 'u'],
    ['a domain without ObjectMeta', { kind: 'Domain' }, ''],
    ['a uid that is no string', { ObjectMeta: { uid: 7 } }, ''],
    ['null', null, ''],
    ['a number', 5, ''],
  ])('domainUid of %s', (_what, domain, want) => {
    expect(domainUid(domain)).toBe(want);
  });

  it.each<[string, unknown, string]>([
    ['an event', { involvedObject: { uid: 'u' } }, 'u'],
    ['an event without involvedObject', { reason: 'x' }, ''],
    ['an array', [1], ''],
  ])('involvedUid of %s', (_what, event, want) => {
    expect(involvedUid(event)).toBe(want);
  });
});
