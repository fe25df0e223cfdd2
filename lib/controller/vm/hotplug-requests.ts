/**
 * The hotplug requests on a VM's status applied to a spec, in KubeVirt's order: status.volumeRequests, then the
 * Deckhouse fork's status.resourceClaimRequests. The VM controller applies them to the template, volume requests
 * to the running VMI too, and a new VMI starts with the pending ones (vmi-from-vm.ts). Pure: always a new spec.
 */
import type { VirtualMachineInstanceSpec, VirtualMachineStatus } from '../../kubevirt/index.ts';
import { deepEqual } from '../../kernel/controller/merge-patch.ts';
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

/** The RestartRequired message of a running VM whose DRA host devices changed (the fork hotplugs them). */
export const DRA_HOTPLUG_RESTART =
  'a DRA host device is added or removed at the next start: hotplugging DRA devices into a running VM is not built yet';

/** The resource claims or host devices differ between the two specs. */
export function claimsChanged(a: VirtualMachineInstanceSpec, b: VirtualMachineInstanceSpec): boolean {
  return (
    !deepEqual(a.resourceClaims, b.resourceClaims) ||
    !deepEqual(a.domain.devices.hostDevices, b.domain.devices.hostDevices)
  );
}
