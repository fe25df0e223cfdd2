import { describe, it } from '@jest/globals';
import type { Disk } from '../v1/disk.ts';
import { checkSpecRow, inv, ns, raw, type Row, type Spec } from './testing/fixtures.ts';

const D = 'spec.domain.devices.disks';
/** KubeVirt builds some disk fields from the disks path with domain.devices.disks appended again. */
const DD = `${D}.domain.devices.disks`;

/** A second disk `data` on an emptyDisk volume, with the given fields. */
const withData =
  (disk: Partial<Disk>): ((s: Spec) => void) =>
  (s) => {
    (s.domain.devices.disks ??= []).push({ name: 'data', ...disk });
    (s.volumes ??= []).push({ name: 'data', emptyDisk: { capacity: '1Gi' } });
  };

describe('validateVmiSpec: each disk', () => {
  it.each<Row>([
    ['a plain second disk', withData({ disk: { bus: 'scsi' } }), []],
    [
      'two disks of one name',
      (s) => s.domain.devices.disks?.push({ name: 'root', disk: { bus: 'virtio' } }),
      [inv(`${D}[1].name`, `${D}[1] and ${D}[0] must not have the same Name.`)],
    ],
    [
      'two targets',
      withData({ disk: { bus: 'virtio' }, cdrom: { bus: 'sata' } }),
      [inv(`${D}[1]`, `${D}[1] can only have a single target type defined`)],
    ],
    [
      'a PCI address on a SCSI disk',
      withData({ disk: { bus: 'scsi', pciAddress: '0000:81:01.1' } }),
      [
        inv(
          `${DD}.disk[1].pciAddress`,
          `disk ${DD}.disk[1].name - setting a PCI address is only possible with bus type virtio.`,
        ),
      ],
    ],
    [
      'a malformed PCI address',
      withData({ disk: { bus: 'virtio', pciAddress: '81:01.1' } }),
      [inv(`${DD}.disk[1].pciAddress`, `disk ${DD}.disk[1].name has malformed PCI address (81:01.1).`)],
    ],
    [
      'boot order 0',
      withData({ disk: { bus: 'virtio' }, bootOrder: 0 }),
      [inv(`${D}[1].bootOrder`, `${D}[1] must have a boot order > 0, if supplied`)],
    ],
    [
      'an IDE bus',
      withData({ disk: { bus: raw('ide') } }),
      [inv(`${D}[1].disk.bus`, 'IDE bus is not supported')],
    ],
    [
      'a virtio CD-ROM',
      withData({ cdrom: { bus: 'virtio' } }),
      [inv(`${D}[1].cdrom.bus`, 'Bus type virtio is invalid for CD-ROM device')],
    ],
    [
      'a read-only SATA disk',
      withData({ disk: { bus: 'sata', readonly: true } }),
      [inv(`${D}[1].disk.bus`, 'sata hard-disks do not support read-only.')],
    ],
    [
      'an unknown bus',
      withData({ cdrom: { bus: raw('floppy') } }),
      [
        inv(
          `${D}[1].cdrom.bus`,
          `${D}[1] is set with an unrecognized bus floppy, must be one of: [virtio scsi sata usb]`,
        ),
      ],
    ],
    [
      'a dedicated IO thread on SATA',
      withData({ disk: { bus: 'sata' }, dedicatedIOThread: true }),
      [ns(`${DD}[1]`, 'IOThreads are not supported for disks on a sata bus')],
    ],
    [
      'a serial with a space',
      withData({ disk: { bus: 'virtio' }, serial: 'my serial' }),
      [
        inv(
          `${D}[1].serial`,
          `${D}[1] must be made up of the following characters [A-Za-z0-9_.+-], if specified`,
        ),
      ],
    ],
    [
      'a SCSI serial over 36 bytes (Deckhouse fork)',
      withData({ disk: { bus: 'scsi' }, serial: 'x'.repeat(37) }),
      [
        inv(
          `${D}[1].serial`,
          `SCSI device serial should not be more than 36 symbols. Got 37 (${'x'.repeat(37)}) for disk ${D}[1]`,
        ),
      ],
    ],
    [
      'a serial over 256 bytes (Deckhouse fork)',
      withData({ disk: { bus: 'virtio' }, serial: 's'.repeat(257) }),
      [
        inv(
          `${D}[1].serial`,
          `disk serial should not be more than 256 symbols. Got 257 (${'s'.repeat(257)}) for disk ${D}[1].`,
        ),
      ],
    ],
    [
      'an unknown cache mode',
      withData({ disk: { bus: 'virtio' }, cache: raw('unsafe') }),
      [inv(`${D}[1].cache`, `${D}[1].cache has invalid value unsafe`)],
    ],
    [
      'an unknown IO mode',
      withData({ disk: { bus: 'virtio' }, io: raw('io_uring') }),
      [ns(`${DD}[1].io`, `Disk IO mode for ${D} is not supported. Supported modes are: native, threads.`)],
    ],
    [
      'an unknown error policy',
      withData({ disk: { bus: 'virtio' }, errorPolicy: raw('retry') }),
      [inv(`${D}[1].errorPolicy`, `${D}[1].errorPolicy has invalid value "retry"`)],
    ],
    [
      'a disk name that is no DNS label',
      (s) => {
        s.domain.devices.disks = [{ name: 'Root', disk: { bus: 'virtio' } }];
        s.volumes = [{ name: 'Root', emptyDisk: { capacity: '1Gi' } }];
      },
      [
        inv(
          `${DD}[0].name`,
          "a lowercase RFC 1123 label must consist of lower case alphanumeric characters or '-', and must start and end with an alphanumeric character (e.g. 'my-name',  or '123-abc', regex used for validation is '[a-z0-9]([-a-z0-9]*[a-z0-9])?')",
        ),
      ],
    ],
    [
      'custom block size with volume matching on',
      withData({
        disk: { bus: 'virtio' },
        blockSize: { custom: { logical: 512, physical: 512 }, matchVolume: {} },
      }),
      [inv(`${D}[1].blockSize`, "Block size matching can't be enabled together with a custom value")],
    ],
    [
      'logical block size above physical',
      withData({ disk: { bus: 'virtio' }, blockSize: { custom: { logical: 4096, physical: 512 } } }),
      [
        inv(
          `${D}[1].blockSize.custom.logical`,
          'Logical size 4096 must be the same or less than the physical size of 512',
        ),
      ],
    ],
    [
      'block sizes out of range or not a power of 2',
      withData({ disk: { bus: 'virtio' }, blockSize: { custom: { logical: 256, physical: 3000 } } }),
      [
        inv(
          `${D}[1].blockSize.custom.logical`,
          'Provided size of 256 is less than the supported minimum size of 512',
        ),
        inv(`${D}[1].blockSize.custom.physical`, 'Provided size of 3000 is not a power of 2'),
      ],
    ],
    [
      'block size above the maximum',
      withData({ disk: { bus: 'virtio' }, blockSize: { custom: { logical: 512, physical: 4194304 } } }),
      [
        inv(
          `${D}[1].blockSize.custom.physical`,
          'Provided size of 4194304 is greater than the supported maximum size of 2097152',
        ),
      ],
    ],
  ])('%s', (_name, patch, expected) => {
    checkSpecRow(patch, expected);
  });
});
