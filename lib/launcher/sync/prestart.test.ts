import { describe, expect, it } from '@jest/globals';
import type { Disk } from '../converter/index.ts';
import { imageCommand } from './prestart.ts';

const disk = (d: Partial<Disk>): Disk => ({
  device: 'disk',
  type: 'file',
  source: { file: '/e/disk-data/v/disk.qcow2' },
  target: { bus: 'virtio', dev: 'vda' },
  driver: { name: 'qemu', type: 'qcow2' },
  readonly: false,
  shareable: false,
  alias: { name: 'v', userDefined: true },
  ...d,
});

describe('imageCommand', () => {
  it('makes a qcow2 overlay over the backing image in its format', () => {
    const d = disk({ backingStore: { type: 'file', format: 'raw', source: { file: '/c/disk_0.img' } } });
    expect(imageCommand(d, () => undefined)).toEqual([
      ...['create', '-f', 'qcow2', '-F', 'raw', '-b', '/c/disk_0.img', '/e/disk-data/v/disk.qcow2'],
    ]);
  });

  it('makes an empty disk of the volume capacity', () => {
    const d = disk({ source: { file: '/e/v.qcow2' } });
    expect(imageCommand(d, (v) => (v === 'v' ? 1048576 : undefined))).toEqual([
      ...['create', '-f', 'qcow2', '/e/v.qcow2', '1048576'],
    ]);
  });

  it.each([
    ['a block device', disk({ type: 'block', source: { dev: '/dev/v' } })],
    ['a plain image', disk({ source: { file: '/p/disk.img' } })],
  ])('leaves %s alone', (_what, d) => {
    expect(imageCommand(d, () => undefined)).toBeUndefined();
  });
});
