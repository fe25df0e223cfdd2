import { describe, expect, it } from '@jest/globals';
import type { Disk } from '../v1/disk.ts';
import type { VirtualMachineVolumeRequest } from '../v1/vm.ts';
import type { AdmissionCause } from './causes.ts';
import { ctxWith, inv, ns, raw, validSpec } from './testing/fixtures.ts';
import { validVm } from './testing/vms.ts';
import { validateVm, type VmContext } from './vm.ts';
import type { RunningVmi } from './vm-pending-requests.ts';

const F = 'Status.volumeRequests';
const ctx: VmContext = { ...ctxWith(), isKubevirtServiceAccount: true };

const add = (
  name: string,
  disk: Disk = { name, disk: { bus: 'scsi' } },
  claimName = `${name}-claim`,
): VirtualMachineVolumeRequest => ({
  addVolumeOptions: {
    name,
    disk,
    volumeSource: { persistentVolumeClaim: { claimName, hotpluggable: true } },
  },
});
const remove = (name: string): VirtualMachineVolumeRequest => ({ removeVolumeOptions: { name } });

const requests = (reqs: VirtualMachineVolumeRequest[], vmi?: RunningVmi): AdmissionCause[] => {
  const vm = validVm((v) => (v.status = { volumeRequests: reqs }));
  return validateVm(vm, vm, { ...ctx, ...(vmi !== undefined && { runningVmi: vmi }) });
};

describe('validateVm: volume requests', () => {
  it.each<[string, VirtualMachineVolumeRequest[], AdmissionCause[]]>([
    ['an add on SCSI and a remove', [add('a'), remove('b')], []],
    ['an add on virtio', [add('a', { name: 'a', disk: { bus: 'virtio' } })], []],
    ['a LUN on SCSI', [add('a', { name: 'a', lun: { bus: 'scsi' } })], []],
    ['a CD-ROM on SCSI (Deckhouse fork)', [add('a', { name: 'a', cdrom: { bus: 'scsi' } })], []],
    [
      'an add and a remove in one request',
      [{ ...add('a'), ...remove('a') }],
      [inv(F, 'VolumeRequests require either addVolumeOptions or removeVolumeOptions to be set, not both')],
    ],
    [
      'an empty request',
      [{}],
      [inv(F, 'VolumeRequests require one of either addVolumeOptions or removeVolumeOptions to be set')],
    ],
    ['the same add twice', [add('a'), add('a')], [inv(F, 'AddVolume request for [a] aleady exists')]],
    [
      'the same remove twice',
      [remove('a'), remove('a')],
      [inv(F, 'RemoveVolume request for [a] aleady exists')],
    ],
    [
      'a disk on SATA',
      [add('a', { name: 'a', disk: { bus: 'sata' } })],
      [
        inv(
          F,
          "AddVolume request for disk [a] requires bus to be 'scsi' or 'virtio'. [sata] is not permitted.",
        ),
      ],
    ],
    [
      'a LUN on virtio',
      [add('a', { name: 'a', lun: { bus: 'virtio' } })],
      [inv(F, "AddVolume request for LUN [a] requires bus to be 'scsi'. [virtio] is not permitted.")],
    ],
    [
      'a CD-ROM on SATA (Deckhouse fork, LUN wording)',
      [add('a', { name: 'a', cdrom: { bus: 'sata' } })],
      [inv(F, "AddVolume request for LUN [a] requires bus to be 'scsi'. [sata] is not permitted.")],
    ],
    [
      'a disk with no target',
      [add('a', { name: 'a' })],
      [inv(F, "AddVolume request for [a] requires diskDevice of type 'disk' or 'lun' to be used.")],
    ],
    [
      'no disk at all',
      [{ addVolumeOptions: { name: 'a', disk: raw(undefined), volumeSource: {} } }],
      [inv(F, 'AddVolume request for [a] requires the disk field to be set.')],
    ],
    [
      'IOThreads on SCSI',
      [add('a', { name: 'a', disk: { bus: 'scsi' }, dedicatedIOThread: true })],
      [inv(F, 'AddVolume request for [a] requires virtio bus for IOThreads.')],
    ],
    [
      'a name the template uses for another volume',
      [add('root')],
      [
        inv(
          F,
          'AddVolume request for [root] conflicts with an existing volume of the same name on the vmi template.',
        ),
      ],
    ],
    [
      'a request that breaks a spec rule once applied',
      [add('a', { name: 'a', disk: { bus: 'scsi' }, bootOrder: 1 })],
      [
        inv(
          'spec.template.spec.domain.devices.disks[1].bootOrder',
          'Boot order for spec.template.spec.domain.devices.disks[1].bootOrder already set for a different device.',
        ),
      ],
    ],
  ])('%s', (_name, reqs, expected) => {
    expect(requests(reqs)).toEqual(expected);
  });

  const vmiWith = (migrating: boolean): RunningVmi => {
    const spec = validSpec();
    spec.volumes?.push({
      name: 'a',
      persistentVolumeClaim: { claimName: 'other-claim', hotpluggable: true },
    });
    spec.domain.devices.disks?.push({ name: 'a', disk: { bus: 'scsi' } });
    return { spec, migrating };
  };

  it.each<[string, VirtualMachineVolumeRequest[], RunningVmi, AdmissionCause[]]>([
    ['an add the running VMI already has', [add('a', undefined, 'other-claim')], vmiWith(false), []],
    [
      'an add that clashes with a volume of the running VMI',
      [add('a')],
      vmiWith(false),
      [
        inv(
          F,
          'AddVolume request for [a] conflicts with an existing volume of the same name on currently running vmi',
        ),
      ],
    ],
    [
      'a request while the VMI migrates',
      [add('b')],
      vmiWith(true),
      [ns('spec', 'Cannot handle volume requests while VMI migration is in progress')],
    ],
  ])('%s', (_name, reqs, vmi, expected) => {
    expect(requests(reqs, vmi)).toEqual(expected);
  });
});
