import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, VolumeStatus } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { PersistentVolumeClaim } from '../../kubevirt/core/pvc.ts';
import { pod, podDeleting, vmi, withPhase, withPodPhase } from '../../kubevirt/testing/objects.ts';
import {
  attachReady,
  attachmentPod,
  block,
  bound,
  claimPhase,
  claims,
  ownedByDataVolume,
  pvc,
  withHotplugImage,
  withHotplugVolume,
  withPodClaims,
  withPodImages,
  withVolume,
  withVolumeStatus,
} from '../testing/storage-fixtures.ts';
import { computeVolumeStatus, type VolumeStatusResult } from './volume-status.ts';

const launcher = pod(withPodClaims('root'));
const running = (...opts: ((v: VirtualMachineInstance) => void)[]): VirtualMachineInstance =>
  vmi(withPhase('Running'), ...opts);
const hp = (
  phase: string,
  extra: Partial<VolumeStatus> = {},
  hotplugVolume: VolumeStatus['hotplugVolume'] = {
    attachPodName: 'hp-volume-a',
    attachPodUID: 'uid-hp-volume-a',
  },
): VolumeStatus => ({ name: 'hp', target: '', phase, hotplugVolume, ...extra });

function compute(
  v: VirtualMachineInstance,
  pvcs: PersistentVolumeClaim[],
  attachmentPods: Pod[] = [],
  l: Pod | undefined = launcher,
): VolumeStatusResult {
  return computeVolumeStatus({ vmi: v, launcher: l, attachmentPods, claim: claims(...pvcs) });
}

const only = (r: VolumeStatusResult, name = 'hp'): VolumeStatus | undefined =>
  r.statuses.find((s) => s.name === name);

