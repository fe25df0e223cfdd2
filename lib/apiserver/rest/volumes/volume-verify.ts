/**
 * Whether a volume request fits the volumes it would change (kubevirt rest/volumes.go verifyVolumeOption, with
 * the Deckhouse fork's containerDisk, whose source is named by its image, tag v1.6.2): an add needs a new volume
 * name and a source no volume uses; a remove needs a volume with that name, or using a source of that name, and
 * that volume hotpluggable. The first volume that decides it, in order, gives the text. Pure.
 */
import type { HotplugVolumeSource, VirtualMachineVolumeRequest, Volume } from '../../../kubevirt/index.ts';

/** The name of the source: the DataVolume's, else the claim's, else the image (the first source set decides). */
function volumeSourceName(source: HotplugVolumeSource): string {
  if (source.dataVolume !== undefined) return source.dataVolume.name;
  if (source.persistentVolumeClaim !== undefined) return source.persistentVolumeClaim.claimName;
  return source.containerDisk?.image ?? '';
}

function usesSource(v: Volume, name: string): boolean {
  return (
    (v.dataVolume !== undefined && v.dataVolume.name === name) ||
    (v.persistentVolumeClaim !== undefined && v.persistentVolumeClaim.claimName === name) ||
    (v.containerDisk !== undefined && v.containerDisk.image === name)
  );
}

function isHotpluggable(v: Volume): boolean {
  return (
    v.dataVolume?.hotpluggable === true ||
    v.persistentVolumeClaim?.hotpluggable === true ||
    v.containerDisk?.hotpluggable === true
  );
}

/** The refusal text, or undefined when the request fits. */
export function verifyVolumeRequest(
  volumes: readonly Volume[] | undefined,
  req: VirtualMachineVolumeRequest,
): string | undefined {
  const add = req.addVolumeOptions;
  const remove = req.removeVolumeOptions;
  for (const v of volumes ?? []) {
    if (add !== undefined) {
      const source = volumeSourceName(add.volumeSource);
      if (v.name === add.name)
        return `Unable to add volume [${add.name}] because volume with that name already exists`;
      if (usesSource(v, source)) return `Unable to add volume source [${source}] because it already exists`;
    } else if (remove !== undefined && (v.name === remove.name || usesSource(v, remove.name))) {
      return isHotpluggable(v)
        ? undefined
        : `Unable to remove volume [${v.name}] because it is not hotpluggable`;
    }
  }
  return remove === undefined
    ? undefined
    : `Unable to remove volume [${remove.name}] because it does not exist`;
}
