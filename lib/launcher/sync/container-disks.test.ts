import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Volume } from '../../kubevirt/index.ts';
import { withVolume } from '../../kubevirt/testing/builders.ts';
import { testVmi } from '../converter/testing/vmi.ts';
import { findContainerDiskImages } from './container-disks.ts';

let dir = '';
const touch = (p: string): void => {
  mkdirSync(join(dir, p, '..'), { recursive: true });
  writeFileSync(join(dir, p), '');
};

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'kv-cd-'));
  touch('disk_0/disk/fedora.qcow2');
  touch('disk_1/images/custom.img');
  touch('disk_1/disk/ignored.img');
  touch('disk_2/disk/a.img');
  touch('disk_2/disk/b.img');
  mkdirSync(join(dir, 'disk_3/disk'), { recursive: true });
  mkdirSync(join(dir, 'disk_4'), { recursive: true });
  // Links as an image may hold them: inside the image, and out of it to a host file.
  touch('host/secret.img');
  touch('disk_5/images/real.img');
  mkdirSync(join(dir, 'disk_5/disk'));
  symlinkSync('/images/real.img', join(dir, 'disk_5/disk/disk.img'));
  mkdirSync(join(dir, 'disk_6/disk'), { recursive: true });
  symlinkSync(join(dir, 'host/secret.img'), join(dir, 'disk_6/disk/disk.img'));
  mkdirSync(join(dir, 'disk_7'));
  symlinkSync('../../host', join(dir, 'disk_7/disk'));
  touch('disk_8/images/real.img');
  symlinkSync('images', join(dir, 'disk_8/disk'));
});
afterAll(() => {
  rmSync(dir, { recursive: true, force: true });
});

const cd = (name: string, path?: string): Volume => ({
  name,
  containerDisk: { image: 'reg/x:1', ...(path !== undefined && { path }) },
});

function find(volumes: Volume[]): Promise<Map<string, string>> {
  return findContainerDiskImages(testVmi(...volumes.map(withVolume)), {
    containerDiskDir: (i) => join(dir, `disk_${i}`),
  });
}

describe('findContainerDiskImages', () => {
  it('takes the only file under disk/, or the given path, by volume index', async () => {
    const images = await find([
      cd('root'),
      cd('custom', '/images/custom.img'),
      { name: 'e', emptyDisk: { capacity: '1Gi' } },
    ]);
    expect(images).toEqual(
      new Map([
        ['root', join(dir, 'disk_0/disk/fedora.qcow2')],
        ['custom', join(dir, 'disk_1/images/custom.img')],
      ]),
    );
  });

  it('skips a hotpluggable containerDisk: the Pod has no image volume for it (disk_4 is empty)', async () => {
    const empty = Array.from({ length: 4 }, (_, i): Volume => ({
      name: `e${i}`,
      emptyDisk: { capacity: '1Gi' },
    }));
    const hot: Volume = { name: 'iso', containerDisk: { image: 'reg/iso:1', hotpluggable: true } };
    await expect(find([...empty, hot])).resolves.toEqual(new Map());
  });

  it('resolves links inside the image, as if it were the root', async () => {
    const volumes = (index: number, path?: string): Volume[] =>
      Array.from({ length: index + 1 }, (__, i) =>
        i === index ? cd(`v${i}`, path) : { name: `e${i}`, emptyDisk: { capacity: '1Gi' } },
      );
    expect((await find(volumes(5))).get('v5')).toBe(join(dir, 'disk_5/images/real.img'));
    expect((await find(volumes(5, '/disk/disk.img'))).get('v5')).toBe(join(dir, 'disk_5/images/real.img'));
    expect((await find(volumes(8))).get('v8')).toBe(join(dir, 'disk_8/images/real.img'));
  });

  it.each([
    [
      'a link out of the image to a host file',
      6,
      undefined,
      /spec\.volumes\[6\]\.containerDisk: \/disk\/disk\.img is not a file inside the image/,
    ],
    [
      'a given path through a link out of the image',
      6,
      'disk/disk.img',
      /spec\.volumes\[6\]\.containerDisk: path disk\/disk\.img is not in the image/,
    ],
    [
      'a disk/ that climbs out of the image',
      7,
      undefined,
      /spec\.volumes\[7\]\.containerDisk: the image has no \/disk directory/,
    ],
    [
      'two files under disk/',
      2,
      undefined,
      /spec\.volumes\[2\]\.containerDisk: more than one file in \/disk .*a\.img, b\.img.*set path/,
    ],
    ['an empty disk/', 3, undefined, /spec\.volumes\[3\]\.containerDisk: no file in \/disk of the image/],
    [
      'no disk/ directory',
      4,
      undefined,
      /spec\.volumes\[4\]\.containerDisk: the image has no \/disk directory/,
    ],
    [
      'a path that is not in the image',
      0,
      '/nope.img',
      /spec\.volumes\[0\]\.containerDisk: path \/nope\.img is not in the image/,
    ],
    [
      'a path that is a directory',
      0,
      'disk',
      /spec\.volumes\[0\]\.containerDisk: path disk in the image is not a file/,
    ],
  ])('refuses %s, naming the volume', async (_, index, path, message) => {
    const volumes = Array.from({ length: index + 1 }, (__, i) =>
      i === index ? cd(`v${i}`, path) : { name: `e${i}`, emptyDisk: { capacity: '1Gi' } },
    );
    await expect(find(volumes)).rejects.toThrow(message);
  });
});
