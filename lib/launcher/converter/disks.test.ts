import { describe, expect, it } from '@jest/globals';
import type { Disk as VmiDisk, Volume, VolumeStatus } from '../../kubevirt/index.ts';
import { withDisk, withSpec, withVolume } from '../../kubevirt/testing/builders.ts';
import type { ConverterContextOptions } from './context.ts';
import { deviceIndex } from './disk-device.ts';
import { claimImages, disksConfigurator } from './disks.ts';
import type { Disk } from './domain-spec.ts';
import { runConfigurator, testCtx, testVmi } from './testing/vmi.ts';

type CtxOpts = Partial<ConverterContextOptions>;

function convertDisks(
  disks: VmiDisk[],
  volumes: Volume[],
  ctx: CtxOpts = {},
  statuses: VolumeStatus[] = [],
): Disk[] {
  const vmi = testVmi(...disks.map(withDisk), ...volumes.map(withVolume));
  if (statuses.length > 0) vmi.status = { volumeStatus: statuses };
  return runConfigurator(disksConfigurator, vmi, testCtx(ctx)).devices.disks;
}

function only(
  disk: VmiDisk,
  volume: Volume | undefined,
  ctx: CtxOpts = {},
  statuses: VolumeStatus[] = [],
): Disk {
  const [d] = convertDisks([disk], volume ? [volume] : [], ctx, statuses);
  if (d === undefined) throw new Error('no disk rendered');
  return d;
}

/** The context options and volume statuses a row converts with. */
interface Setup {
  readonly ctx: CtxOpts;
  readonly statuses: VolumeStatus[];
}

const pvc = (name: string): Volume => ({ name, persistentVolumeClaim: { claimName: `${name}-claim` } });
const blockStatus = (name: string): VolumeStatus => ({
  name,
  target: '',
  persistentVolumeClaimInfo: { volumeMode: 'Block' },
});