describe('computeVolumeStatus: hotplug phases', () => {
  const disk = pvc('hp');
  it.each<[string, VirtualMachineInstance, PersistentVolumeClaim[], Pod[], Partial<VolumeStatus>]>([
    [
      'claim missing → Pending',
      running(withHotplugVolume('hp', 'hp')),
      [],
      [],
      { phase: 'Pending', reason: 'FailedPvcNotFound', message: 'PVC hp not found', hotplugVolume: {} },
    ],
    [
      'claim Pending → Pending',
      running(withHotplugVolume('hp', 'hp')),
      [pvc('hp', ownedByDataVolume)],
      [],
      { phase: 'Pending', reason: 'PVCNotReady', message: 'PVC is in phase ClaimPending' },
    ],
    [
      'claim Bound, no attachment Pod yet → Bound',
      running(withHotplugVolume('hp', 'hp')),
      [pvc('hp', bound)],
      [],
      { phase: 'Bound', reason: 'PVCNotReady', message: 'PVC is in phase Bound' },
    ],
    [
      'claim Lost → Pending',
      running(withHotplugVolume('hp', 'hp')),
      [pvc('hp', claimPhase('Lost'), ownedByDataVolume)],
      [],
      { phase: 'Pending', message: 'PVC is in phase Lost' },
    ],
    [
      'attachment Pod created, not ready → AttachedToNode without uid',
      running(withHotplugVolume('hp', 'hp'), withVolumeStatus(hp('Bound', {}, {}))),
      [pvc('hp', bound)],
      [attachmentPod('hp-volume-a', ['hp'])],
      {
        phase: 'AttachedToNode',
        reason: 'SuccessfulCreate',
        message: 'Created hotplug attachment pod hp-volume-a, for volume hp',
        hotplugVolume: { attachPodName: 'hp-volume-a' },
      },
    ],
    [
      'attachment Pod container ready → attachPodUID',
      running(withHotplugVolume('hp', 'hp')),
      [pvc('hp', bound)],
      [attachmentPod('hp-volume-a', ['hp'], attachReady)],
      {
        phase: 'AttachedToNode',
        hotplugVolume: { attachPodName: 'hp-volume-a', attachPodUID: 'uid-hp-volume-a' },
      },
    ],
    [
      'MountedToPod (the node) is kept while the Pod holds it',
      running(withHotplugVolume('hp', 'hp'), withVolumeStatus(hp('MountedToPod', { reason: 'x' }))),
      [pvc('hp', bound)],
      [attachmentPod('hp-volume-a', ['hp'], attachReady)],
      { phase: 'MountedToPod', reason: 'x' },
    ],
    [
      'Ready is kept while its attachment Pod, being deleted, still has it',
      running(withHotplugVolume('hp', 'hp'), withVolumeStatus(hp('Ready'))),
      [pvc('hp', bound)],
      [attachmentPod('hp-volume-a', ['hp'], attachReady, podDeleting)],
      { phase: 'Ready', hotplugVolume: { attachPodName: 'hp-volume-a', attachPodUID: 'uid-hp-volume-a' } },
    ],
    [
      'Ready without a Pod stays Ready; the Pod it names is none of the launcher Pod’s, so it goes',
      running(withHotplugVolume('hp', 'hp'), withVolumeStatus(hp('Ready'))),
      [pvc('hp', bound)],
      [],
      { phase: 'Ready', hotplugVolume: {} },
    ],
    [
      'Ready naming an attachment Pod without the volume: that uid is not the volume’s, it goes',
      running(withHotplugVolume('hp', 'hp'), withVolumeStatus(hp('Ready'))),
      [pvc('hp', bound)],
      [attachmentPod('hp-volume-a', ['other'], attachReady, podDeleting)],
      { phase: 'Ready', hotplugVolume: { attachPodName: 'hp-volume-a' } },
    ],
    [
      'MountedToPod without a Pod falls back to the claim',
      running(withHotplugVolume('hp', 'hp'), withVolumeStatus(hp('MountedToPod'))),
      [pvc('hp', bound)],
      [],
      { phase: 'Bound', hotplugVolume: {} },
    ],
    [
      'a claim not ready: an entry naming a Pod and its uid (written by someone else) is recomputed',
      running(withHotplugVolume('hp', 'hp'), withVolumeStatus(hp('AttachedToNode'))),
      [],
      [],
      { phase: 'Pending', reason: 'FailedPvcNotFound', hotplugVolume: {} },
    ],
    [
      'an attachment Pod holds it: the name and uid are that Pod’s, whatever the entry said',
      running(
        withHotplugVolume('hp', 'hp'),
        withVolumeStatus(hp('Ready', {}, { attachPodName: 'victim', attachPodUID: 'victim-uid' })),
      ),
      [pvc('hp', bound)],
      [attachmentPod('hp-volume-a', ['hp'], attachReady)],
      { phase: 'Ready', hotplugVolume: { attachPodName: 'hp-volume-a', attachPodUID: 'uid-hp-volume-a' } },
    ],
    [
      'removed from the spec, the Pod still has it → Detaching',
      running(withVolumeStatus(hp('AttachedToNode', { reason: 'SuccessfulCreate', message: 'm' }))),
      [disk],
      [attachmentPod('hp-volume-a', ['hp'], withPodPhase('Running'))],
      { phase: 'Detaching', reason: 'SuccessfulCreate', message: 'm' },
    ],
    [
      'removed, its Pod being deleted → Detaching, deleted',
      running(withVolumeStatus(hp('Detaching'))),
      [disk],
      [attachmentPod('hp-volume-a', ['hp'], podDeleting)],
      {
        phase: 'Detaching',
        reason: 'SuccessfulDelete',
        message: 'Deleted hotplug attachment pod hp-volume-a, for volume hp',
      },
    ],
    [
      'removed while the node still has it mounted → stays Ready',
      running(withVolumeStatus(hp('Ready'))),
      [disk],
      [attachmentPod('hp-volume-a', ['hp'])],
      { phase: 'Ready' },
    ],
  ])('%s', (...[, v, pvcs, pods, want]) => {
    const got = only(compute(v, pvcs, pods));
    expect(got).toMatchObject({ name: 'hp', target: '', ...want });
    if (want.hotplugVolume !== undefined) expect(got?.hotplugVolume).toEqual(want.hotplugVolume);
  });

  it('removed and no Pod holds it any more → the entry goes', () => {
    const r = compute(running(withVolumeStatus(hp('Detaching'))), [disk], []);
    expect(r.statuses).toEqual([]);
  });

  it('a new attachment Pod not yet ready: the name moves to it, the uid is cleared', () => {
    const v = running(
      withHotplugVolume('hp', 'hp'),
      withHotplugVolume('hp2', 'hp2'),
      withVolumeStatus(hp('Ready')),
    );
    const pods = [
      attachmentPod('hp-volume-a', ['hp'], attachReady),
      attachmentPod('hp-volume-b', ['hp', 'hp2']),
    ];
    const r = compute(v, [pvc('hp', bound), pvc('hp2', bound)], pods);
    expect(only(r)).toMatchObject({ phase: 'Ready', hotplugVolume: { attachPodName: 'hp-volume-b' } });
    expect(only(r)?.hotplugVolume?.attachPodUID).toBeUndefined();
    expect(only(r, 'hp2')).toMatchObject({
      phase: 'AttachedToNode',
      hotplugVolume: { attachPodName: 'hp-volume-b' },
    });
  });

  it('a volume the new Pod cannot hold yet stays with the Pod that has it', () => {
    const v = running(withHotplugVolume('hp', 'hp'), withHotplugVolume('late', 'late'));
    const r = compute(v, [pvc('hp', bound)], [attachmentPod('hp-volume-a', ['hp'], attachReady)]);
    expect(only(r)).toMatchObject({
      phase: 'AttachedToNode',
      hotplugVolume: { attachPodName: 'hp-volume-a' },
    });
    expect(only(r, 'late')).toMatchObject({ phase: 'Pending', reason: 'FailedPvcNotFound' });
  });
});

