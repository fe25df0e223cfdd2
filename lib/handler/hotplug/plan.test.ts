import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VolumeStatus } from '../../kubevirt/index.ts';
import type { PersistentVolume } from '../../kubevirt/core/pv.ts';
import {
  claimSourceOnNode,
  isUid,
  mountPlan,
  targetName,
  volumeOfEntry,
  wantedHotplug,
  type WantedHotplug,
} from './plan.ts';
import { UIDS } from './testing/world.ts';

const PODS = '/var/lib/kubelet/pods';
const ATTACH = UIDS.attach;

function vmi(status: VolumeStatus[], inSpec = ['hp']): VirtualMachineInstance {
  return {
    metadata: { name: 'v', namespace: 'ns' },
    spec: {
      domain: { devices: {} },
      volumes: inSpec.map((name) => ({
        name,
        persistentVolumeClaim: { claimName: `${name}-claim`, hotpluggable: true },
      })),
    },
    status: { volumeStatus: status },
  };
}
const hp = (phase: string, extra: Partial<VolumeStatus> = {}): VolumeStatus => ({
  name: 'hp',
  target: '',
  phase,
  hotplugVolume: { attachPodName: 'hp-pod', attachPodUID: ATTACH },
  ...extra,
});

describe('wantedHotplug', () => {
  it.each([
    ['attached to the node', [hp('AttachedToNode')], ['hp'], 1],
    ['mounted already', [hp('MountedToPod')], ['hp'], 1],
    ['ready', [hp('Ready')], ['hp'], 1],
    ['still bound only: the attachment Pod is not running', [hp('Bound')], ['hp'], 0],
    [
      'no attachment Pod uid yet',
      [hp('AttachedToNode', { hotplugVolume: { attachPodName: 'p' } })],
      ['hp'],
      0,
    ],
    ['removed from the spec', [hp('Ready')], [], 0],
    ['not a hotplug volume', [{ name: 'hp', target: 'vda', phase: 'Ready' }], ['hp'], 0],
  ])('%s', (_what, status, inSpec, n) => {
    const got = wantedHotplug(vmi(status, inSpec));
    expect(got.wanted).toHaveLength(n);
    expect(got.invalid.size).toBe(0);
  });

  it('reads the claim name from the spec, the Pod from the status and the mode from the claim info', () => {
    const block = hp('AttachedToNode', {
      persistentVolumeClaimInfo: { claimName: 'hp-claim', volumeMode: 'Block' },
    });
    expect(wantedHotplug(vmi([block])).wanted).toEqual([
      { volume: 'hp', claimName: 'hp-claim', attachPodName: 'hp-pod', attachPodUid: ATTACH, block: true },
    ]);
  });

  it.each([
    ['a volume name with a slash', 'a/b', hp('Ready'), 'the volume name "a/b" is not a DNS label'],
    ['a volume name that climbs', '..', hp('Ready'), 'the volume name ".." is not a DNS label'],
    ['a volume name with a dot', 'hp.img', hp('Ready'), 'the volume name "hp.img" is not a DNS label'],
    [
      'an attachment Pod uid that climbs',
      'hp',
      hp('Ready', { hotplugVolume: { attachPodName: 'p', attachPodUID: '../../../etc' } }),
      'the attachment pod uid "../../../etc" in the volume status is not a UID',
    ],
    [
      'an attachment Pod uid with a slash',
      'hp',
      hp('Ready', { hotplugVolume: { attachPodName: 'p', attachPodUID: `${ATTACH}/x` } }),
      `the attachment pod uid "${ATTACH}/x" in the volume status is not a UID`,
    ],
    [
      'no attachment Pod name',
      'hp',
      hp('AttachedToNode', { hotplugVolume: { attachPodUID: ATTACH } }),
      'the attachment pod name "" in the volume status is not a pod name',
    ],
  ])('refuses %s, naming it', (_what, name, status, why) => {
    const got = wantedHotplug(vmi([{ ...status, name }], [name]));
    expect(got.wanted).toEqual([]);
    expect(got.invalid).toEqual(
      new Map([[name, `failed to mount filesystem hotplug volume ${name}: ${why}`]]),
    );
  });
});

describe('isUid', () => {
  it.each([
    [UIDS.attach, true],
    ['33333333-3333-4333-8333-33333333333', false],
    ['33333333-3333-4333-8333-333333333333/..', false],
    ['..', false],
    ['', false],
  ])('%s → %s', (uid, ok) => {
    expect(isUid(uid)).toBe(ok);
  });
});