describe('volume sources', () => {
  it.each<[string, Volume, Setup, Partial<Disk>]>([
    [
      'PVC, filesystem mode',
      pvc('v'),
      { ctx: {}, statuses: [] },
      { type: 'file', source: { file: '/var/run/kubevirt-private/vmi-disks/v/disk.img' } },
    ],
    [
      'PVC, block mode from the volume status',
      pvc('v'),
      { ctx: {}, statuses: [blockStatus('v')] },
      { type: 'block', source: { dev: '/dev/v' } },
    ],
    [
      'PVC, block mode from the context',
      pvc('v'),
      { ctx: { blockVolumes: new Set(['v']) }, statuses: [] },
      { type: 'block', source: { dev: '/dev/v' } },
    ],
    [
      'dataVolume as a PVC',
      { name: 'v', dataVolume: { name: 'dv' } },
      { ctx: { root: '/r' }, statuses: [] },
      { type: 'file', source: { file: '/r/var/run/kubevirt-private/vmi-disks/v/disk.img' } },
    ],
    [
      'hostDisk',
      { name: 'v', hostDisk: { path: '/data/images/a.img', type: 'Disk' } },
      { ctx: {}, statuses: [] },
      { type: 'file', source: { file: '/var/run/kubevirt-private/vmi-disks/v/a.img' } },
    ],
    [
      'emptyDisk',
      { name: 'v', emptyDisk: { capacity: '1Gi' } },
      { ctx: {}, statuses: [] },
      { type: 'file', source: { file: '/var/run/libvirt/empty-disks/v.qcow2' } },
    ],
    [
      'cloudInitNoCloud',
      { name: 'v', cloudInitNoCloud: { userData: '#cloud-config' } },
      { ctx: {}, statuses: [] },
      { source: { file: '/var/run/kubevirt-ephemeral-disks/cloud-init-data/default/testvmi/noCloud.iso' } },
    ],
    [
      'cloudInitConfigDrive',
      { name: 'v', cloudInitConfigDrive: { userData: '#cloud-config' } },
      { ctx: {}, statuses: [] },
      {
        source: { file: '/var/run/kubevirt-ephemeral-disks/cloud-init-data/default/testvmi/configdrive.iso' },
      },
    ],
    [
      'configMap',
      { name: 'v', configMap: { name: 'cm' } },
      { ctx: {}, statuses: [] },
      { source: { file: '/var/run/kubevirt-private/config-map-disks/v.iso' } },
    ],
    [
      'secret',
      { name: 'v', secret: { secretName: 's' } },
      { ctx: {}, statuses: [] },
      { source: { file: '/var/run/kubevirt-private/secret-disks/v.iso' } },
    ],
    [
      'serviceAccount',
      { name: 'v', serviceAccount: { serviceAccountName: 'sa' } },
      { ctx: {}, statuses: [] },
      { source: { file: '/var/run/kubevirt-private/service-account-disk/service-account.iso' } },
    ],
    [
      'hotplugged PVC, filesystem',
      { name: 'v', persistentVolumeClaim: { claimName: 'c', hotpluggable: true } },
      {
        ctx: {},
        statuses: [{ name: 'v', target: '', phase: 'Ready', hotplugVolume: { attachPodName: 'hp' } }],
      },
      { type: 'file', source: { file: '/var/run/kubevirt/hotplug-disks/v.img' } },
    ],
    [
      'hotplugged PVC, block',
      pvc('v'),
      {
        ctx: { hotplugVolumes: new Set(['v']), blockVolumes: new Set(['v']) },
        statuses: [{ name: 'v', target: '', phase: 'MountedToPod' }],
      },
      { type: 'block', source: { dev: '/var/run/kubevirt/hotplug-disks/v' } },
    ],
  ])('%s', (_, volume, setup, expected) => {
    const d = only({ name: 'v', disk: { bus: 'virtio' } }, volume, setup.ctx, setup.statuses);
    expect(d).toMatchObject(expected);
  });

  it('a containerDisk is a qcow2 overlay over the file found in its image volume, in the format the context knows', () => {
    const vmis: Volume[] = [pvc('first'), { name: 'cd', containerDisk: { image: 'quay.io/x:1' } }];
    const disks = convertDisks([{ name: 'cd', disk: { bus: 'virtio' } }], vmis, {
      root: '/r',
      containerDiskFormats: new Map([['cd', 'qcow2']]),
      containerDiskImages: new Map([['cd', '/r/var/run/kubevirt-image-volume/disk_1/disk/f.qcow2']]),
    });
    expect(disks[0]).toMatchObject({
      type: 'file',
      source: { file: '/r/var/run/kubevirt-ephemeral-disks/disk-data/cd/disk.qcow2' },
      driver: { type: 'qcow2', discard: 'unmap' },
      backingStore: {
        type: 'file',
        format: 'qcow2',
        source: { file: '/r/var/run/kubevirt-image-volume/disk_1/disk/f.qcow2' },
      },
    });
  });

  it('an ephemeral volume overlays its PVC (a raw block device here)', () => {
    const d = only(
      { name: 'e', disk: { bus: 'virtio' } },
      { name: 'e', ephemeral: { persistentVolumeClaim: { claimName: 'golden' } } },
      { blockVolumes: new Set(['e']) },
    );
    expect(d).toMatchObject({
      type: 'file',
      source: { file: '/var/run/kubevirt-ephemeral-disks/disk-data/e/disk.qcow2' },
      driver: { type: 'qcow2' },
      backingStore: { type: 'block', format: 'raw', source: { dev: '/dev/e' } },
    });
  });

  it('leaves out a hotplugged disk until its volume is mounted', () => {
    const statuses: VolumeStatus[] = [{ name: 'v', target: '', phase: 'AttachedToNode', hotplugVolume: {} }];
    expect(convertDisks([{ name: 'v', disk: { bus: 'scsi' } }], [pvc('v')], {}, statuses)).toEqual([]);
  });

  it('a CD-ROM without a volume is an empty drive', () => {
    expect(only({ name: 'iso', cdrom: { bus: 'sata' } }, undefined)).toMatchObject({
      device: 'cdrom',
      type: 'block',
      source: {},
      readonly: true,
      target: { bus: 'sata', dev: 'sda', tray: 'closed' },
    });
  });
});

