/**
 * status.resourceClaimRequests (written by the Deckhouse fork's addresourceclaim/removeresourceclaim under the
 * HotplugHostDevicesWithDRA gate) applied to a VMI spec: the VM controller applies them to the template and the
 * running VMI, and the api's VMI patch is the spec with the request applied. The fork's
 * ApplyResourceClaimRequestOnVMISpec is not public (its rest/resourceclaims.go, which calls it, is in
 * deckhouse/3p-kubevirt), so these rules are inferred by analogy with ApplyVolumeRequestOnVMISpec
 * (./volume-requests.ts):
 * - an add puts the claim (hotpluggable) into spec.resourceClaims, unless a claim of that name is there, and the
 *   host device, named after the request, into domain.devices.hostDevices; nothing when a host device of that
 *   name is there already;
 * - a remove drops the host device of that name, and the claims it and the request name that no remaining host
 *   device or GPU uses (claimName).
 * Pure: always a new spec.
 */
import type { VirtualMachineResourceClaimRequest } from './v1/vm.ts';
import type { VirtualMachineInstanceSpec } from './v1/vmi-spec.ts';

type AddOptions = NonNullable<VirtualMachineResourceClaimRequest['addResourceClaimOptions']>;

function applyAdd(out: VirtualMachineInstanceSpec, add: AddOptions): void {
  const devices = out.domain.devices;
  if (devices.hostDevices?.some((d) => d.name === add.name)) return;
  if (!out.resourceClaims?.some((c) => c.name === add.resourceClaim.name)) {
    (out.resourceClaims ??= []).push({ ...structuredClone(add.resourceClaim), hotpluggable: true });
  }
  (devices.hostDevices ??= []).push({ ...structuredClone(add.hostDevice), name: add.name });
}

function applyRemove(out: VirtualMachineInstanceSpec, name: string): void {
  const devices = out.domain.devices;
  const removed = devices.hostDevices?.find((d) => d.name === name);
  if (devices.hostDevices !== undefined)
    devices.hostDevices = devices.hostDevices.filter((d) => d !== removed);
  if (out.resourceClaims === undefined) return;
  const candidates = new Set([name, ...(removed?.claimName === undefined ? [] : [removed.claimName])]);
  const used = new Set(
    [...(devices.hostDevices ?? []), ...(devices.gpus ?? [])]
      .map((d) => d.claimName)
      .filter((c) => c !== undefined),
  );
  out.resourceClaims = out.resourceClaims.filter((c) => !candidates.has(c.name) || used.has(c.name));
}

/** The spec with one request applied (a new object; the input is not touched). */
export function applyResourceClaimRequest(
  spec: VirtualMachineInstanceSpec,
  req: VirtualMachineResourceClaimRequest,
): VirtualMachineInstanceSpec {
  const out = structuredClone(spec);
  if (req.addResourceClaimOptions !== undefined) applyAdd(out, req.addResourceClaimOptions);
  else if (req.removeResourceClaimOptions !== undefined)
    applyRemove(out, req.removeResourceClaimOptions.name);
  return out;
}

/** The spec with every request applied, in order (always a new object). */
export function applyResourceClaimRequests(
  spec: VirtualMachineInstanceSpec,
  reqs: readonly VirtualMachineResourceClaimRequest[] | undefined,
): VirtualMachineInstanceSpec {
  return (reqs ?? []).reduce(applyResourceClaimRequest, structuredClone(spec));
}
