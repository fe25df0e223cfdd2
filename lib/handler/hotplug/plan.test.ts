import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VolumeStatus } from '../../api/index.ts';
import type { PersistentVolume } from '../../api/core/pv.ts';
import {
  claimSourceOnNode,
  hotplugTarget,
  mountPlan,
  volumeOfTarget,
  wantedHotplug,
  type MountStep,
} from './plan.ts';

const PODS = '/var/lib/kubelet/pods';
const DIR = `${PODS}/launcher/volumes/kubernetes.io~empty-dir/hotplug-disks`;

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
  hotplugVolume: { attachPodName: 'hp-pod', attachPodUID: 'attach' },
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
    expect(wantedHotplug(vmi(status, inSpec))).toHaveLength(n);
  });

  it('reads the claim name from the spec and the mode from the volume status', () => {
    const block = hp('AttachedToNode', {
      persistentVolumeClaimInfo: { claimName: 'hp-claim', volumeMode: 'Block' },
    });
    expect(wantedHotplug(vmi([block]))).toEqual([
      { volume: 'hp', claimName: 'hp-claim', attachPodUid: 'attach', block: true },
    ]);
  });
});

describe('claimSourceOnNode', () => {
  const fs = { volume: 'hp', claimName: 'c', attachPodUid: 'attach', block: false };
  const pv = (spec: NonNullable<PersistentVolume['spec']>): PersistentVolume => ({
    metadata: { name: 'pv1' },
    spec,
  });
  it.each([
    [
      'hostPath: the path, disk.img inside',
      fs,
      pv({ hostPath: { path: '/data/pv1' } }),
      { path: '/data/pv1/disk.img' },
    ],
    ['local: the path', fs, pv({ local: { path: '/mnt/disks/a' } }), { path: '/mnt/disks/a/disk.img' }],
    [
      'CSI filesystem: the attachment Pod’s mount',
      fs,
      pv({ csi: { driver: 'x' } }),
      { path: `${PODS}/attach/volumes/kubernetes.io~csi/pv1/mount/disk.img` },
    ],
    [
      'CSI block: the attachment Pod’s device',
      { ...fs, block: true },
      pv({ csi: { driver: 'x' } }),
      { path: `${PODS}/attach/volumeDevices/kubernetes.io~csi/pv1` },
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

describe('targets', () => {
  it('a file is <volume>.img and a device <volume>, as the converter points the domain', () => {
    expect(hotplugTarget(DIR, 'hp', false)).toBe(`${DIR}/hp.img`);
    expect(hotplugTarget(DIR, 'hp', true)).toBe(`${DIR}/hp`);
    expect(volumeOfTarget(`${DIR}/hp.img`)).toBe('hp');
    expect(volumeOfTarget(`${DIR}/hp`)).toBe('hp');
  });
});

describe('mountPlan', () => {
  const step = (volume: string): MountStep => ({
    volume,
    source: `/data/${volume}/disk.img`,
    target: `${DIR}/${volume}.img`,
    block: false,
  });
  it.each([
    {
      what: 'mounts what is wanted and not mounted',
      wanted: [step('a')],
      mounted: [],
      uses: [],
      mount: ['a'],
      unmount: [],
    },
    {
      what: 'leaves what is mounted alone',
      wanted: [step('a')],
      mounted: [`${DIR}/a.img`],
      uses: [],
      mount: [],
      unmount: [],
    },
    {
      what: 'unmounts what is no longer wanted',
      wanted: [],
      mounted: [`${DIR}/a.img`],
      uses: [],
      mount: [],
      unmount: [`${DIR}/a.img`],
    },
    {
      what: 'keeps a mount the domain still uses',
      wanted: [],
      mounted: [`${DIR}/a.img`],
      uses: ['a'],
      mount: [],
      unmount: [],
    },
    {
      what: 'both at once',
      wanted: [step('b')],
      mounted: [`${DIR}/a.img`],
      uses: [],
      mount: ['b'],
      unmount: [`${DIR}/a.img`],
    },
  ])('$what', ({ wanted, mounted, uses, mount, unmount }) => {
    const plan = mountPlan(wanted, mounted, new Set(uses));
    expect(plan.mount.map((m) => m.volume)).toEqual(mount);
    expect(plan.unmount).toEqual(unmount);
  });
});
