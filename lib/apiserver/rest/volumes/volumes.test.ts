import { describe, expect, it } from '@jest/globals';
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineVolumeRequest,
} from '../../../kubevirt/index.ts';
import { withVolume } from '../../../kubevirt/testing/builders.ts';
import { onSpec, vm, vmi, withPhase } from '../../../kubevirt/testing/objects.ts';
import type { JsonPatchOp, VmPlan } from '../patch-plan.ts';
import { badRequest, conflict, notFound, type Refusal } from '../refusal.ts';
import {
  legacy,
  declarative,
  rootDisk,
  rootVolume,
  hotVolume,
  hotDisk,
  base,
  hot,
  addPvc,
  remove,
  newVolume,
  specPatch,
  plan,
} from '../testing/volumes.ts';
import type { FeatureGates } from './volume-options.ts';
import { VMI_NOT_RUNNING } from '../messages.ts';
import { planVmiVolume, planVmVolume } from './volumes.ts';

const running = (...opts: ((v: VirtualMachineInstance) => void)[]): VirtualMachineInstance =>
  vmi(withPhase('Running'), ...opts);
const unowned = (v: VirtualMachineInstance): void => {
  delete v.metadata.ownerReferences;
};
const vmiConflict = (text: string): Refusal => conflict('virtualmachineinstance', 'testvm', text);

describe('planVmiVolume', () => {
  it.each<
    [string, VirtualMachineInstance | undefined, VirtualMachineVolumeRequest, FeatureGates, VmPlan | Refusal]
  >([
    ['no VMI', undefined, remove('v'), legacy, notFound('virtualmachineinstance', 'testvm')],
    [
      'owned by a VM, declarative only',
      running(...base),
      addPvc('v', 'c'),
      declarative,
      badRequest('VMI default/testvm is owned by a VM'),
    ],
    [
      'owned by a VM, HotplugVolumes: allowed',
      running(...base),
      addPvc('v', 'c', ['All']),
      legacy,
      plan(
        'vmi',
        'unable to patch vmi',
        specPatch(
          '',
          [[rootVolume], [rootDisk]],
          [
            [rootVolume, newVolume('v', 'c')],
            [rootDisk, { name: 'v', disk: { bus: 'scsi' } }],
          ],
        ),
        ['All'],
      ),
    ],
    [
      'a VMI of its own, declarative only, no volumes yet: add the lists',
      running(unowned),
      addPvc('v', 'c'),
      declarative,
      plan(
        'vmi',
        'unable to patch vmi',
        specPatch('', [null, null], [[newVolume('v', 'c')], [{ name: 'v', disk: { bus: 'scsi' } }]]),
      ),
    ],
    [
      'not running',
      vmi(withPhase('Scheduled'), ...base),
      addPvc('v', 'c'),
      legacy,
      vmiConflict(VMI_NOT_RUNNING),
    ],
    [
      'a volume of that name',
      running(...base),
      addPvc('root', 'c'),
      legacy,
      vmiConflict('Unable to add volume [root] because volume with that name already exists'),
    ],
    [
      'a volume using that claim',
      running(...base, ...hot),
      addPvc('v2', 'pvc-data'),
      legacy,
      vmiConflict('Unable to add volume source [pvc-data] because it already exists'),
    ],
    [
      'a containerDisk using that image (fork)',
      running(...base),
      {
        addVolumeOptions: {
          name: 'iso',
          disk: { name: 'iso' },
          volumeSource: { containerDisk: { image: 'reg/os', hotpluggable: true } },
        },
      },
      legacy,
      vmiConflict('Unable to add volume source [reg/os] because it already exists'),
    ],
    [
      'remove: not there',
      running(...base),
      remove('nope'),
      legacy,
      vmiConflict('Unable to remove volume [nope] because it does not exist'),
    ],
    [
      'remove: not hotpluggable',
      running(...base),
      remove('root'),
      legacy,
      vmiConflict('Unable to remove volume [root] because it is not hotpluggable'),
    ],
    [
      'remove by claim name names the volume in the refusal',
      running(onSpec(withVolume({ name: 'cold', persistentVolumeClaim: { claimName: 'pvc-cold' } }))),
      remove('pvc-cold'),
      legacy,
      vmiConflict('Unable to remove volume [cold] because it is not hotpluggable'),
    ],
    [
      'remove a hotplugged volume and its disk',
      running(...base, ...hot),
      remove('data'),
      legacy,
      plan(
        'vmi',
        'unable to patch vmi',
        specPatch(
          '',
          [
            [rootVolume, hotVolume],
            [rootDisk, hotDisk],
          ],
          [[rootVolume], [rootDisk]],
        ),
      ),
    ],
    [
      'remove by claim name: accepted, but nothing of that name goes (as in KubeVirt)',
      running(...base, ...hot),
      remove('pvc-data'),
      legacy,
      plan(
        'vmi',
        'unable to patch vmi',
        specPatch(
          '',
          [
            [rootVolume, hotVolume],
            [rootDisk, hotDisk],
          ],
          [
            [rootVolume, hotVolume],
            [rootDisk, hotDisk],
          ],
        ),
      ),
    ],
  ])('%s', (...row) => {
    const [, v, req, gates, want] = row;
    expect(planVmiVolume({ name: 'testvm', object: v, request: req, gates })).toEqual(want);
  });
});