describe('computeVolumeStatus: claims and entries', () => {
  it('every spec volume has an entry, sorted by name; what the node wrote is kept', () => {
    const v = running(
      withVolume({ name: 'root', persistentVolumeClaim: { claimName: 'root' } }),
      withVolume({ name: 'cloudinit', cloudInitNoCloud: { userData: '#cloud-config' } }),
      withVolume({ name: 'cd', containerDisk: { image: 'img' } }),
      withVolumeStatus({ name: 'cd', target: 'vdb', containerDiskVolume: { checksum: 7 } }),
    );
    const r = compute(v, [pvc('root', bound, block)]);
    expect(r.statuses).toEqual([
      { name: 'cd', target: 'vdb', containerDiskVolume: { checksum: 7 } },
      { name: 'cloudinit', target: '' },
      {
        name: 'root',
        target: '',
        persistentVolumeClaimInfo: {
          claimName: 'root',
          accessModes: ['ReadWriteOnce'],
          volumeMode: 'Block',
          capacity: { storage: '1Gi' },
          requests: { storage: '1Gi' },
          filesystemOverhead: '0.055',
        },
      },
    ]);
    expect(r.events).toEqual([]);
  });

  it('a DataVolume volume reads the claim of the same name; CDI preallocation is reported', () => {
    const v = running(withVolume({ name: 'data', dataVolume: { name: 'dv1' } }));
    const prealloc = pvc('dv1', bound, (p) => {
      p.metadata.annotations = { 'cdi.kubevirt.io/storage.preallocation': 'true' };
    });
    const r = compute(v, [prealloc], [], pod(withPodClaims('data')));
    expect(only(r, 'data')?.persistentVolumeClaimInfo).toMatchObject({
      claimName: 'dv1',
      preallocated: true,
    });
    expect(only(r, 'data')?.hotplugVolume).toBeUndefined();
  });

  it('a claim not found keeps the info already reported', () => {
    const info = { claimName: 'root', volumeMode: 'Block' };
    const v = running(
      withVolume({ name: 'root', persistentVolumeClaim: { claimName: 'root' } }),
      withVolumeStatus({ name: 'root', target: 'vda', persistentVolumeClaimInfo: info }),
    );
    expect(only(compute(v, []), 'root')).toEqual({
      name: 'root',
      target: 'vda',
      persistentVolumeClaimInfo: info,
    });
  });

  it('a volume the launcher Pod mounts itself has no hotplugVolume, whatever the entry said', () => {
    const v = running(
      withVolume({ name: 'root', persistentVolumeClaim: { claimName: 'root' } }),
      withVolumeStatus({
        name: 'root',
        target: 'vda',
        phase: 'Ready',
        hotplugVolume: { attachPodName: 'victim', attachPodUID: 'victim-uid' },
      }),
    );
    expect(only(compute(v, [pvc('root', bound)]), 'root')).toMatchObject({ name: 'root', target: 'vda' });
    expect(only(compute(v, [pvc('root', bound)]), 'root')?.hotplugVolume).toBeUndefined();
  });

  it('before the launcher Pod exists, hotpluggable volumes count as hotplugged', () => {
    const v = vmi(
      withVolume({ name: 'root', persistentVolumeClaim: { claimName: 'root' } }),
      withHotplugVolume('hp', 'hp', true),
    );
    const r = compute(v, [pvc('root', bound), pvc('hp', bound)], [], undefined);
    expect(only(r, 'root')?.hotplugVolume).toBeUndefined();
    expect(only(r)).toMatchObject({ phase: 'Bound', hotplugVolume: {} });
  });
});