describe('filesystem claims in the format the launcher found', () => {
  const hotplugged: VolumeStatus = {
    name: 'v',
    target: '',
    phase: 'Ready',
    hotplugVolume: { attachPodName: 'hp' },
  };
  const ephemeral: Volume = { name: 'v', ephemeral: { persistentVolumeClaim: { claimName: 'golden' } } };
  const qcow2 = { claimDiskFormats: new Map([['v', 'qcow2' as const]]) };
  it.each<[string, Volume, Setup, Partial<Disk>]>([
    [
      'a PVC found qcow2',
      pvc('v'),
      { ctx: qcow2, statuses: [] },
      { driver: { name: 'qemu', type: 'qcow2' } },
    ],
    [
      'a dataVolume found raw',
      { name: 'v', dataVolume: { name: 'dv' } },
      { ctx: { claimDiskFormats: new Map([['v', 'raw']]) }, statuses: [] },
      { driver: { name: 'qemu', type: 'raw' } },
    ],
    [
      'a PVC no one looked at: raw',
      pvc('v'),
      { ctx: {}, statuses: [] },
      { driver: { name: 'qemu', type: 'raw' } },
    ],
    [
      'a block PVC: raw whatever is said',
      pvc('v'),
      { ctx: qcow2, statuses: [blockStatus('v')] },
      { type: 'block', driver: { name: 'qemu', type: 'raw' } },
    ],
    [
      'a hotplugged PVC found qcow2',
      pvc('v'),
      { ctx: qcow2, statuses: [hotplugged] },
      { source: { file: '/var/run/kubevirt/hotplug-disks/v.img' }, driver: { name: 'qemu', type: 'qcow2' } },
    ],
    [
      'an ephemeral overlay over a PVC found qcow2',
      ephemeral,
      { ctx: qcow2, statuses: [] },
      {
        driver: { name: 'qemu', type: 'qcow2' },
        backingStore: {
          type: 'file',
          format: 'qcow2',
          source: { file: '/var/run/kubevirt-private/vmi-disks/v/disk.img' },
        },
      },
    ],
  ])('%s', (_, volume, setup, expected) => {
    const d = only({ name: 'v', disk: { bus: 'virtio' } }, volume, setup.ctx, setup.statuses);
    expect(d).toMatchObject(expected);
  });

  it('lists the images the launcher looks at: filesystem claims in disk order, hotplugged ones once mounted', () => {
    const volumes: Volume[] = [
      { name: 'cd', containerDisk: { image: 'reg/x:1' } },
      pvc('blk'),
      { ...ephemeral, name: 'eph' },
      pvc('hp'),
      pvc('late'),
      { name: 'dv', dataVolume: { name: 'dv' } },
      pvc('root'),
      pvc('unused'),
    ];
    const vmi = testVmi(
      ...['root', 'cd', 'blk', 'eph', 'hp', 'late', 'dv', 'ghost'].map((name) => withDisk({ name })),
      ...volumes.map(withVolume),
    );
    vmi.status = {
      volumeStatus: [
        blockStatus('blk'),
        { ...hotplugged, name: 'hp' },
        { ...hotplugged, name: 'late', phase: 'AttachedToNode' },
      ],
    };
    const dir = '/r/var/run/kubevirt-private/vmi-disks';
    expect(claimImages(vmi, testCtx({ root: '/r' }))).toEqual([
      {
        volume: 'root',
        field: 'spec.volumes[6].persistentVolumeClaim',
        file: `${dir}/root/disk.img`,
        creatable: true,
      },
      { volume: 'eph', field: 'spec.volumes[2].ephemeral', file: `${dir}/eph/disk.img`, creatable: false },
      {
        volume: 'hp',
        field: 'spec.volumes[3].persistentVolumeClaim',
        file: '/r/var/run/kubevirt/hotplug-disks/hp.img',
        creatable: false,
      },
      { volume: 'dv', field: 'spec.volumes[5].dataVolume', file: `${dir}/dv/disk.img`, creatable: true },
    ]);
  });
});

