import { describe, expect, it } from '@jest/globals';
import { GATES } from './context.ts';
import { ctxWith, checkSpecRow, inv, patched, req, type Row } from './testing/fixtures.ts';
import { volumesHaveDisks } from './vmi-disk-volumes.ts';

const D = 'spec.domain.devices.disks';

describe('validateVmiSpec: disks against volumes, boot orders', () => {
  it.each<Row>([
    [
      'a disk without a volume',
      (s) => s.domain.devices.disks?.push({ name: 'data', disk: { bus: 'virtio' } }),
      [inv(`${D}[1].name`, `${D}[1].Name 'data' not found.`)],
    ],
    [
      'an empty CD-ROM without DeclarativeHotplugVolumes',
      (s) => s.domain.devices.disks?.push({ name: 'cd', cdrom: { bus: 'sata' } }),
      [
        inv(
          `${D}[1].name`,
          'DeclarativeHotplugVolumes feature gate not enabled, cannot define an empty CD-ROM disk',
        ),
      ],
    ],
    [
      'a LUN on a containerDisk',
      (s) => (s.domain.devices.disks = [{ name: 'root', lun: { bus: 'scsi' } }]),
      [inv(`${D}[0].lun`, `${D}[0].lun can only be mapped to a DataVolume or PersistentVolumeClaim volume.`)],
    ],
    [
      'a LUN on a PVC',
      (s) => {
        s.domain.devices.disks?.push({ name: 'lun', lun: { bus: 'scsi' } });
        s.volumes?.push({ name: 'lun', persistentVolumeClaim: { claimName: 'c' } });
      },
      [],
    ],
    [
      'two devices with boot order 1',
      (s) => {
        s.domain.devices.disks?.push({ name: 'data', disk: { bus: 'virtio' }, bootOrder: 1 });
        s.volumes?.push({ name: 'data', emptyDisk: { capacity: '1Gi' } });
      },
      [inv(`${D}[1].bootOrder`, `Boot order for ${D}[1].bootOrder already set for a different device.`)],
    ],
    [
      'an interface with the boot order of a disk',
      (s) => {
        const iface = s.domain.devices.interfaces?.[0];
        if (iface !== undefined) iface.bootOrder = 1;
      },
      [
        inv(
          'spec.domain.devices.interfaces[0].bootOrder',
          'Boot order for spec.domain.devices.interfaces[0].bootOrder already set for a different device.',
        ),
      ],
    ],
    [
      'an interface with boot order 0 (KubeVirt names it spec[0])',
      (s) => {
        const iface = s.domain.devices.interfaces?.[0];
        if (iface !== undefined) iface.bootOrder = 0;
      },
      [inv('spec[0].bootOrder', 'spec[0] must have a boot order > 0, if supplied')],
    ],
  ])('%s', (_name, patch, expected) => {
    checkSpecRow(patch, expected);
  });

  it('an empty CD-ROM with DeclarativeHotplugVolumes', () => {
    checkSpecRow(
      (s) => s.domain.devices.disks?.push({ name: 'cd', cdrom: { bus: 'sata' } }),
      [],
      ctxWith([GATES.DECLARATIVE_HOTPLUG_VOLUMES]),
    );
  });

  it.each<Row>([
    [
      'a downwardMetrics volume as a CD-ROM',
      (s) => {
        s.domain.devices.disks?.push({ name: 'dm', cdrom: { bus: 'sata' } });
        s.volumes?.push({ name: 'dm', downwardMetrics: {} });
      },
      [
        req(
          `${D}[1].disk`,
          `DownwardMetrics volume must be mapped to a disk, but disk is not set on ${D}[1].disk.`,
        ),
      ],
    ],
    [
      'a downwardMetrics volume on SATA',
      (s) => {
        s.domain.devices.disks?.push({ name: 'dm', disk: { bus: 'sata' } });
        s.volumes?.push({ name: 'dm', downwardMetrics: {} });
      },
      [
        inv(
          `${D}[1].disk.bus`,
          `DownwardMetrics volume must be mapped to virtio bus, but ${D}[1].disk.bus is set to sata`,
        ),
      ],
    ],
  ])('%s (DownwardMetrics on)', (_name, patch, expected) => {
    checkSpecRow(patch, expected, ctxWith([GATES.DOWNWARD_METRICS]));
  });
});

describe('volumesHaveDisks (VMIs only)', () => {
  it.each<Row>([
    ['every volume has a disk', () => undefined, []],
    [
      'a volume without a disk',
      (s) => s.volumes?.push({ name: 'data', emptyDisk: { capacity: '1Gi' } }),
      [inv('spec.domain.volumes[1].name', "spec.domain.volumes[1].name 'data' not found.")],
    ],
    [
      'a memory dump volume needs none',
      (s) => s.volumes?.push({ name: 'dump', memoryDump: { claimName: 'c' } }),
      [],
    ],
    [
      'a filesystem counts',
      (s) => {
        s.domain.devices.filesystems = [{ name: 'fs', virtiofs: {} }];
        s.volumes?.push({ name: 'fs', persistentVolumeClaim: { claimName: 'c' } });
      },
      [],
    ],
  ])('%s', (_name, patch, expected) => {
    expect(volumesHaveDisks(patched(patch), ctxWith(), 'spec')).toEqual(expected);
  });
});
