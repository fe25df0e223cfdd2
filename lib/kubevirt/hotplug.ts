/**
 * Hotplug volume phases that more than one role reads (kubevirt pkg/virt-handler/hotplug-disk, pkg/virt-launcher
 * converter): once the handler has mounted a hotplugged claim into the launcher Pod (MountedToPod) and until it
 * goes (Ready included), the launcher puts its disk in the domain.
 */
import type { VirtualMachineInstance } from './v1/objects.ts';
import type { Volume } from './v1/volume.ts';

export const HOTPLUG_MOUNTED_PHASES: readonly (string | undefined)[] = ['MountedToPod', 'Ready'];
/** From the controller's AttachedToNode (its attachment Pod holds the claim on the node) on. */
export const HOTPLUG_ATTACHED_PHASES: readonly (string | undefined)[] = [
  'AttachedToNode',
  ...HOTPLUG_MOUNTED_PHASES,
];

/** The hotplug volumes the launcher should have as disks, by name, sorted. */
export function mountedHotplugVolumes(vmi: Pick<VirtualMachineInstance, 'status'>): string[] {
  return (vmi.status?.volumeStatus ?? [])
    .filter((v) => v.hotplugVolume !== undefined && HOTPLUG_MOUNTED_PHASES.includes(v.phase))
    .map((v) => v.name)
    .sort();
}

/**
 * A volume that reaches the launcher through an attachment Pod rather than the launcher Pod (kubevirt
 * storagetypes.IsHotplugVolume, with the Deckhouse fork's hotpluggable containerDisk).
 */
function isHotplugVolume(v: Volume): boolean {
  return (
    v.persistentVolumeClaim?.hotpluggable === true ||
    v.dataVolume?.hotpluggable === true ||
    v.containerDisk?.hotpluggable === true ||
    v.memoryDump !== undefined
  );
}

/**
 * Whether every hotplug volume of the spec is mounted into the launcher Pod, so a domain started now has its
 * disks (kubevirt virt-handler hotplugVolumesReady, which the handler checks before the first start: Deckhouse
 * declares the boot disk hotpluggable). Stricter than KubeVirt, which passes a volume that has no status entry
 * yet when another volume has one.
 */
export function hotplugVolumesReady(vmi: Pick<VirtualMachineInstance, 'spec' | 'status'>): boolean {
  const mounted = new Set(mountedHotplugVolumes(vmi));
  return (vmi.spec.volumes ?? []).every((v) => !isHotplugVolume(v) || mounted.has(v.name));
}

/**
 * Where an attachment Pod's container mounts the image of a hotplugged containerDisk (the Deckhouse fork's
 * patch 031): the controller renders it, the node looks for the image's disk there.
 */
export function attachmentImageMountPath(volume: string): string {
  return `/images/${volume}`;
}