describe('hotplugged containerDisks (the Deckhouse fork)', () => {
  const iso: Volume = { name: 'iso', containerDisk: { image: 'dvcr/cvi/iso:1', hotpluggable: true } };
  const mounted = (phase: string): VolumeStatus => ({
    name: 'iso',
    target: '',
    phase,
    hotplugVolume: { attachPodName: 'hp-volume-a', attachPodUID: 'u' },
    containerDiskVolume: {},
  });
  const file = '/var/run/kubevirt/hotplug-disks/iso.img';

  it.each<[string, VmiDisk, CtxOpts, Partial<Disk>]>([
    [
      'a CD-ROM: the image file, read-only, raw unless found otherwise',
      { name: 'iso', cdrom: { bus: 'scsi' } },
      {},
      {
        device: 'cdrom',
        type: 'file',
        source: { file },
        readonly: true,
      },
    ],
    [
      'a disk: the image itself read-only in the format found, no overlay, no discard',
      { name: 'iso', disk: { bus: 'scsi' } },
      { claimDiskFormats: new Map([['iso', 'qcow2']]) },
      { device: 'disk', type: 'file', source: { file }, readonly: true },
    ],
  ])('%s', (_, disk, ctx, want) => {
    const d = only(disk, iso, ctx, [mounted('Ready')]);
    expect(d).toMatchObject(want);
    expect(d.driver.type).toBe(ctx.claimDiskFormats?.get('iso') ?? 'raw');
    expect(d.backingStore).toBeUndefined();
    expect(d.driver.discard).toBeUndefined();
  });

  it('a disk gets qcow2 from the launcher', () => {
    const d = only(
      { name: 'iso', disk: { bus: 'scsi' } },
      iso,
      { claimDiskFormats: new Map([['iso', 'qcow2']]) },
      [mounted('MountedToPod')],
    );
    expect(d.driver.type).toBe('qcow2');
  });

  it.each(['AttachedToNode', 'Pending', undefined])('is not in the domain while %s', (phase) => {
    const status = phase === undefined ? [] : [{ ...mounted(phase) }];
    expect(convertDisks([{ name: 'iso', cdrom: { bus: 'scsi' } }], [iso], {}, status)).toEqual([]);
  });

  it('is listed for the launcher to read its format once mounted, never to be created', () => {
    const vmi = testVmi(withDisk({ name: 'iso', cdrom: { bus: 'scsi' } }), withVolume(iso));
    vmi.status = { volumeStatus: [mounted('MountedToPod')] };
    expect(claimImages(vmi, testCtx({ root: '/r' }))).toEqual([
      { volume: 'iso', field: 'spec.volumes[0].containerDisk', file: `/r${file}`, creatable: false },
    ]);
    vmi.status = { volumeStatus: [mounted('AttachedToNode')] };
    expect(claimImages(vmi, testCtx({ root: '/r' }))).toEqual([]);
  });
});

