import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { mkdir, mkdtemp, readdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { VolumeStatus } from '../../kubevirt/index.ts';
import { testVmi } from '../converter/testing/vmi.ts';
import type { ClaimImage } from '../converter/index.ts';
import type { Identity } from '../../libvirt/daemon/identity.ts';
import { claimImageBytes, createClaimImage, fitToSpace } from './claim-image.ts';
import { QEMU_IMG } from './image-format.ts';

const MIB = 1024 * 1024;
const GIB = 1024 * MIB;

function withClaim(info: VolumeStatus['persistentVolumeClaimInfo']): ReturnType<typeof testVmi> {
  const vmi = testVmi();
  vmi.status = {
    volumeStatus: [{ name: 'v', target: '', ...(info !== undefined && { persistentVolumeClaimInfo: info }) }],
  };
  return vmi;
}

describe('claimImageBytes (KubeVirt ReplacePVCByHostDisk)', () => {
  it.each<[string, VolumeStatus['persistentVolumeClaimInfo'], unknown]>([
    ['the capacity when nothing is requested', { capacity: { storage: '10Gi' } }, { bytes: 10 * GIB }],
    [
      'the request when below the capacity',
      { capacity: { storage: '10Gi' }, requests: { storage: '8Gi' } },
      { bytes: 8 * GIB },
    ],
    [
      'the capacity when below the request',
      { capacity: { storage: '5Gi' }, requests: { storage: '8Gi' } },
      { bytes: 5 * GIB },
    ],
    ['the request when no capacity is reported', { requests: { storage: '3Gi' } }, { bytes: 3 * GIB }],
    ['1 MiB-aligned down', { capacity: { storage: '10G' } }, { bytes: 9536 * MIB }],
    [
      'not below 1 MiB',
      { capacity: { storage: '1000Ki' } },
      { problem: 'its size of 1024000 bytes is below 1 MiB' },
    ],
    [
      'neither',
      { claimName: 'c' },
      { problem: 'its claim reports neither a storage capacity nor a storage request' },
    ],
    [
      'no claim info',
      undefined,
      { problem: 'its claim reports neither a storage capacity nor a storage request' },
    ],
  ])('%s', (_what, info, want) => {
    expect(claimImageBytes(withClaim(info), 'v')).toEqual(want);
  });
});

describe('fitToSpace (KubeVirt shrinkRequestedSize)', () => {
  it.each<[string, number, number, unknown]>([
    ['all of it when it fits', 10 * GIB, 20 * GIB, { bytes: 10 * GIB }],
    ['all of it when it just fits', 10 * GIB, 10 * GIB, { bytes: 10 * GIB }],
    [
      'what there is, 1 MiB-aligned, within 10%',
      10 * GIB,
      10 * GIB - 5 * MIB - 7,
      { bytes: 10 * GIB - 6 * MIB },
    ],
    ['what there is at exactly 10% short', 10 * MIB, 9 * MIB, { bytes: 9 * MIB }],
    [
      'nothing when more than 10% short',
      10 * GIB,
      9 * GIB - 1,
      {
        problem: `not enough space: ${10 * GIB} bytes asked, ${9 * GIB - 1} bytes available, more than 10% short`,
      },
    ],
  ])('%s', (_what, requested, available, want) => {
    expect(fitToSpace(requested, available, 10)).toEqual(want);
  });
});

describe('createClaimImage (real qemu-img, in a directory another party writes)', () => {
  const daemon: Identity = { uid: 65534, gid: 65534, name: 'nobody' };
  let root = '';
  let outside = '';
  const layout = (): { vmiDisksDir: string } => ({ vmiDisksDir: join(root, 'vmi-disks') });
  const image: ClaimImage = {
    volume: 'v',
    field: 'spec.volumes[0].persistentVolumeClaim',
    file: '',
    creatable: true,
  };
  const create = (size: string, file = join(layout().vmiDisksDir, 'v', 'disk.img')): Promise<void> =>
    createClaimImage({
      image: { ...image, file },
      vmi: withClaim({ capacity: { storage: size } }),
      layout: layout(),
      identity: daemon,
    });
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'kv-claim-image-test-'));
    outside = await mkdtemp(join(tmpdir(), 'kv-claim-image-outside-'));
    await mkdir(join(root, 'vmi-disks', 'v'), { recursive: true });
    await writeFile(join(outside, 'precious'), 'precious\n');
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });

  it("makes a qcow2 image of the claim's size, the daemons' user's", async () => {
    await create('64Mi');
    const file = join(layout().vmiDisksDir, 'v', 'disk.img');
    const info = JSON.parse(
      execFileSync(QEMU_IMG, ['info', '--output=json', file], { encoding: 'utf8' }),
    ) as {
      format: string;
      'virtual-size': number;
      'backing-filename'?: string;
    };
    expect(info).toMatchObject({ format: 'qcow2', 'virtual-size': 64 * MIB });
    expect(info['backing-filename']).toBeUndefined();
    const st = await stat(file);
    expect({ uid: st.uid, gid: st.gid, mode: st.mode & 0o777 }).toEqual({
      uid: 65534,
      gid: 65534,
      mode: 0o660,
    });
  });

  it('never writes through a symlink planted in its place, nor over an image that appeared', async () => {
    const file = join(layout().vmiDisksDir, 'v', 'disk.img');
    await symlink(join(outside, 'made.img'), file);
    await expect(create('64Mi')).rejects.toMatchObject({ code: 'KV_ERR_CONFIG' });
    expect(await readdir(outside)).toEqual(['precious']);
    await rm(file);
    await writeFile(file, 'raw data\n');
    await expect(create('64Mi')).rejects.toMatchObject({
      message: `volume v (spec.volumes[0].persistentVolumeClaim): cannot make its image ${file}`,
    });
    expect((await stat(file)).size).toBe(9);
  });

  it('never enters a claim directory that is a symlink', async () => {
    await rm(join(layout().vmiDisksDir, 'v'), { recursive: true });
    await symlink(outside, join(layout().vmiDisksDir, 'v'));
    await expect(create('64Mi')).rejects.toMatchObject({ code: 'KV_ERR_UNSAFE_PATH', reason: 'symlink' });
    expect(await readdir(outside)).toEqual(['precious']);
  });

  it('refuses a claim whose filesystem has far less space than asked', async () => {
    await expect(create('1Pi')).rejects.toMatchObject({
      code: 'KV_ERR_CONFIG',
      message: expect.stringMatching(
        /^volume v \(spec\.volumes\[0\]\.persistentVolumeClaim\): cannot make its image: not enough space: /,
      ) as unknown,
    });
    expect(await readdir(join(layout().vmiDisksDir, 'v'))).toEqual([]);
  });

  it('refuses a claim of no known size, naming the volume', async () => {
    await expect(
      createClaimImage({
        image: { ...image, file: join(root, 'vmi-disks/v/disk.img') },
        vmi: testVmi(),
        layout: layout(),
        identity: daemon,
      }),
    ).rejects.toMatchObject({
      message:
        'volume v (spec.volumes[0].persistentVolumeClaim): cannot size its image: its claim reports neither a storage capacity nor a storage request',
    });
  });
});
