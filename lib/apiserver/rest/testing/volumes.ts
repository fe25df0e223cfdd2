/** Volumes, disks and requests for the addvolume/removevolume tables, and the plans they expect. */
import type { VirtualMachineVolumeRequest, Volume } from '../../../kubevirt/index.ts';
import { withDisk, withVolume } from '../../../kubevirt/testing/builders.ts';
import { onSpec } from '../../../kubevirt/testing/objects.ts';
import type { JsonPatchOp, PatchPlan, VmPlan } from '../patch-plan.ts';
import type { FeatureGates } from '../volumes/volume-options.ts';
import { accepted } from './plans.ts';

export const legacy: FeatureGates = new Set(['HotplugVolumes']);
export const declarative: FeatureGates = new Set(['DeclarativeHotplugVolumes']);

export const rootDisk = { name: 'root', disk: { bus: 'virtio' } } as const;
export const rootVolume: Volume = { name: 'root', containerDisk: { image: 'reg/os' } };
export const hotVolume: Volume = {
  name: 'data',
  persistentVolumeClaim: { claimName: 'pvc-data', hotpluggable: true },
};
export const hotDisk = { name: 'data', disk: { bus: 'scsi' } } as const;
export const base = [onSpec(withVolume(rootVolume), withDisk(rootDisk))];
export const hot = [onSpec(withVolume(hotVolume), withDisk(hotDisk))];

export const addPvc = (name: string, claimName: string, dryRun?: string[]): VirtualMachineVolumeRequest => ({
  addVolumeOptions: {
    name,
    disk: { name, disk: { bus: 'scsi' } },
    volumeSource: { persistentVolumeClaim: { claimName, hotpluggable: true } },
    ...(dryRun && { dryRun }),
  },
});
export const remove = (name: string): VirtualMachineVolumeRequest => ({ removeVolumeOptions: { name } });
export const newVolume = (name: string, claimName: string): Volume => ({
  name,
  persistentVolumeClaim: { claimName, hotpluggable: true },
});

export function specPatch(
  prefix: string,
  before: [Volume[] | null, unknown[] | null],
  after: [Volume[], unknown[]],
): JsonPatchOp[] {
  const [vols, disks] = before;
  const op = (old: unknown[] | null): 'add' | 'replace' =>
    old !== null && old.length > 0 ? 'replace' : 'add';
  return [
    { op: 'test', path: `${prefix}/spec/volumes`, value: vols },
    { op: 'test', path: `${prefix}/spec/domain/devices/disks`, value: disks },
    { op: op(vols), path: `${prefix}/spec/volumes`, value: after[0] },
    { op: op(disks), path: `${prefix}/spec/domain/devices/disks`, value: after[1] },
  ];
}
export const plan = (
  target: PatchPlan['target'],
  prefix: string,
  patch: JsonPatchOp[],
  dryRun?: string[],
): VmPlan =>
  accepted({
    target,
    type: 'json',
    patch,
    ...(dryRun && { dryRun }),
    onError: { kind: 'invalid-or-internal', prefix },
  });
