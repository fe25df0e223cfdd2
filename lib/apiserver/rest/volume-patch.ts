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
 *   remove are refused with KubeVirt's texts.
 * The requests are applied as the VM controller applies them (lib/api/volume-requests.ts). Pure.
 */
import type {
  VirtualMachine,
  VirtualMachineInstanceSpec,
  VirtualMachineVolumeRequest,
  Volume,
} from '../../api/index.ts';
import { applyVolumeRequest } from '../../api/volume-requests.ts';
import type { JsonPatchOp } from './patch-plan.ts';

/** The volumes and disks with the request applied (lib/api/volume-requests.ts; the spec is not touched). */
function appliedLists(
  spec: VirtualMachineInstanceSpec,
  req: VirtualMachineVolumeRequest,
): { volumes: Volume[]; disks: NonNullable<VirtualMachineInstanceSpec['domain']['devices']['disks']> } {
  const out = applyVolumeRequest(spec, req);
  return { volumes: out.volumes ?? [], disks: out.domain.devices.disks ?? [] };
}

/** test + replace/add of the volumes and disks of the spec at `prefix` ('' for a VMI, '/spec/template'). */
export function specVolumePatch(
  prefix: '' | '/spec/template',
  spec: VirtualMachineInstanceSpec,
  req: VirtualMachineVolumeRequest,
): JsonPatchOp[] {
  const volumePath = `${prefix}/spec/volumes`;
  const diskPath = `${prefix}/spec/domain/devices/disks`;
  const oldVolumes = spec.volumes;
  const oldDisks = spec.domain.devices.disks;
  const next = appliedLists(spec, req);
  const setOp = (old: readonly unknown[] | undefined): 'replace' | 'add' =>
    old !== undefined && old.length > 0 ? 'replace' : 'add';
  return [
    { op: 'test', path: volumePath, value: oldVolumes ?? null },
    { op: 'test', path: diskPath, value: oldDisks ?? null },
    { op: setOp(oldVolumes), path: volumePath, value: next.volumes },
    { op: setOp(oldDisks), path: diskPath, value: next.disks },
  ];
}

function withAdd(
  current: readonly VirtualMachineVolumeRequest[],
  req: VirtualMachineVolumeRequest,
  name: string,
): VirtualMachineVolumeRequest[] | string {
  for (const r of current) {
    if (r.addVolumeOptions?.name === name) return `add volume request for volume [${name}] already exists`;
    if (r.removeVolumeOptions?.name === name) {
      return `unable to add volume since a remove volume request for volume [${name}] already exists and is still being processed`;
    }
  }
  return [...current, req];
}

function withRemove(
  current: readonly VirtualMachineVolumeRequest[],
  req: VirtualMachineVolumeRequest,
  name: string,
): VirtualMachineVolumeRequest[] | string {
  if (current.some((r) => r.removeVolumeOptions?.name === name)) {
    return `a remove volume request for volume [${name}] already exists and is still being processed`;
  }
  return [...current.filter((r) => r.addVolumeOptions?.name !== name), req];
}

/** test + replace/add of status.volumeRequests with the request taken in, or the conflict text. */
export function volumeRequestsPatch(
  vm: Pick<VirtualMachine, 'status'>,
  req: VirtualMachineVolumeRequest,
): JsonPatchOp[] | string {
  const current = vm.status?.volumeRequests;
  const addName = req.addVolumeOptions?.name;
  const removeName = req.removeVolumeOptions?.name ?? '';
  const next =
    addName !== undefined ? withAdd(current ?? [], req, addName) : withRemove(current ?? [], req, removeName);
  if (typeof next === 'string') return next;
  const path = '/status/volumeRequests';
  return [
    { op: 'test', path, value: current ?? null },
    { op: current !== undefined && current.length > 0 ? 'replace' : 'add', path, value: next },
  ];
}
