/**
 * The JSON patches a resource claim request becomes, as volume-patch.ts does for a volume request (the Deckhouse
 * fork's rest/resourceclaims.go vmiResourceClaimPatch and generateVMResourceClaimRequestPatch, which follow
 * rest/volumes.go generateVolumeRequestPatch and generateVMVolumeRequestPatch):
 * - on a VMI's spec: `test` of the current resourceClaims and domain.devices.hostDevices, then `replace` of each
 *   list (`add` when it is empty or absent) with the request applied as the VM controller applies it
 *   (lib/kubevirt/resource-claim-requests.ts);
 * - on a VM's status: `test` + `replace` (or `add`) of status.resourceClaimRequests with the request taken in,
 *   or KubeVirt's conflict text for a request of that name already pending (status-requests.ts).
 * Pure.
 */
import type {
  VirtualMachine,
  VirtualMachineInstanceSpec,
  VirtualMachineResourceClaimRequest,
} from '../../../kubevirt/index.ts';
import { applyResourceClaimRequest } from '../../../kubevirt/resource-claim-requests.ts';
import { listsPatch } from '../list-patch.ts';
import type { JsonPatchOp } from '../patch-plan.ts';
import { statusRequestsPatch, type RequestKind } from '../status-requests.ts';

/** test + replace/add of the resource claims and host devices of a VMI's spec. */
export function vmiResourceClaimPatch(
  spec: VirtualMachineInstanceSpec,
  req: VirtualMachineResourceClaimRequest,
): JsonPatchOp[] {
  const out = applyResourceClaimRequest(spec, req);
  return listsPatch([
    { path: '/spec/resourceClaims', old: spec.resourceClaims, next: out.resourceClaims ?? [] },
    {
      path: '/spec/domain/devices/hostDevices',
      old: spec.domain.devices.hostDevices,
      next: out.domain.devices.hostDevices ?? [],
    },
  ]);
}

const RESOURCE_CLAIM_REQUESTS: RequestKind<VirtualMachineResourceClaimRequest> = {
  path: '/status/resourceClaimRequests',
  noun: 'resource claim',
  addName: (r) => r.addResourceClaimOptions?.name,
  removeName: (r) => r.removeResourceClaimOptions?.name,
};

/** test + replace/add of status.resourceClaimRequests with the request taken in, or the conflict text. */
export function resourceClaimRequestsPatch(
  vm: Pick<VirtualMachine, 'status'>,
  req: VirtualMachineResourceClaimRequest,
): JsonPatchOp[] | string {
  return statusRequestsPatch(RESOURCE_CLAIM_REQUESTS, vm.status?.resourceClaimRequests, req);
}
