/**
 * status.volumeRequests (written by addvolume/removevolume under the HotplugVolumes gate) applied to a VMI spec
 * (kubevirt controller.go ApplyVolumeRequestOnVMISpec): the VM controller applies them to the template and the
 * running VMI, the VM admission check validates the result. The Deckhouse fork also hotplugs containerDisks,
 * so that source is carried too.
 */
import type { VirtualMachineVolumeRequest } from './v1/vm.ts';
import type { VirtualMachineInstanceSpec } from './v1/vmi-spec.ts';
import type { Volume } from './v1/volume.ts';

function hotplugVolume(req: NonNullable<VirtualMachineVolumeRequest['addVolumeOptions']>): Volume {
  const src = req.volumeSource;
  const volume: Volume = { name: req.name };
  if (src.persistentVolumeClaim !== undefined) {
    volume.persistentVolumeClaim = { ...structuredClone(src.persistentVolumeClaim), hotpluggable: true };
  } else if (src.dataVolume !== undefined) {
    volume.dataVolume = { ...structuredClone(src.dataVolume), hotpluggable: true };
  } else if (src.containerDisk?.image !== undefined) {
    volume.containerDisk = {
      ...structuredClone(src.containerDisk),
      image: src.containerDisk.image,
      hotpluggable: true,
    };
  }
  return volume;
}

/** The spec with one request applied (a new object; the input is not touched). */
export function applyVolumeRequest(
  spec: VirtualMachineInstanceSpec,
  req: VirtualMachineVolumeRequest,
): VirtualMachineInstanceSpec {
  const out = structuredClone(spec);
  const add = req.addVolumeOptions;
  if (add !== undefined) {
    if (out.volumes?.some((v) => v.name === add.name)) return out;
    (out.volumes ??= []).push(hotplugVolume(add));
    (out.domain.devices.disks ??= []).push({ ...structuredClone(add.disk), name: add.name });
    return out;
  }
  const name = req.removeVolumeOptions?.name;
  if (name === undefined) return out;
  out.volumes = (out.volumes ?? []).filter((v) => v.name !== name);
  out.domain.devices.disks = (out.domain.devices.disks ?? []).filter((d) => d.name !== name);
  return out;
}

/** The spec with every request applied, in order (always a new object). */
export function applyVolumeRequests(
  spec: VirtualMachineInstanceSpec,
  reqs: readonly VirtualMachineVolumeRequest[] | undefined,
): VirtualMachineInstanceSpec {
  return (reqs ?? []).reduce(applyVolumeRequest, structuredClone(spec));
}