describe('computeVolumeStatus: events', () => {
  it('announces the attach once, and the delete of the attachment Pod', () => {
    const attach = compute(
      running(withHotplugVolume('hp', 'hp')),
      [pvc('hp', bound)],
      [attachmentPod('hp-volume-a', ['hp'])],
    );
    expect(attach.events).toEqual([
      {
        type: 'Normal',
        reason: 'SuccessfulCreate',
        message: 'Created hotplug attachment pod hp-volume-a, for volume hp',
      },
    ]);
    const again = compute(
      running(withHotplugVolume('hp', 'hp'), withVolumeStatus(...attach.statuses)),
      [pvc('hp', bound)],
      [attachmentPod('hp-volume-a', ['hp'], attachReady)],
    );
    expect(again.events).toEqual([]);
    const detach = compute(
      running(withVolumeStatus(...again.statuses)),
      [],
      [attachmentPod('hp-volume-a', ['hp'], podDeleting)],
    );
    expect(detach.events).toEqual([
      {
        type: 'Normal',
        reason: 'SuccessfulDelete',
        message: 'Deleted hotplug attachment pod hp-volume-a, for volume hp',
      },
    ]);
  });

  it('warns once when the claim is not found', () => {
    const first = compute(running(withHotplugVolume('hp', 'hp')), []);
    expect(first.events).toEqual([
      { type: 'Warning', reason: 'HotplugFailed', message: 'volume hp: PVC hp not found' },
    ]);
    const again = compute(running(withHotplugVolume('hp', 'hp'), withVolumeStatus(...first.statuses)), []);
    expect(again.events).toEqual([]);
  });

  it('does not touch its input', () => {
    const v = running(withHotplugVolume('hp', 'hp'), withVolumeStatus(hp('Bound')));
    const before = structuredClone(v);
    compute(v, [pvc('hp', bound)], [attachmentPod('hp-volume-a', ['hp'])]);
    expect(v).toEqual(before);
  });
});

