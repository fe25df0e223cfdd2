import { describe, expect, it } from '@jest/globals';
import { StatusError, newStatus } from '../../kernel/errors/errors.ts';
import {
  addVolumeBody,
  isConcurrentChange,
  removeVolumeBody,
  volumeCalls,
  type AddVolumeFlags,
  type VolumeSourceKind,
} from './volumes.ts';

const base: AddVolumeFlags = { volumeName: 'data', diskType: 'disk', bus: 'scsi' };

describe('addVolumeBody', () => {
  it.each<[string, AddVolumeFlags, VolumeSourceKind, unknown]>([
    [
      'a PVC on the SCSI bus, serial = name',
      base,
      'persistentVolumeClaim',
      {
        name: 'data',
        disk: { name: '', disk: { bus: 'scsi' }, serial: 'data' },
        volumeSource: { persistentVolumeClaim: { claimName: 'data', hotpluggable: true } },
      },
    ],
    [
      'a DataVolume as a disk name, virtio, serial, cache, dry run',
      { ...base, diskName: 'd1', bus: 'virtio', serial: '123', cache: 'none', dryRun: true },
      'dataVolume',
      {
        name: 'd1',
        disk: { name: '', disk: { bus: 'virtio' }, serial: '123', cache: 'none' },
        volumeSource: { dataVolume: { name: 'data', hotpluggable: true } },
        dryRun: ['All'],
      },
    ],
    [
      'a LUN',
      { ...base, diskType: 'lun' },
      'persistentVolumeClaim',
      {
        name: 'data',
        disk: { name: '', lun: { bus: 'scsi' }, serial: 'data' },
        volumeSource: { persistentVolumeClaim: { claimName: 'data', hotpluggable: true } },
      },
    ],
  ])('%s', (_n, flags, kind, want) => {
    expect(addVolumeBody(flags, kind)).toEqual(want);
  });

  it.each<[string, AddVolumeFlags, string]>([
    [
      'a long volume name',
      { ...base, volumeName: 'v'.repeat(64) },
      `Invalid volume name ${'v'.repeat(64)}, must not exceed 63 characters. Use in conjunction with --disk-name to specify a shorter name`,
    ],
    [
      'a long disk name',
      { ...base, diskName: 'd'.repeat(64) },
      `Invalid disk name ${'d'.repeat(64)}, must not exceed 63 characters`,
    ],
    [
      'a bad disk bus',
      { ...base, bus: 'sata' },
      "Invalid bus type 'sata' for disk. Only 'scsi' and 'virtio' are supported.",
    ],
    [
      'a LUN on virtio',
      { ...base, diskType: 'lun', bus: 'virtio' },
      "Invalid bus type 'virtio' for LUN disk. Only 'scsi' bus is supported.",
    ],
    [
      'a bad disk type',
      { ...base, diskType: 'cdrom' },
      "Invalid disk type 'cdrom'. Only LUN and Disk are supported.",
    ],
    ['a bad cache', { ...base, cache: 'unsafe' }, 'error adding volume, invalid cache value unsafe'],
  ])('refuses %s', (_n, flags, message) => {
    expect(() => addVolumeBody(flags, 'persistentVolumeClaim')).toThrow(message);
  });
});

describe('removeVolumeBody and volumeCalls', () => {
  it('names the volume, with dryRun when asked', () => {
    expect(removeVolumeBody('data', undefined)).toEqual({ name: 'data' });
    expect(removeVolumeBody('data', true)).toEqual({ name: 'data', dryRun: ['All'] });
  });

  it('goes to the VM, then the VMI', () => {
    const c = volumeCalls({ namespace: 'ns', name: 'v' }, 'removevolume', { name: 'data' });
    expect(c).toEqual({
      vm: {
        method: 'PUT',
        path: '/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachines/v/removevolume',
        body: { name: 'data' },
      },
      vmi: {
        method: 'PUT',
        path: '/apis/subresources.kubevirt.io/v1/namespaces/ns/virtualmachineinstances/v/removevolume',
        body: { name: 'data' },
      },
    });
  });
});

describe('isConcurrentChange', () => {
  it.each<[string, unknown, boolean]>([
    [
      'a failed patch test (409)',
      new StatusError(
        newStatus(
          409,
          'Operation cannot be fulfilled: jsonpatch test operation does not apply: doc is missing path',
        ),
      ),
      true,
    ],
    [
      "client-go's 422 text",
      new StatusError(newStatus(422, 'the server rejected our request due to an error in our request')),
      true,
    ],
    [
      'a duplicate volume',
      new StatusError(
        newStatus(409, 'Unable to add volume [data] because volume with that name already exists'),
      ),
      false,
    ],
    [
      'a 500 with the text',
      new StatusError(newStatus(500, 'jsonpatch test operation does not apply')),
      false,
    ],
    ['not a status', new Error('jsonpatch test operation does not apply'), false],
  ])('%s → %p', (_n, err, want) => {
    expect(isConcurrentChange(err)).toBe(want);
  });
});
