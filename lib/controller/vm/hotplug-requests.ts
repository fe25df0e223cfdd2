/**
 * The hotplug requests on a VM's status applied to a spec, in KubeVirt's order: status.volumeRequests, then the
 * Deckhouse fork's status.resourceClaimRequests. The VM controller applies them to the template and the running
 * VMI, and a new VMI starts with the pending ones (vmi-from-vm.ts). Pure: always a new spec.
 */
import type { VirtualMachineInstanceSpec, VirtualMachineStatus } from '../../kubevirt/index.ts';
import { applyResourceClaimRequests } from './resource-claim-requests.ts';
import { applyVolumeRequests } from './volume-requests.ts';

export function hasHotplugRequests(status: VirtualMachineStatus | undefined): boolean {
  return (status?.volumeRequests?.length ?? 0) > 0 || (status?.resourceClaimRequests?.length ?? 0) > 0;
}

export function applyHotplugRequests(
  spec: VirtualMachineInstanceSpec,
  status: VirtualMachineStatus | undefined,
): VirtualMachineInstanceSpec {
  return applyResourceClaimRequests(
    applyVolumeRequests(spec, status?.volumeRequests),
    status?.resourceClaimRequests,
  );
}
