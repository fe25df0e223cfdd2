/**
 * status.volumeRequests dropped once the VM template reflects them (kubevirt vm.go trimDoneVolumeRequests).
 * Applying them to a spec is shared with the VM admission check (lib/kubevirt/volume-requests.ts).
 */
import type { VirtualMachine, VirtualMachineVolumeRequest } from '../../kubevirt/index.ts';

export { applyVolumeRequests } from '../../kubevirt/index.ts';

/** The requests the VM template does not reflect yet (an add whose volume and disk exist is done, ...). */
export function pendingVolumeRequests(vm: VirtualMachine): VirtualMachineVolumeRequest[] | undefined {
  const reqs = vm.status?.volumeRequests;
  if (reqs === undefined) return undefined;
  const spec = vm.spec.template.spec;
  const volumes = new Set((spec.volumes ?? []).map((v) => v.name));
  const disks = new Set((spec.domain.devices.disks ?? []).map((d) => d.name));
  return reqs.filter((r) => {
    const added = r.addVolumeOptions !== undefined;
    const name = r.addVolumeOptions?.name ?? r.removeVolumeOptions?.name ?? '';
    const present = volumes.has(name) && disks.has(name);
    const absent = !volumes.has(name) && !disks.has(name);
    return added ? !present : !absent;
  });
}