describe('computeVolumeStatus: a hotplugged containerDisk (the fork)', () => {
  const iso = (
    phase: string | undefined,
    hotplugVolume: VolumeStatus['hotplugVolume'] = {},
  ): VolumeStatus => ({
    name: 'iso',
    target: '',
    ...(phase !== undefined && { phase }),
    hotplugVolume,
    containerDiskVolume: {},
  });
  const held = { attachPodName: 'hp-volume-a', attachPodUID: 'uid-hp-volume-a' };
  it.each<[string, VirtualMachineInstance, Pod[], Partial<VolumeStatus>]>([
    [
      'no attachment Pod yet → Pending, AttachmentPodNotFound, an empty containerDiskVolume',
      running(withHotplugImage('iso', 'iso:img')),
      [],
      {
        phase: 'Pending',
        reason: 'AttachmentPodNotFound',
        message: 'Attachment pod not found',
        hotplugVolume: {},
        containerDiskVolume: {},
      },
    ],
    [
      'held by a Pod not ready → AttachedToNode without uid',
      running(withHotplugImage('iso', 'iso:img')),
      [attachmentPod('hp-volume-a', [], withPodImages('iso'))],
      {
        phase: 'AttachedToNode',
        reason: 'SuccessfulCreate',
        message: 'Created hotplug attachment pod hp-volume-a, for volume iso',
        hotplugVolume: { attachPodName: 'hp-volume-a' },
      },
    ],
    [
      'held by a ready Pod → attachPodUID, the node’s cue',
      running(withHotplugImage('iso', 'iso:img')),
      [attachmentPod('hp-volume-a', [], withPodImages('iso'), attachReady)],
      { phase: 'AttachedToNode', hotplugVolume: held, containerDiskVolume: {} },
    ],
    [
      'MountedToPod from the node is kept',
      running(withHotplugImage('iso', 'iso:img'), withVolumeStatus(iso('MountedToPod', held))),
      [attachmentPod('hp-volume-a', [], withPodImages('iso'), attachReady)],
      { phase: 'MountedToPod', hotplugVolume: held },
    ],
    [
      'MountedToPod without a Pod → Pending (no claim to fall back on)',
      running(withHotplugImage('iso', 'iso:img'), withVolumeStatus(iso('MountedToPod', held))),
      [],
      { phase: 'Pending', reason: 'AttachmentPodNotFound', hotplugVolume: {} },
    ],
    [
      'Ready without a Pod stays Ready (the fork would make it Pending)',
      running(withHotplugImage('iso', 'iso:img'), withVolumeStatus(iso('Ready', held))),
      [],
      { phase: 'Ready', hotplugVolume: {} },
    ],
  ])('%s', (_, v, pods, want) => {
    const got = only(compute(v, [], pods), 'iso');
    expect(got).toMatchObject(want);
    expect(got?.persistentVolumeClaimInfo).toBeUndefined();
  });

  it('a Pod holding the claim but not the image is not the current one: the image waits for a new Pod', () => {
    const v = running(withHotplugVolume('hp', 'hp'), withHotplugImage('iso', 'iso:img'));
    const r = compute(v, [pvc('hp', bound)], [attachmentPod('hp-volume-a', ['hp'], attachReady)]);
    expect(only(r, 'iso')).toMatchObject({ phase: 'Pending', reason: 'AttachmentPodNotFound' });
    expect(only(r, 'hp')).toMatchObject({ phase: 'AttachedToNode' });
  });

  it('a launcher Pod’s own containerDisk is no hotplug volume', () => {
    const v = running(withVolume({ name: 'root', containerDisk: { image: 'root:img' } }));
    const got = only(compute(v, []), 'root');
    expect(got?.hotplugVolume).toBeUndefined();
    expect(got?.containerDiskVolume).toBeUndefined();
  });
});

