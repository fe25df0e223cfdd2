/**
 * The bodies of PUT {virtualmachines,virtualmachineinstances}/{name}/{addresourceclaim,removeresourceclaim}, the
 * Deckhouse fork's DRA host device hotplug (not upstream; the fork's handlers are in deckhouse/3p-kubevirt
 * pkg/virt-api/rest/resourceclaims.go, read through the search index; they follow rest/volumes.go's
 * addVolumeRequestHandler, and so does this file: volume-options.ts). Checked in the fork's order, before the VM
 * or VMI is read:
 * - 400 unless the HotplugHostDevicesWithDRA feature gate is on;
 * - 400 for no body at all (undefined here, see volume-options.ts), then for a body that does not decode;
 * - add: 400 for a missing name, host device or resource claim (in that order); then the host device and the
 *   claim are named after the request and the claim marked hotpluggable. The host device's claimName is kept as
 *   sent (the fork checks it nowhere; Deckhouse's virtualization-api sends the request's name);
 * - remove: 400 for a missing name.
 * The result is the resource claim request the plan writes. Pure.
 */
import type { VirtualMachineResourceClaimRequest } from '../../../kubevirt/index.ts';
import { decodeOptions } from '../body/decode-body.ts';
import { badRequest, isRefusal, type Refusal } from '../refusal.ts';
import { NO_BODY, type FeatureGates } from '../volumes/volume-options.ts';

const HOTPLUG_HOST_DEVICES_WITH_DRA = 'HotplugHostDevicesWithDRA';
export const RESOURCE_CLAIM_HOTPLUG_NOT_ENABLED = `Enable ${HOTPLUG_HOST_DEVICES_WITH_DRA} feature gate to use this API.`;

function bodyRefusal(body: unknown, gates: FeatureGates): Refusal | undefined {
  if (!gates.has(HOTPLUG_HOST_DEVICES_WITH_DRA)) return badRequest(RESOURCE_CLAIM_HOTPLUG_NOT_ENABLED);
  return body === undefined ? badRequest(NO_BODY) : undefined;
}

export function addResourceClaimRequest(
  body: unknown,
  gates: FeatureGates,
): VirtualMachineResourceClaimRequest | Refusal {
  const refused = bodyRefusal(body, gates);
  if (refused !== undefined) return refused;
  const opts = decodeOptions('addresourceclaim', body);
  if (isRefusal(opts)) return opts;
  const { name, hostDevice, resourceClaim } = opts;
  if (name === undefined || name === '') return badRequest('AddResourceClaimOptions requires name to be set');
  if (hostDevice === undefined)
    return badRequest('AddResourceClaimOptions requires hostDevice to not be nil');
  if (resourceClaim === undefined) {
    return badRequest('AddResourceClaimOptions requires resourceClaim to not be nil');
  }
  return {
    addResourceClaimOptions: {
      ...opts,
      name,
      hostDevice: { ...hostDevice, name },
      resourceClaim: { ...resourceClaim, name, hotpluggable: true },
    },
  };
}

export function removeResourceClaimRequest(
  body: unknown,
  gates: FeatureGates,
): VirtualMachineResourceClaimRequest | Refusal {
  const refused = bodyRefusal(body, gates);
  if (refused !== undefined) return refused;
  const opts = decodeOptions('removeresourceclaim', body);
  if (isRefusal(opts)) return opts;
  if (opts.name === undefined || opts.name === '') {
    return badRequest('RemoveResourceClaimOptions requires name to be set');
  }
  return { removeResourceClaimOptions: { ...opts, name: opts.name } };
}

/** The patch request's dryRun: the body's list when it starts with "All", else none (as volumeDryRun). */
export function resourceClaimDryRun(req: VirtualMachineResourceClaimRequest): readonly string[] | undefined {
  const dryRun = req.addResourceClaimOptions?.dryRun ?? req.removeResourceClaimOptions?.dryRun;
  return dryRun?.[0] === 'All' ? dryRun : undefined;
}
