import { afterEach, beforeEach, describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { chmod, mkdir, mkdtemp, readdir, readFile, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withDisk, withVolume } from '../../kubevirt/testing/builders.ts';
import { toDomain, type Disk } from '../converter/index.ts';
import { testCtx, testVmi } from '../converter/testing/vmi.ts';
import type { Identity } from '../../libvirt/daemon/identity.ts';
import { QEMU_IMG } from './image-format.ts';
import { beneathRoot, imageCommand, prepareDomain, writeConfigDisks } from './prestart.ts';

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

describe('beneathRoot', () => {
  const layout = {
    privateDir: '/r/var/run/kubevirt-private',
    ephemeralDiskDir: '/r/var/run/kubevirt-ephemeral-disks',
    libvirtRuntimeDir: '/r/var/run/libvirt',
    hotplugDiskDir: '/r/var/run/kubevirt/hotplug-disks',
  };
  it.each([
    [
      '/r/var/run/kubevirt-ephemeral-disks/cloud-init-data/ns/vm',
      layout.ephemeralDiskDir,
      'cloud-init-data/ns/vm',
    ],
    ['/r/var/run/kubevirt-private/config-map-disks', layout.privateDir, 'config-map-disks'],
    ['/r/var/run/libvirt/empty-disks', layout.libvirtRuntimeDir, 'empty-disks'],
    ['/r/var/run/kubevirt-private', layout.privateDir, ''],
  ])('%s', (dir, root, rel) => {
    expect(beneathRoot(layout, dir)).toEqual({ root, rel });
  });

  it.each(['/r/var/run/kubevirt-privateer/x', '/etc', '/r/var/run'])('refuses %s', (dir) => {
    expect(() => beneathRoot(layout, dir)).toThrow("is not inside one of the launcher's directories");
  });
});

describe("preparing a domain in directories the daemons' user owns", () => {
  const daemon: Identity = { uid: 65534, gid: 65534, name: 'nobody' };
  let root = '';
  let outside = '';
  beforeEach(async () => {
    root = await mkdtemp(join(tmpdir(), 'kv-prestart-'));
    outside = await mkdtemp(join(tmpdir(), 'kv-prestart-outside-'));
    await writeFile(join(outside, 'precious'), 'precious\n');
    await chmod(root, 0o755);
  });
  afterEach(async () => {
    await rm(root, { recursive: true, force: true });
    await rm(outside, { recursive: true, force: true });
  });
  const host = async (): Promise<unknown[]> => [await readdir(outside), (await stat(outside)).uid];

  it('refuses a link planted on the way to a config ISO and writes nothing outside', async () => {
    const ctx = testCtx({ root });
    await mkdir(ctx.layout.ephemeralDiskDir, { recursive: true });
    await symlink(outside, join(ctx.layout.ephemeralDiskDir, 'cloud-init-data'));
    const vmi = testVmi(
      withDisk({ name: 'ci', cdrom: { bus: 'sata' } }),
      withVolume({ name: 'ci', cloudInitNoCloud: { userData: '#cloud-config\n' } }),
    );
    const want = await host();
    await expect(
      writeConfigDisks({ vmi, domain: toDomain(vmi, ctx), ctx, identity: daemon }),
    ).rejects.toMatchObject({ code: 'KV_ERR_UNSAFE_PATH', reason: 'symlink' });
    expect(await host()).toEqual(want);
  });

  it("makes disk images as the daemons' user, so a planted link cannot make root write elsewhere", async () => {
    const ctx = testCtx({ root });
    const vmi = testVmi(
      withDisk({ name: 'scratch', disk: { bus: 'virtio' } }),
      withVolume({ name: 'scratch', emptyDisk: { capacity: '1Mi' } }),
    );
    const domain = toDomain(vmi, ctx);
    const file = domain.devices.disks[0]?.source.file ?? '';
    await mkdir(ctx.layout.privateDir, { recursive: true });
    await mkdir(join(file, '..'), { recursive: true });
    await symlink(join(outside, 'made-by-root.img'), file);
    const want = await host();
    await expect(prepareDomain({ vmi, domain, ctx, identity: daemon })).rejects.toMatchObject({
      code: 'KV_ERR_CONFIG',
    });
    expect(await host()).toEqual(want);
  });

  it('makes the missing image of a filesystem claim as qcow2 and keeps one that is there', async () => {
    const ctx = testCtx({ root, claimDiskFormats: new Map([['data', 'raw']]) });
    const vmi = testVmi(
      withDisk({ name: 'root', disk: { bus: 'virtio' } }),
      withVolume({ name: 'root', persistentVolumeClaim: { claimName: 'vd-root' } }),
      withDisk({ name: 'data', disk: { bus: 'virtio' } }),
      withVolume({ name: 'data', persistentVolumeClaim: { claimName: 'vd-data' } }),
    );
    const info = { volumeMode: 'Filesystem', capacity: { storage: '16Mi' } };
    vmi.status = {
      volumeStatus: [
        { name: 'root', target: '', persistentVolumeClaimInfo: { claimName: 'vd-root', ...info } },
        { name: 'data', target: '', persistentVolumeClaimInfo: { claimName: 'vd-data', ...info } },
      ],
    };
    const [rootImg, dataImg] = ['root', 'data'].map((v) => join(ctx.layout.vmiDisksDir, v, 'disk.img'));
    for (const v of ['root', 'data']) await mkdir(join(ctx.layout.vmiDisksDir, v), { recursive: true });
    await writeFile(dataImg ?? '', 'raw data\n');
    await prepareDomain({ vmi, domain: toDomain(vmi, ctx), ctx, identity: daemon });
    const qemuImgInfo = (f: string): unknown =>
      JSON.parse(execFileSync(QEMU_IMG, ['info', '--output=json', f], { encoding: 'utf8' }));
    expect(qemuImgInfo(rootImg ?? '')).toMatchObject({ format: 'qcow2', 'virtual-size': 16 * 2 ** 20 });
    expect(await stat(rootImg ?? '')).toMatchObject({ uid: daemon.uid });
    expect(await readFile(dataImg ?? '', 'utf8')).toBe('raw data\n');
  });

  it("makes an empty disk owned by the daemons' user", async () => {
    const ctx = testCtx({ root });
    const vmi = testVmi(
      withDisk({ name: 'scratch', disk: { bus: 'virtio' } }),
      withVolume({ name: 'scratch', emptyDisk: { capacity: '1Mi' } }),
    );
    const domain = toDomain(vmi, ctx);
    await mkdir(ctx.layout.privateDir, { recursive: true });
    await mkdir(ctx.layout.libvirtRuntimeDir, { recursive: true });
    await prepareDomain({ vmi, domain, ctx, identity: daemon });
    const file = domain.devices.disks[0]?.source.file ?? '';
    expect(await stat(file)).toMatchObject({ uid: daemon.uid, size: expect.any(Number) as unknown });
    expect(await stat(ctx.layout.vmiPrivateDir(vmi.metadata.uid ?? ''))).toMatchObject({ uid: daemon.uid });
  });
});