describe('computeVolumeStatus: an attachment Pod that cannot run (beyond KubeVirt v1.6.2)', () => {
  const unschedulable = (p: Pod): void => {
    p.status = {
      phase: 'Pending',
      conditions: [
        {
          type: 'PodScheduled',
          status: 'False',
          reason: 'Unschedulable',
          message: '0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims.',
        },
      ],
    };
  };
  const waiting =
    (reason: string, message?: string) =>
    (p: Pod): void => {
      p.status = {
        phase: 'Pending',
        containerStatuses: [
          {
            name: 'hotplug-disk',
            ready: false,
            state: { waiting: { reason, ...(message !== undefined && { message }) } },
          },
        ],
      };
    };
  const failed = (p: Pod): void => {
    p.status = { phase: 'Failed' };
  };
  const claimsOf = [pvc('hp', bound)];
  const withPod = (...opts: ((p: Pod) => void)[]): Pod[] => [attachmentPod('hp-volume-a', ['hp'], ...opts)];

  it.each<[string, Pod[], string]>([
    [
      'unschedulable (its claim never binds)',
      withPod(unschedulable),
      'attachment pod hp-volume-a cannot be scheduled: 0/1 nodes are available: pod has unbound immediate PersistentVolumeClaims.',
    ],
    [
      'its image not pullable',
      withPod(waiting('ErrImagePull', 'not found')),
      'attachment pod hp-volume-a: ErrImagePull: not found',
    ],
    [
      'its image never pulled',
      withPod(waiting('ErrImageNeverPull')),
      'attachment pod hp-volume-a: ErrImageNeverPull',
    ],
    ['failed', withPod(failed), 'attachment pod hp-volume-a failed'],
  ])('%s: HotplugFailed with what was said, and one warning', (_case, pods, message) => {
    const r = compute(running(withHotplugVolume('hp', 'hp')), claimsOf, pods);
    expect(only(r)).toMatchObject({ phase: 'HotplugFailed', reason: 'AttachmentPodFailed', message });
    expect(r.events).toEqual([{ type: 'Warning', reason: 'HotplugFailed', message }]);
  });

  it('fails an AttachedToNode volume, keeps one warning while the reason flips, and recovers when the Pod runs', () => {
    const attached = compute(running(withHotplugVolume('hp', 'hp')), claimsOf, withPod());
    expect(only(attached)?.phase).toBe('AttachedToNode');
    const pull = compute(
      running(withHotplugVolume('hp', 'hp'), withVolumeStatus(...attached.statuses)),
      claimsOf,
      withPod(waiting('ErrImagePull', 'not found')),
    );
    expect(only(pull)?.phase).toBe('HotplugFailed');
    expect(pull.events.map((e) => e.type)).toEqual(['Warning']);
    const backoff = compute(
      running(withHotplugVolume('hp', 'hp'), withVolumeStatus(...pull.statuses)),
      claimsOf,
      withPod(waiting('ImagePullBackOff', 'Back-off pulling image')),
    );
    expect(only(backoff)?.phase).toBe('HotplugFailed');
    expect(only(backoff)?.message).toBe(
      'attachment pod hp-volume-a: ImagePullBackOff: Back-off pulling image',
    );
    expect(backoff.events).toEqual([]);
    const runs = compute(
      running(withHotplugVolume('hp', 'hp'), withVolumeStatus(...backoff.statuses)),
      claimsOf,
      withPod(attachReady),
    );
    expect(only(runs)).toMatchObject({ phase: 'AttachedToNode', reason: 'SuccessfulCreate' });
    expect(only(runs)?.hotplugVolume?.attachPodUID).toBe('uid-hp-volume-a');
  });

  it('never fails a volume the node has mounted', () => {
    const v = running(withHotplugVolume('hp', 'hp'), withVolumeStatus(hp('MountedToPod')));
    const r = compute(v, claimsOf, withPod(waiting('ErrImagePull')));
    expect(only(r)?.phase).toBe('MountedToPod');
    expect(r.events).toEqual([]);
  });
});
