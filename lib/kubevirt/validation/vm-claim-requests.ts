/**
 * status.resourceClaimRequests of a VM (the Deckhouse fork's vms-admitter.go validateResourceClaimRequests,
 * under HotplugHostDevicesWithDRA), checked as every kind of pending request is (vm-pending-requests.ts): an add
 * carries a host device for a DRA claim (a name, a claimName and a requestName; no deviceName, no tag) and its
 * claim does not clash with a claim of that name on the template or the running VMI. The causes sit at
 * `Status.resourceClaimRequests`.
 */
import type { HostDevice } from '../v1/devices.ts';
import type { VirtualMachineResourceClaimRequest } from '../v1/vm.ts';
import type { PodResourceClaim } from '../v1/vmi-spec.ts';
import { applyResourceClaimRequest } from '../resource-claim-requests.ts';
import { invalid } from './causes.ts';
import type { PendingRequestKind } from './vm-pending-requests.ts';

type AddOptions = NonNullable<VirtualMachineResourceClaimRequest['addResourceClaimOptions']>;

/** What the fork's claimRequest (inlined in the host device: there when either field is) lacks, if anything. */
function claimRequestProblem(d: HostDevice): string | undefined {
  if (d.claimName === undefined && d.requestName === undefined) return 'the claimRequest field to be set.';
  if ((d.claimName ?? '') === '') return 'the claimRequest.claimName field to be set.';
  if ((d.requestName ?? '') === '') return 'the claimRequest.requestName field to be set.';
  return undefined;
}

/** The first thing wrong with the host device of an add (stored JSON: it may be missing), as the fork words it. */
function hostDeviceProblem(d: HostDevice | undefined): string | undefined {
  if (d === undefined) return 'the hostDevice field to be set.';
  if (d.name === '') return 'the hostDevice.name field to be set.';
  if ((d.deviceName ?? '') !== '') return 'the hostDevice.deviceName field to be empty.';
  if ((d.tag ?? '') !== '') return 'the hostDevice.tag field to be empty.';
  return claimRequestProblem(d);
}

/** The claim an add describes (stored JSON: it may be missing). */
function requestedClaim(add: { readonly resourceClaim?: PodResourceClaim }): object {
  return add.resourceClaim ?? {};
}

export const RESOURCE_CLAIM_REQUESTS: PendingRequestKind<VirtualMachineResourceClaimRequest, AddOptions> = {
  kind: 'ResourceClaim',
  noun: 'resource claim',
  field: 'Status.resourceClaimRequests',
  add: (req) => req.addResourceClaimOptions,
  remove: (req) => req.removeResourceClaimOptions,
  addCauses: (add, prefix, field) => {
    const problem = hostDeviceProblem(add.hostDevice);
    return problem === undefined ? [] : [invalid(field, `${prefix} for [${add.name}] requires ${problem}`)];
  },
  requested: requestedClaim,
  onSpec: (spec) => spec.resourceClaims,
  apply: applyResourceClaimRequest,
};