const withRequests =
  (...reqs: VirtualMachineVolumeRequest[]) =>
  (v: VirtualMachine): void => {
    v.status = { ...v.status, volumeRequests: reqs };
  };
const withStatus = (v: VirtualMachine): void => {
  v.status = { printableStatus: 'Running' };
};
const vmConflict = (text: string): Refusal => conflict('virtualmachine', 'testvm', text);
const statusPatch = (
  old: VirtualMachineVolumeRequest[] | null,
  next: VirtualMachineVolumeRequest[],
): JsonPatchOp[] => [
  { op: 'test', path: '/status/volumeRequests', value: old },
  { op: old !== null && old.length > 0 ? 'replace' : 'add', path: '/status/volumeRequests', value: next },
];

describe('planVmVolume', () => {
  it.each<[string, VirtualMachine | undefined, VirtualMachineVolumeRequest, FeatureGates, VmPlan | Refusal]>([
    ['no VM', undefined, remove('v'), declarative, notFound('virtualmachine', 'testvm')],
    [
      'HotplugVolumes: a volume request on the status',
      vm(withStatus, ...base),
      addPvc('v', 'c', ['All']),
      legacy,
      plan('vm/status', 'unable to patch vm status', statusPatch(null, [addPvc('v', 'c', ['All'])]), ['All']),
    ],
    [
      'appended to pending requests',
      vm(withRequests(remove('x')), ...base),
      addPvc('v', 'c'),
      legacy,
      plan(
        'vm/status',
        'unable to patch vm status',
        statusPatch([remove('x')], [remove('x'), addPvc('v', 'c')]),
      ),
    ],
    [
      'an add of that name pending',
      vm(withRequests(addPvc('v', 'c')), ...base),
      addPvc('v', 'c2'),
      legacy,
      vmConflict('add volume request for volume [v] already exists'),
    ],
    [
      'an add while its remove is pending',
      vm(withRequests(remove('v')), ...base),
      addPvc('v', 'c'),
      legacy,
      vmConflict(
        'unable to add volume since a remove volume request for volume [v] already exists and is still being processed',
      ),
    ],
    [
      'a remove drops the pending add of that name',
      vm(withRequests(addPvc('v', 'c'), addPvc('w', 'd')), ...base, ...hot),
      remove('data'),
      legacy,
      plan(
        'vm/status',
        'unable to patch vm status',
        statusPatch(
          [addPvc('v', 'c'), addPvc('w', 'd')],
          [addPvc('v', 'c'), addPvc('w', 'd'), remove('data')],
        ),
      ),
    ],
    [
      'a second remove',
      vm(withRequests(remove('data')), ...base, ...hot),
      remove('data'),
      legacy,
      vmConflict('a remove volume request for volume [data] already exists and is still being processed'),
    ],
    [
      'checked against the template first',
      vm(withRequests(addPvc('root', 'c')), ...base),
      addPvc('root', 'c'),
      legacy,
      vmConflict('Unable to add volume [root] because volume with that name already exists'),
    ],
    [
      'a remove of a volume not in the template',
      vm(withRequests(addPvc('v', 'c')), ...base),
      remove('v'),
      legacy,
      vmConflict('Unable to remove volume [v] because it does not exist'),
    ],
    [
      'declarative only: the template is patched',
      vm(...base),
      addPvc('v', 'c'),
      declarative,
      plan(
        'vm',
        'unable to patch vm',
        specPatch(
          '/spec/template',
          [[rootVolume], [rootDisk]],
          [
            [rootVolume, newVolume('v', 'c')],
            [rootDisk, { name: 'v', disk: { bus: 'scsi' } }],
          ],
        ),
      ),
    ],
  ])('%s', (...row) => {
    const [, v, req, gates, want] = row;
    expect(planVmVolume({ name: 'testvm', object: v, request: req, gates })).toEqual(want);
  });
});
