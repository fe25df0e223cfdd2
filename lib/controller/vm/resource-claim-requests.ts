/**
 * status.resourceClaimRequests (the Deckhouse fork's addresourceclaim/removeresourceclaim) dropped once the VM
 * template reflects them, as volume requests are (./volume-requests.ts). The fork's VM controller is not public,
 * so this is inferred by analogy with KubeVirt's trimDoneVolumeRequests: an add is done when the template has a
 * host device of that name, a remove when it has none. Applying them to a spec is lib/kubevirt's
 * (resource-claim-requests.ts), shared with the api's VMI patch.
 */
import type { VirtualMachine, VirtualMachineResourceClaimRequest } from '../../kubevirt/index.ts';

export { applyResourceClaimRequests } from '../../kubevirt/index.ts';

/** The requests the VM template does not reflect yet. */
export function pendingResourceClaimRequests(
  vm: VirtualMachine,
): VirtualMachineResourceClaimRequest[] | undefined {
  const reqs = vm.status?.resourceClaimRequests;
  if (reqs === undefined) return undefined;
  const devices = new Set((vm.spec.template.spec.domain.devices.hostDevices ?? []).map((d) => d.name));
  return reqs.filter((r) => {
    const add = r.addResourceClaimOptions;
    if (add !== undefined) return !devices.has(add.name);
    return devices.has(r.removeResourceClaimOptions?.name ?? '');
  });
}
