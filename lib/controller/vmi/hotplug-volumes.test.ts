import { describe, expect, it } from '@jest/globals';
import type { VirtualMachineInstance, Volume } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { PersistentVolumeClaim } from '../../kubevirt/core/pvc.ts';
import { pod, podDeleting, vmi, withPhase, withPodPhase } from '../../kubevirt/testing/objects.ts';
import {
  attachmentPod,
  bound,
  claims,
  createdAt,
  ownedByDataVolume,
  pvc,
  withHotplugImage,
  withHotplugVolume,
  withPodClaims,
  withPodImages,
  withVolume,
  withVolumeStatus,
} from '../testing/storage-fixtures.ts';
import {
  hotplugVolumes,
  planAttachment,
  podMatchesVolumes,
  readyToAttach,
  volumeReadyToAttach,
  type AttachmentPlan,
} from './hotplug-volumes.ts';

const running = withPodPhase('Running');
const hpVolume = (name: string): Volume => ({
  name,
  persistentVolumeClaim: { claimName: name, hotpluggable: true },
});
const status = (name: string, phase: string) => ({
  name,
  target: '',
  phase,
  hotplugVolume: { attachPodName: 'x' },
});

/** Plan for a running VMI with these hotplug volumes (all ready unless listed in notReady). */
function plan(
  volumes: string[],
  pods: Pod[],
  opts: { notReady?: string[]; statuses?: ReturnType<typeof status>[] } = {},
): { create?: string[]; remove: string[] } {
  const v = vmi(
    withPhase('Running'),
    ...volumes.map((n) => withHotplugVolume(n, n)),
    withVolumeStatus(...(opts.statuses ?? [])),
  );
  const hotplug = volumes.map(hpVolume);
  const ready = hotplug.filter((x) => !(opts.notReady ?? []).includes(x.name));
  const p: AttachmentPlan = planAttachment({ vmi: v, hotplug, ready, pods });
  return {
    ...(p.create !== undefined && { create: p.create.map((x) => x.name) }),
    remove: p.remove.map((x) => x.metadata.name ?? ''),
  };
}

describe('planAttachment: the old/new attachment Pod decision', () => {
  const a = (vols: string[], ...o: ((p: Pod) => void)[]): Pod =>
    attachmentPod('hp-volume-a', vols, createdAt('2026-01-01T00:00:10Z'), ...o);
  const b = (vols: string[], ...o: ((p: Pod) => void)[]): Pod =>
    attachmentPod('hp-volume-b', vols, createdAt('2026-01-01T00:00:20Z'), ...o);
  it.each<[string, () => ReturnType<typeof plan>, ReturnType<typeof plan>]>([
    ['nothing hotplugged, no Pod: nothing', () => plan([], []), { remove: [] }],
    ['a ready volume, no Pod: create one for it', () => plan(['v1'], []), { create: ['v1'], remove: [] }],
    ['the Pod matches the volumes: nothing', () => plan(['v1'], [a(['v1'], running)]), { remove: [] }],
    ['a volume not ready yet: no Pod for it', () => plan(['v1'], [], { notReady: ['v1'] }), { remove: [] }],
    [
      'a volume added: the new Pod first, the running old one kept',
      () => plan(['v1', 'v2'], [a(['v1'], running)]),
      { create: ['v1', 'v2'], remove: [] },
    ],
    [
      'the new Pod not running yet: the old one still kept',
      () => plan(['v1', 'v2'], [a(['v1'], running), b(['v1', 'v2'])]),
      { remove: [] },
    ],
    [
      'the new Pod running: the old one goes',
      () => plan(['v1', 'v2'], [a(['v1'], running), b(['v1', 'v2'], running)]),
      { remove: ['hp-volume-a'] },
    ],
    [
      'an old Pod still pending: no new Pod until it is gone, and it goes',
      () => plan(['v1', 'v2'], [a(['v1'])]),
      { remove: ['hp-volume-a'] },
    ],
    [
      'every volume removed: the Pod goes',
      () => plan([], [a(['v1'], running)], { statuses: [status('v1', 'AttachedToNode')] }),
      { remove: ['hp-volume-a'] },
    ],
    [
      'a removed volume still mounted in the launcher: its Pod waits',
      () => plan([], [a(['v1'], running)], { statuses: [status('v1', 'MountedToPod')] }),
      { remove: [] },
    ],
    [
      'a removed volume: a new Pod for the rest; the old one kept while the new one starts',
      () => plan(['v1'], [a(['v1', 'v2'], running)], { statuses: [status('v2', 'Detaching')] }),
      { create: ['v1'], remove: [] },
    ],
    [
      'an old Pod holding only detached volumes is no fallback: it goes',
      () => plan(['v3'], [a(['v2'], running)], { statuses: [status('v2', 'Detaching')] }),
      { create: ['v3'], remove: ['hp-volume-a'] },
    ],
    [
      'of two running old Pods only the newest is kept',
      () => plan(['v1', 'v2', 'v3'], [a(['v1'], running), b(['v1', 'v2'], running)]),
      { create: ['v1', 'v2', 'v3'], remove: ['hp-volume-a'] },
    ],
    [
      'the matching Pod being deleted: wait until it is gone',
      () => plan(['v1'], [a(['v1'], running, podDeleting)]),
      { remove: [] },
    ],
    [
      'a Pod being deleted is not deleted again',
      () => plan([], [a(['v1'], running, podDeleting)], { statuses: [status('v1', 'Detaching')] }),
      { remove: [] },
    ],
    [
      'a Pod being deleted is never the current one',
      () => plan(['v1'], [a(['v1'], running, podDeleting), b(['v2'], running)]),
      { create: ['v1'], remove: ['hp-volume-b'] },
    ],
  ])('%s', (_n, got, want) => {
    expect(got()).toEqual(want);
  });
});