describe('disk devices', () => {
  it('names devices per bus prefix in disk order, keeping targets from the volume status', () => {
    const disks: VmiDisk[] = [
      { name: 'a', disk: { bus: 'virtio' } },
      { name: 'b', disk: { bus: 'sata' } },
      { name: 'c', disk: { bus: 'virtio' } },
      { name: 'd', disk: { bus: 'scsi' } },
      { name: 'e', disk: {} },
    ];
    const statuses: VolumeStatus[] = [{ name: 'c', target: 'vda' }];
    const out = convertDisks(
      disks,
      disks.map((d) => pvc(d.name)),
      {},
      statuses,
    );
    expect(out.map((d) => `${d.alias.name}:${d.target.bus}:${d.target.dev}`)).toEqual([
      'a:virtio:vdb',
      'b:sata:sda',
      'c:virtio:vda',
      'd:scsi:sdb',
      'e:sata:sdc',
    ]);
    expect(out[3]?.address).toEqual({ type: 'drive', controller: 0, bus: 0, unit: 1 });
  });

  it('defaults the bus by architecture (virtio on arm64)', () => {
    expect(only({ name: 'v' }, pvc('v'), { arch: 'arm64' }).target).toEqual({ bus: 'virtio', dev: 'vda' });
  });

  it.each<[string, VmiDisk, CtxOpts, Record<string, string | undefined>]>([
    [
      'error policy stop by default, cache none where O_DIRECT works',
      { name: 'v' },
      {},
      { errorPolicy: 'stop', cache: 'none' },
    ],
    ['writethrough where it does not', { name: 'v' }, { directIo: false }, { cache: 'writethrough' }],
    [
      'per volume O_DIRECT facts',
      { name: 'v' },
      { directIoByVolume: new Map([['v', false]]) },
      { cache: 'writethrough' },
    ],
    [
      'an explicit cache, io and error policy',
      { name: 'v', cache: 'writeback', io: 'threads', errorPolicy: 'report' },
      {},
      { cache: 'writeback', io: 'threads', errorPolicy: 'report' },
    ],
    [
      'io native for a preallocated image with cache none, and no discard',
      { name: 'v' },
      { preallocatedVolumes: new Set(['v']) },
      { io: 'native', cache: 'none', discard: undefined },
    ],
    ['discard unmap otherwise', { name: 'v' }, {}, { discard: 'unmap', io: undefined }],
  ])('%s', (_, disk, ctx, driver) => {
    const d = only({ ...disk, disk: { bus: 'sata' } }, pvc('v'), ctx);
    for (const [key, value] of Object.entries(driver))
      expect(d.driver[key as keyof Disk['driver']]).toBe(value);
  });

  it('block devices get io native with cache none', () => {
    expect(only({ name: 'v', disk: { bus: 'sata' } }, pvc('v'), {}, [blockStatus('v')]).driver.io).toBe(
      'native',
    );
  });

  it.each<[string, VmiDisk, Partial<Disk>]>([
    [
      'virtio model, serial, boot order',
      { name: 'v', disk: { bus: 'virtio' }, serial: 'SN1', bootOrder: 2 },
      { model: 'virtio-non-transitional', serial: 'SN1', bootOrder: 2 },
    ],
    [
      'read-only disk',
      { name: 'v', disk: { bus: 'sata', readonly: true } },
      { readonly: true, target: { bus: 'sata', dev: 'sda' } },
    ],
    [
      'writable CD-ROM with an open tray',
      { name: 'v', cdrom: { bus: 'sata', readonly: false, tray: 'open' } },
      { device: 'cdrom', readonly: false, target: { bus: 'sata', dev: 'sda', tray: 'open' } },
    ],
    [
      'shareable disk gets cache none',
      { name: 'v', disk: { bus: 'sata' }, shareable: true },
      { shareable: true },
    ],
    [
      'PCI address on virtio',
      { name: 'v', disk: { bus: 'virtio', pciAddress: '0000:81:01.1' } },
      { address: { type: 'pci', domain: '0x0000', bus: '0x81', slot: '0x01', function: '0x1' } },
    ],
    [
      'custom block sizes',
      { name: 'v', disk: { bus: 'virtio' }, blockSize: { custom: { logical: 512, physical: 4096 } } },
      { blockIo: { logical: 512, physical: 4096 } },
    ],
  ])('%s', (_, disk, expected) => {
    expect(only(disk, pvc('v'))).toMatchObject(expected);
  });

  it('block sizes matched to the volume come from the context', () => {
    const disk: VmiDisk = {
      name: 'v',
      disk: { bus: 'virtio' },
      blockSize: { matchVolume: { enabled: true } },
    };
    const sizes = { logical: 4096, physical: 4096 };
    expect(only(disk, pvc('v'), { volumeBlockSizes: new Map([['v', sizes]]) }).blockIo).toEqual(sizes);
    expect(only(disk, pvc('v')).blockIo).toBeUndefined();
  });

  it('multi-queue gives virtio disks one queue per vCPU', () => {
    const vmi = testVmi(
      withSpec((s) => {
        s.domain.cpu = { sockets: 2, cores: 2, threads: 1 };
        s.domain.devices.blockMultiQueue = true;
      }),
      withDisk({ name: 'a', disk: { bus: 'virtio' } }),
      withDisk({ name: 'b', disk: { bus: 'sata' } }),
      withVolume(pvc('a')),
      withVolume(pvc('b')),
    );
    const disks = runConfigurator(disksConfigurator, vmi).devices.disks;
    expect(disks.map((d) => d.driver.queues)).toEqual([4, undefined]);
  });

  it('a LUN with a reservation reaches its storage through the pr-helper socket', () => {
    const d = only({ name: 'q', lun: { bus: 'scsi', reservation: true } }, pvc('q'), { root: '/r' }, [
      blockStatus('q'),
    ]);
    expect(d).toMatchObject({
      device: 'lun',
      type: 'block',
      source: {
        dev: '/r/dev/q',
        reservations: {
          managed: 'no',
          source: { type: 'unix', path: '/r/var/run/kubevirt/daemons/pr/pr-helper.sock', mode: 'client' },
        },
      },
      address: { type: 'drive', controller: 0, bus: 0, unit: 0 },
    });
  });

  it.each<[string, number]>([
    ['sda', 0],
    ['sdz', 25],
    ['sdaa', 26],
    ['sdzz', 701],
    ['sdaaa', 702],
  ])('device %s has index %d', (name, index) => {
    expect(deviceIndex(name, 'sd')).toBe(index);
  });
});
