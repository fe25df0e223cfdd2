/**
 * addresourceclaim and removeresourceclaim, the Deckhouse fork's DRA host device hotplug, once the body is
 * checked (resource-claim-options.ts) and the object read (deckhouse/3p-kubevirt rest/resourceclaims.go
 * vmiResourceClaimPatch, vmResourceClaimPatchStatus, which follow rest/volumes.go, as volumes.ts does). Either
 * answers 202 once its one patch is applied; the patch request carries the body's dryRun when it starts with
 * "All".
 * - On a VMI: 409 unless Running; 409 when the request does not fit its claims (resource-claim-verify.ts); then
 *   a patch of its resourceClaims and hostDevices with the request applied (resource-claim-patch.ts), which the
 *   VMI controller and the launcher follow to attach or detach the device.
 * - On a VM: 409 when the request does not fit the template's claims; then a patch of
 *   status.resourceClaimRequests (409 for a request of that name already pending), which the VM controller
 *   applies to the template and the running VMI.
 * Without the object: 404. A failed patch: the API server's 422 as it answered, else 500 (patch-plan.ts). Pure.
 */
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineResourceClaimRequest,
} from '../../../kubevirt/index.ts';
import { isRunning } from '../../../kubevirt/vmi-state.ts';
import { VMI_NOT_RUNNING } from '../messages.ts';
import { ACCEPTED, patchPlan, type VmPlan } from '../patch-plan.ts';
import { conflict, notFound, type Refusal } from '../refusal.ts';
import { resourceClaimDryRun } from './resource-claim-options.ts';
import { resourceClaimRequestsPatch, vmiResourceClaimPatch } from './resource-claim-patch.ts';
import { verifyResourceClaimRequest } from './resource-claim-verify.ts';

export interface ResourceClaimChange<T> {
  /** The name in the request path. */
  readonly name: string;
  /** The object read, or undefined when there is none (404). */
  readonly object: T | undefined;
  /** From addResourceClaimRequest or removeResourceClaimRequest. */
  readonly request: VirtualMachineResourceClaimRequest;
}

export function planVmiResourceClaim(change: ResourceClaimChange<VirtualMachineInstance>): VmPlan | Refusal {
  const { object: vmi, request: req } = change;
  if (vmi === undefined) return notFound('virtualmachineinstance', change.name);
  const name = vmi.metadata.name ?? '';
  if (!isRunning(vmi)) return conflict('virtualmachineinstance', name, VMI_NOT_RUNNING);
  const refused = verifyResourceClaimRequest(vmi.spec.resourceClaims, req);
  if (refused !== undefined) return conflict('virtualmachineinstance', name, refused);
  const onError = { kind: 'invalid-or-internal', prefix: 'unable to patch vmi' } as const;
  return {
    patches: [patchPlan('vmi', vmiResourceClaimPatch(vmi.spec, req), onError, resourceClaimDryRun(req))],
    then: ACCEPTED,
  };
}

export function planVmResourceClaim(change: ResourceClaimChange<VirtualMachine>): VmPlan | Refusal {
  const { object: vm, request: req } = change;
  if (vm === undefined) return notFound('virtualmachine', change.name);
  const name = vm.metadata.name ?? '';
  const refused = verifyResourceClaimRequest(vm.spec.template.spec.resourceClaims, req);
  if (refused !== undefined) return conflict('virtualmachine', name, refused);
  const ops = resourceClaimRequestsPatch(vm, req);
  if (typeof ops === 'string') return conflict('virtualmachine', name, ops);
  const onError = { kind: 'invalid-or-internal', prefix: 'unable to patch vm status' } as const;
  return { patches: [patchPlan('vm/status', ops, onError, resourceClaimDryRun(req))], then: ACCEPTED };
}