describe('hotplug volumes and readiness', () => {
  const v = vmi(
    withVolume({ name: 'root', persistentVolumeClaim: { claimName: 'root' } }),
    withVolume({ name: 'cd', containerDisk: { image: 'img' } }),
    withHotplugVolume('hp', 'hp'),
    withVolume({ name: 'late', persistentVolumeClaim: { claimName: 'late' } }),
    withHotplugImage('iso', 'iso:img'),
  );
  it('with a launcher Pod: PVC and DataVolume volumes the Pod does not mount, and hotpluggable images', () => {
    const names = hotplugVolumes(v, pod(withPodClaims('root'))).map((x) => x.name);
    expect(names).toEqual(['hp', 'late', 'iso']);
  });
  it('without one: the hotpluggable ones', () => {
    expect(hotplugVolumes(v, undefined).map((x) => x.name)).toEqual(['hp', 'iso']);
  });
  it('an image is ready at once, a claim by its phase', () => {
    const image = { name: 'iso', containerDisk: { image: 'iso:img', hotpluggable: true } };
    expect(volumeReadyToAttach(image, claims())).toBe(true);
    expect(volumeReadyToAttach(hpVolume('d'), claims())).toBe(false);
    expect(volumeReadyToAttach(hpVolume('d'), claims(pvc('d')))).toBe(true);
  });
  it('a Pod matches by its claim and image volumes', () => {
    const image = { name: 'iso', containerDisk: { image: 'iso:img', hotpluggable: true } };
    const p = attachmentPod('hp-volume-a', ['v1'], withPodImages('iso'));
    expect(podMatchesVolumes(p, [hpVolume('v1'), image])).toBe(true);
    expect(podMatchesVolumes(p, [hpVolume('v1')])).toBe(false);
    expect(podMatchesVolumes(attachmentPod('hp-volume-b', ['v1']), [hpVolume('v1'), image])).toBe(false);
  });

  it.each<[string, PersistentVolumeClaim | undefined, boolean]>([
    ['no claim', undefined, false],
    ['a plain claim, Pending (the attachment Pod may be its first consumer)', pvc('d'), true],
    ['a plain claim, Bound', pvc('d', bound), true],
    ["a DataVolume's claim, not Bound (still populating)", pvc('d', ownedByDataVolume), false],
    ["a DataVolume's claim, Bound", pvc('d', ownedByDataVolume, bound), true],
  ])('readyToAttach: %s', (_n, claim, want) => {
    expect(readyToAttach(claim)).toBe(want);
  });

  it('a Pod matches by its claim volumes only (emptyDir and token volumes do not count)', () => {
    const p = attachmentPod('hp-volume-a', ['v1'], (x) => {
      (x.spec['volumes'] as unknown[]).push({ name: 'kube-api-access-x', projected: {} });
    });
    expect(podMatchesVolumes(p, [hpVolume('v1')])).toBe(true);
    expect(podMatchesVolumes(p, [hpVolume('v1'), hpVolume('v2')])).toBe(false);
    expect(podMatchesVolumes(p, [])).toBe(false);
  });

  it('does not touch a running VMI', () => {
    const x: VirtualMachineInstance = vmi(withPhase('Running'), withHotplugVolume('v1', 'v1'));
    const before = structuredClone(x);
    planAttachment({ vmi: x, hotplug: [hpVolume('v1')], ready: [hpVolume('v1')], pods: [] });
    expect(x).toEqual(before);
  });
});