describe('claimSourceOnNode', () => {
  const fs: WantedHotplug = {
    volume: 'hp',
    claimName: 'c',
    attachPodName: 'p',
    attachPodUid: ATTACH,
    block: false,
  };
  const pv = (spec: NonNullable<PersistentVolume['spec']>): PersistentVolume => ({
    metadata: { name: 'pv1' },
    spec,
  });
  it.each([
    [
      'hostPath: the path is the root, disk.img below it',
      fs,
      pv({ hostPath: { path: '/data/pv1' } }),
      { root: '/data/pv1', rel: ['disk.img'], kind: 'file' },
    ],
    [
      'local: the same',
      fs,
      pv({ local: { path: '/mnt/disks/a' } }),
      { root: '/mnt/disks/a', rel: ['disk.img'], kind: 'file' },
    ],
    [
      'a block local volume: its path is the device, trusted as a whole',
      { ...fs, block: true },
      pv({ local: { path: '/dev/disk/by-id/x' } }),
      { root: '/dev/disk/by-id/x', rel: [], kind: 'block' },
    ],
    [
      'CSI filesystem: the attachment Pod’s mount below the pods dir',
      fs,
      pv({ csi: { driver: 'x' } }),
      { root: PODS, rel: [ATTACH, 'volumes', 'kubernetes.io~csi', 'pv1', 'mount', 'disk.img'], kind: 'file' },
    ],
    [
      'CSI block: the kubelet’s bind mount of the device for the attachment Pod',
      { ...fs, block: true },
      pv({ csi: { driver: 'x' } }),
      {
        root: '/var/lib/kubelet',
        rel: ['plugins', 'kubernetes.io', 'csi', 'volumeDevices', 'pv1', 'dev', ATTACH],
        kind: 'block',
      },
    ],
    [
      'anything else: a clear problem',
      fs,
      pv({}),
      { problem: 'persistent volume pv1 has a source the handler cannot hotplug from' },
    ],
  ])('%s', (_what, want, volume, expected) => {
    expect(claimSourceOnNode(want, volume, PODS)).toEqual(expected);
  });
});

describe('entries', () => {
  it('a file is <volume>.img and a device <volume>, as the converter points the domain', () => {
    expect(targetName('hp', false)).toBe('hp.img');
    expect(targetName('hp', true)).toBe('hp');
  });

  it.each([
    ['hp.img', 'hp'],
    ['hp', 'hp'],
    ['hp.img.img', undefined],
    ['.img', undefined],
    ['Upper.img', undefined],
    ['hp.qcow2', undefined],
  ])('%s belongs to %s', (entry, volume) => {
    expect(volumeOfEntry(entry)).toBe(volume);
  });
});

describe('mountPlan', () => {
  const want = (volume: string): WantedHotplug => ({
    volume,
    claimName: `${volume}-claim`,
    attachPodName: 'p',
    attachPodUid: ATTACH,
    block: false,
  });
  it.each([
    {
      what: 'mounts what is wanted and not mounted',
      wanted: [want('a')],
      mounted: [],
      uses: [],
      mount: ['a'],
      unmount: [],
    },
    {
      what: 'leaves what is mounted alone',
      wanted: [want('a')],
      mounted: [['a', 'a.img']],
      uses: [],
      mount: [],
      unmount: [],
    },
    {
      what: 'unmounts what is no longer wanted',
      wanted: [],
      mounted: [['a', 'a.img']],
      uses: [],
      mount: [],
      unmount: ['a.img'],
    },
    {
      what: 'keeps a mount the domain still uses',
      wanted: [],
      mounted: [['a', 'a.img']],
      uses: ['a'],
      mount: [],
      unmount: [],
    },
    {
      what: 'both at once',
      wanted: [want('b')],
      mounted: [['a', 'a']],
      uses: [],
      mount: ['b'],
      unmount: ['a'],
    },
  ] as const)('$what', ({ wanted, mounted, uses, mount, unmount }) => {
    const plan = mountPlan(wanted, new Map(mounted), new Set(uses));
    expect(plan.mount.map((m) => m.volume)).toEqual(mount);
    expect(plan.unmount).toEqual(unmount);
  });
});

describe('wantedHotplug: a hotplugged containerDisk', () => {
  const status: VolumeStatus = {
    name: 'iso',
    target: '',
    phase: 'AttachedToNode',
    hotplugVolume: { attachPodName: 'hp-volume-a', attachPodUID: UIDS.attach },
    containerDiskVolume: {},
  };
  const withImage = (hotpluggable: boolean, path?: string): VirtualMachineInstance => ({
    metadata: { name: 'vm', namespace: 'ns' },
    spec: {
      domain: { devices: {} },
      volumes: [
        {
          name: 'iso',
          containerDisk: { image: 'r/iso:1', hotpluggable, ...(path !== undefined && { path }) },
        },
      ],
    },
    status: { volumeStatus: [status] },
  });
  it('is wanted with its image and path, as a file', () => {
    expect(wantedHotplug(withImage(true, '/isos/a.iso')).wanted).toEqual([
      {
        volume: 'iso',
        claimName: '',
        image: { reference: 'r/iso:1', path: '/isos/a.iso' },
        attachPodName: 'hp-volume-a',
        attachPodUid: UIDS.attach,
        block: false,
      },
    ]);
    expect(wantedHotplug(withImage(true)).wanted[0]?.image?.path).toBe('');
  });
  it('a containerDisk the launcher Pod mounts itself is never wanted', () => {
    expect(wantedHotplug(withImage(false)).wanted).toEqual([]);
  });
});
