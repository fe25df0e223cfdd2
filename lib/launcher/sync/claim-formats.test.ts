import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Identity } from '../../libvirt/daemon/identity.ts';
import type { ClaimImage, Disk, ImageFormat } from '../converter/index.ts';
import { claimDiskFormats, formatsInUse } from './claim-formats.ts';
import { QEMU_IMG } from './image-format.ts';

const claim = (volume: string, file: string, creatable = true): ClaimImage => ({
  volume,
  field: `spec.volumes[0].persistentVolumeClaim`,
  file,
  creatable,
});

const disk = (alias: string, d: Partial<Disk>): Disk => ({
  device: 'disk',
  type: 'file',
  source: {},
  target: { bus: 'virtio', dev: 'vda' },
  driver: { name: 'qemu', type: 'raw' },
  readonly: false,
  shareable: false,
  alias: { name: alias, userDefined: true },
  ...d,
});

describe('formatsInUse', () => {
  const disks = [
    disk('root', { source: { file: '/p/root/disk.img' }, driver: { name: 'qemu', type: 'qcow2' } }),
    disk('eph', {
      source: { file: '/e/disk-data/eph/disk.qcow2' },
      driver: { name: 'qemu', type: 'qcow2' },
      backingStore: { type: 'file', format: 'raw', source: { file: '/p/eph/disk.img' } },
    }),
    disk('blk', { type: 'block', source: { dev: '/dev/blk' } }),
  ];
  it.each<[string, ClaimImage, ImageFormat | undefined]>([
    ['a disk on the image', claim('root', '/p/root/disk.img'), 'qcow2'],
    ['an overlay over the image', claim('eph', '/p/eph/disk.img', false), 'raw'],
    ['an image the domain does not have', claim('new', '/p/new/disk.img'), undefined],
    ['the same volume on another file (hotplugged anew)', claim('root', '/h/root.img'), undefined],
  ])('%s', (_what, image, want) => {
    expect(formatsInUse(disks, [image]).get(image.volume)).toBe(want);
  });
});

describe('claimDiskFormats (real images, qemu-img info)', () => {
  const daemon: Identity = { uid: 65534, gid: 65534, name: 'nobody' };
  let dir = '';
  const img = (name: string, ...args: string[]): string => {
    const p = join(dir, name);
    execFileSync(QEMU_IMG, ['create', '-q', ...args.map((a) => a.replace('@', dir + '/')), p, '1M']);
    chmodSync(p, 0o644);
    return p;
  };
  const formats = (
    images: ClaimImage[],
    known = new Map<string, ImageFormat>(),
  ): Promise<Map<string, ImageFormat>> => claimDiskFormats(images, { known, identity: daemon });
  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'kv-claim-formats-'));
    chmodSync(dir, 0o755);
    writeFileSync(join(dir, 'target.raw'), '');
  });
  afterAll(() => {
    rmSync(dir, { recursive: true, force: true });
  });

  it('reads each image as what its header says: qcow2 from the importer, raw from another client', async () => {
    const out = await formats([
      claim('vd', img('vd.qcow2', '-f', 'qcow2')),
      claim('other', img('other.raw', '-f', 'raw')),
    ]);
    expect(out).toEqual(
      new Map([
        ['vd', 'qcow2'],
        ['other', 'raw'],
      ]),
    );
  });

  it('takes a missing image the launcher makes as qcow2', async () => {
    expect(await formats([claim('empty', join(dir, 'none', 'disk.img'))])).toEqual(
      new Map([['empty', 'qcow2']]),
    );
  });

  it.each([
    ['hotplugged', 'spec.volumes[0].persistentVolumeClaim'],
    ['under an overlay', 'spec.volumes[0].ephemeral'],
  ])('refuses a missing image it does not make (%s)', async (_what, field) => {
    const file = join(dir, 'gone.img');
    await expect(formats([{ ...claim('hp', file, false), field }])).rejects.toMatchObject({
      code: 'KV_ERR_CONFIG',
      message: `volume hp (${field}): its image ${file} does not exist`,
    });
  });

  it.each([
    [
      'a qcow2 image with a backing file',
      (): string => img('backed.qcow2', '-f', 'qcow2', '-F', 'raw', '-b', '@target.raw'),
      'the image names a backing file, which is not allowed',
    ],
    [
      'a qcow2 image with an external data file',
      (): string => img('data.qcow2', '-f', 'qcow2', '-o', 'data_file=@target.raw'),
      'the image names an external data file, which is not allowed',
    ],
    [
      'a vmdk image',
      (): string => img('disk.vmdk', '-f', 'vmdk'),
      'image format "vmdk" is not supported (raw or qcow2)',
    ],
  ])('refuses %s, naming the volume', async (_what, make, problem) => {
    await expect(formats([claim('vd', make())])).rejects.toMatchObject({
      code: 'KV_ERR_CONFIG',
      message: `volume vd (spec.volumes[0].persistentVolumeClaim): ${problem}`,
    });
  });

  it('never follows a symlink in place of the image', async () => {
    const link = join(dir, 'link.img');
    symlinkSync(img('linked.qcow2', '-f', 'qcow2'), link);
    await expect(formats([claim('vd', link)])).rejects.toMatchObject({
      code: 'KV_ERR_CONFIG',
      message: `volume vd (spec.volumes[0].persistentVolumeClaim): cannot read ${link}`,
    });
  });

  it('keeps the format the running domain uses and does not read its image again', async () => {
    // A raw disk whose guest wrote a qcow2 header over its first sector stays raw while it runs.
    const rewritten = img('rewritten.qcow2', '-f', 'qcow2');
    const known = new Map<string, ImageFormat>([['vd', 'raw']]);
    expect(await formats([claim('vd', rewritten), claim('new', rewritten)], known)).toEqual(
      new Map([
        ['vd', 'raw'],
        ['new', 'qcow2'],
      ]),
    );
  });
});
