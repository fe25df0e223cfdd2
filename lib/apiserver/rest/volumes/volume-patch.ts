/**
 * The JSON patches a volume request becomes (kubevirt rest/volumes.go generateVolumeRequestPatch,
 * generateVMVolumeRequestPatch; pkg/controller ApplyVolumeRequestOnVMISpec, with the Deckhouse fork's
 * containerDisk, tag v1.6.2):
 * - on a spec (the VMI's, or the VM template's under the prefix /spec/template): `test` of the current volumes
 *   and disks, then `replace` of each list (`add` when the list is empty) with the request applied. An add puts
 *   the volume (its claim, else DataVolume, else containerDisk source, hotpluggable) and the disk at the end; a
 *   remove drops the volume and disk of that name;
 * - on a VM's status: `test` + `replace` (or `add`) of status.volumeRequests with the request appended; a pending
 *   add of the same name is dropped by a remove; a second add, an add while a remove is pending, or a second
 *   remove are refused with KubeVirt's texts (status-requests.ts, shared with the resource claim requests).
 * The requests are applied as the VM controller applies them (lib/kubevirt/volume-requests.ts). Pure.
 */
import type {
  VirtualMachine,
  VirtualMachineInstanceSpec,
  VirtualMachineVolumeRequest,
} from '../../../kubevirt/index.ts';
import { applyVolumeRequest } from '../../../kubevirt/volume-requests.ts';
import { listsPatch } from '../list-patch.ts';
import type { JsonPatchOp } from '../patch-plan.ts';
import { statusRequestsPatch, type RequestKind } from '../status-requests.ts';

/** test + replace/add of the volumes and disks of the spec at `prefix` ('' for a VMI, '/spec/template'). */
export function specVolumePatch(
  prefix: '' | '/spec/template',
  spec: VirtualMachineInstanceSpec,
  req: VirtualMachineVolumeRequest,
): JsonPatchOp[] {
  const out = applyVolumeRequest(spec, req);
  return listsPatch([
    { path: `${prefix}/spec/volumes`, old: spec.volumes, next: out.volumes ?? [] },
    {
      path: `${prefix}/spec/domain/devices/disks`,
      old: spec.domain.devices.disks,
      next: out.domain.devices.disks ?? [],
    },
  ]);
}

const VOLUME_REQUESTS: RequestKind<VirtualMachineVolumeRequest> = {
  path: '/status/volumeRequests',
  noun: 'volume',
  addName: (r) => r.addVolumeOptions?.name,
  removeName: (r) => r.removeVolumeOptions?.name,
};

/** test + replace/add of status.volumeRequests with the request taken in, or the conflict text. */
export function volumeRequestsPatch(
  vm: Pick<VirtualMachine, 'status'>,
  req: VirtualMachineVolumeRequest,
): JsonPatchOp[] | string {
  return statusRequestsPatch(VOLUME_REQUESTS, vm.status?.volumeRequests, req);
}
