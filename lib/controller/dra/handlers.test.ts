import { describe, expect, it } from '@jest/globals';
import { Store } from '../../kernel/informer/store.ts';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { pod, vmi } from '../../kubevirt/testing/objects.ts';
import { reservingVmis } from './handlers.ts';
import { claim, devicePod } from './testing.ts';

const pods = new Store<Pod>({ freeze: true });
const launcher = pod();
pods.add(launcher);
// A device attachment Pod controlled by the launcher Pod.
const held = devicePod('hp-device-a', 'hot', 'c');
held.metadata.ownerReferences = [
  {
    apiVersion: 'v1',
    kind: 'Pod',
    name: launcher.metadata.name ?? '',
    uid: launcher.metadata.uid ?? '',
    controller: true,
  },
];
pods.add(held);
const vmis = new Store<VirtualMachineInstance>({ freeze: true });
vmis.add(vmi());
const reserved = (...r: { resource: string; name: string; uid?: string }[]): ReturnType<typeof claim> => {
  const c = claim('c');
  return { ...c, status: { ...c.status, reservedFor: r } };
};

describe('a ResourceClaim wakes', () => {
  it.each([
    [
      'the VMI of the launcher Pod it is reserved for',
      reserved({ resource: 'pods', name: 'virt-launcher-testvm-abcde', uid: 'pod-uid-1' }),
      ['default/testvm'],
    ],
    [
      'nothing for a Pod of that name with another uid',
      reserved({ resource: 'pods', name: 'virt-launcher-testvm-abcde', uid: 'other' }),
      [],
    ],
    [
      'the VMI of the launcher Pod whose device attachment Pod it is reserved for',
      reserved({ resource: 'pods', name: 'hp-device-a', uid: 'uid-hp-device-a' }),
      ['default/testvm'],
    ],
    ['nothing for a Pod the cache does not have', reserved({ resource: 'pods', name: 'gone', uid: 'x' }), []],
    [
      'nothing for a consumer that is not a Pod',
      reserved({ resource: 'jobs', name: 'virt-launcher-testvm-abcde', uid: 'pod-uid-1' }),
      [],
    ],
    ['nothing while it is reserved for no one', claim('c'), []],
  ])('%s', (_n, c, want) => {
    expect(reservingVmis(c, { vmis, pods })).toEqual(want);
  });
});
