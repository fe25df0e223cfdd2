/**
 * addvolume and removevolume once the body is checked (volume-options.ts) and the object read (kubevirt
 * rest/volumes.go vmiVolumePatch, vmVolumePatchStatus, vmVolumePatch, tag v1.6.2). Either answers 202 once its
 * one patch is applied; the patch request carries the body's dryRun when it starts with "All".
 * - On a VMI: 400 "VMI ns/name is owned by a VM" when a VirtualMachine (kubevirt.io/v1) controls it and only
 *   DeclarativeHotplugVolumes is on; 409 unless Running; 409 when the request does not fit its volumes; then a
 *   patch of its volumes and disks.
 * - On a VM: 409 when the request does not fit the template's volumes; then, with HotplugVolumes, a patch of
 *   status.volumeRequests (409 for a request of that name already pending), else (DeclarativeHotplugVolumes
 *   only) a patch of the template's volumes and disks.
 * Without the object: 404. A failed patch: the API server's 422 as it answered, else 500 (patch-plan.ts patchFailure). Pure.
 */
import type {
  VirtualMachine,
  VirtualMachineInstance,
  VirtualMachineVolumeRequest,
} from '../../../kubevirt/index.ts';
import { isRunning } from '../../../kubevirt/vmi-state.ts';
import { VMI_NOT_RUNNING } from '../messages.ts';
import { ACCEPTED, patchPlan, type VmPlan } from '../patch-plan.ts';
import { badRequest, conflict, notFound, type Refusal } from '../refusal.ts';
import { ephemeralHotplug, volumeDryRun, type FeatureGates } from './volume-options.ts';
import { specVolumePatch, volumeRequestsPatch } from './volume-patch.ts';
import { verifyVolumeRequest } from './volume-verify.ts';

function ownedByVm(vmi: VirtualMachineInstance): boolean {
  const owner = vmi.metadata.ownerReferences?.find((r) => r.controller === true);
  return owner?.kind === 'VirtualMachine' && owner.apiVersion === 'kubevirt.io/v1';
}

export interface VolumeChange<T> {
  /** The name in the request path. */
  readonly name: string;
  /** The object read, or undefined when there is none (404). */
  readonly object: T | undefined;
  /** From addVolumeRequest or removeVolumeRequest. */
  readonly request: VirtualMachineVolumeRequest;
  readonly gates: FeatureGates;
}

export function planVmiVolume(change: VolumeChange<VirtualMachineInstance>): VmPlan | Refusal {
  const { object: vmi, request: req, gates } = change;
  if (vmi === undefined) return notFound('virtualmachineinstance', change.name);
  const { name = '', namespace = '' } = vmi.metadata;
  if (ownedByVm(vmi) && !ephemeralHotplug(gates))
    return badRequest(`VMI ${namespace}/${name} is owned by a VM`);
  if (!isRunning(vmi)) return conflict('virtualmachineinstance', name, VMI_NOT_RUNNING);
  const refused = verifyVolumeRequest(vmi.spec.volumes, req);
  if (refused !== undefined) return conflict('virtualmachineinstance', name, refused);
  const onError = { kind: 'invalid-or-internal', prefix: 'unable to patch vmi' } as const;
  return {
    patches: [patchPlan('vmi', specVolumePatch('', vmi.spec, req), onError, volumeDryRun(req))],
    then: ACCEPTED,
  };
}

export function planVmVolume(change: VolumeChange<VirtualMachine>): VmPlan | Refusal {
  const { object: vm, request: req, gates } = change;
  if (vm === undefined) return notFound('virtualmachine', change.name);
  const name = vm.metadata.name ?? '';
  const refused = verifyVolumeRequest(vm.spec.template.spec.volumes, req);
  if (refused !== undefined) return conflict('virtualmachine', name, refused);
  const dryRun = volumeDryRun(req);
  if (!ephemeralHotplug(gates)) {
    const ops = specVolumePatch('/spec/template', vm.spec.template.spec, req);
    const onError = { kind: 'invalid-or-internal', prefix: 'unable to patch vm' } as const;
    return { patches: [patchPlan('vm', ops, onError, dryRun)], then: ACCEPTED };
  }
  const ops = volumeRequestsPatch(vm, req);
  if (typeof ops === 'string') return conflict('virtualmachine', name, ops);
  const onError = { kind: 'invalid-or-internal', prefix: 'unable to patch vm status' } as const;
  return { patches: [patchPlan('vm/status', ops, onError, dryRun)], then: ACCEPTED };
}
