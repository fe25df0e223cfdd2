import { describe, expect, it } from '@jest/globals';
import { mountAt, parseMountInfo, visibleAt, type MountInfoEntry } from './image-mount.ts';

const CONTAINER = [
  '1210 1190 0:310 / / ro,relatime master:1 - overlay overlay rw,lowerdir=/l',
  '1211 1210 0:312 / /path rw,relatime - tmpfs tmpfs rw',
  '1215 1210 0:340 / /images/iso ro,relatime - overlay overlay rw,lowerdir=/a:/b',
  '1216 1210 0:341 / /images/with\\040space ro,relatime - overlay overlay rw',
].join('\n');

const OWN = [
  '22 1 253:1 / / rw,relatime shared:1 - ext4 /dev/vda1 rw',
  '610 22 0:340 / /run/containerd/io.containerd.grpc.v1.cri/image-volumes/sb1/d1 rw shared:300 - overlay overlay rw',
  '611 22 253:1 /var/lib/layers /layers rw - ext4 /dev/vda1 rw',
  '612 22 253:1 /var/lib/layers/12 /layer12 rw - ext4 /dev/vda1 rw',
].join('\n');

describe('mountinfo', () => {
  it('parses device, root and mount point, undoing octal escapes', () => {
    const entries = parseMountInfo(CONTAINER);
    expect(entries).toHaveLength(4);
    expect(mountAt(entries, '/images/iso')).toEqual({
      device: '0:340',
      root: '/',
      mountPoint: '/images/iso',
    });
    expect(mountAt(entries, '/images/with space')?.device).toBe('0:341');
    expect(mountAt(entries, '/images/gone')).toBeUndefined();
  });

  it('takes the last mount on a point (it hides those below)', () => {
    const text = `${CONTAINER}\n1300 1210 0:999 / /images/iso ro - overlay overlay rw`;
    expect(mountAt(parseMountInfo(text), '/images/iso')?.device).toBe('0:999');
  });
});

describe('visibleAt', () => {
  const own = parseMountInfo(OWN);
  const at = (device: string, root: string): MountInfoEntry => ({ device, root, mountPoint: '/images/x' });
  it.each<[string, MountInfoEntry, string | undefined]>([
    [
      'the runtime’s overlay for the image volume, by its own device',
      at('0:340', '/'),
      '/run/containerd/io.containerd.grpc.v1.cri/image-volumes/sb1/d1',
    ],
    [
      'a layer directory bound into the container, below a mount of ours',
      at('253:1', '/var/lib/layers/7/fs'),
      '/layers/7/fs',
    ],
    ['the mount whose root holds it most closely wins', at('253:1', '/var/lib/layers/12/fs'), '/layer12/fs'],
    ['a device we do not have', at('0:999', '/'), undefined],
    ['a root no mount of ours holds (same device)', at('0:340', '/../x'), undefined],
  ])('%s', (_, wanted, want) => {
    const got = visibleAt(wanted, own);
    if (want === undefined) expect(got).toBeUndefined();
    else expect(got).toBe(want);
  });

  it('a root of ours that only shares a prefix of a name does not hold it', () => {
    const mine = parseMountInfo('1 0 8:1 /var/lib/lay /x rw - ext4 /dev/sda1 rw');
    expect(visibleAt(at('8:1', '/var/lib/layers/1'), mine)).toBeUndefined();
  });
});
