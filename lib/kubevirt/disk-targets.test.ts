import { describe, expect, it } from '@jest/globals';
import { assignDiskTargets, busOf, busPrefix, formatDeviceName } from './disk-targets.ts';
import type { Disk, DiskBus } from './v1/disk.ts';
import type { VolumeStatus } from './v1/vmi-status.ts';

describe('formatDeviceName', () => {
  it.each<[number, string]>([
    [0, 'vda'],
    [1, 'vdb'],
    [25, 'vdz'],
    [26, 'vdaa'],
    [27, 'vdab'],
    [701, 'vdzz'],
    [702, 'vdaaa'],
  ])('index %p → %p', (index, name) => {
    expect(formatDeviceName('vd', index)).toBe(name);
  });
});

describe('busPrefix and busOf', () => {
  it.each([
    ['virtio', 'vd'],
    ['sata', 'sd'],
    ['scsi', 'sd'],
    ['usb', 'sd'],
    [undefined, ''],
  ] as const)('%p → %p', (bus, prefix) => {
    expect(busPrefix(bus)).toBe(prefix);
  });

  it('takes the bus of whichever target the disk has', () => {
    expect(busOf({ name: 'a', lun: { bus: 'scsi' } })).toBe('scsi');
    expect(busOf({ name: 'b', cdrom: { bus: 'sata' } })).toBe('sata');
    expect(busOf({ name: 'c', disk: { bus: 'virtio' } })).toBe('virtio');
    expect(busOf({ name: 'd' })).toBeUndefined();
  });
});

const disk = (name: string, bus: DiskBus): Disk => ({ name, disk: { bus } });

describe('assignDiskTargets', () => {
  it.each<[string, Disk[], VolumeStatus[], Record<string, string>]>([
    ['virtio disks in order', [disk('a', 'virtio'), disk('b', 'virtio')], [], { a: 'vda', b: 'vdb' }],
    [
      'each prefix counts on its own',
      [
        disk('root', 'virtio'),
        { name: 'cd', cdrom: { bus: 'sata' } },
        disk('data', 'scsi'),
        disk('extra', 'virtio'),
      ],
      [],
      { root: 'vda', cd: 'sda', data: 'sdb', extra: 'vdb' },
    ],
    [
      'reported targets are kept and skipped for new disks',
      [disk('a', 'virtio'), disk('b', 'virtio'), disk('c', 'virtio')],
      [{ name: 'b', target: 'vda' }],
      { a: 'vdb', b: 'vda', c: 'vdc' },
    ],
    [
      'an unplugged disk leaves a gap that the next new disk fills',
      [disk('root', 'virtio'), disk('hot2', 'virtio'), disk('new', 'virtio')],
      [
        { name: 'root', target: 'vda' },
        { name: 'hot2', target: 'vdc' },
      ],
      { root: 'vda', hot2: 'vdc', new: 'vdb' },
    ],
    [
      'only disk devices keep reported targets (cdrom is renumbered)',
      [{ name: 'cd', cdrom: { bus: 'sata' } }, disk('d', 'sata')],
      [{ name: 'cd', target: 'sdb' }],
      { cd: 'sda', d: 'sdb' },
    ],
    ['empty targets in status are ignored', [disk('a', 'virtio')], [{ name: 'a', target: '' }], { a: 'vda' }],
  ])('%s', (_name, disks, status, expected) => {
    expect(Object.fromEntries(assignDiskTargets(disks, status))).toEqual(expected);
  });
});
