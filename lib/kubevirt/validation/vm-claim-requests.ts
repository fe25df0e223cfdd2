/**
 * status.resourceClaimRequests of a VM (the Deckhouse fork's vms-admitter.go validateResourceClaimRequests,
 * under HotplugHostDevicesWithDRA): each request adds or removes, once per name; an add carries a host device
 * for a DRA claim (a name, a claimName and a requestName; no deviceName, no tag) and its claim does not clash
 * with a claim of that name on the template or the running VMI; then the specs with the requests applied are
 * checked as every kind of pending request is (vm-pending-requests.ts). The causes sit at
 * `Status.resourceClaimRequests`; "aleady" is the fork's spelling.
 */
import type { HostDevice } from '../v1/devices.ts';
import type { VirtualMachineResourceClaimRequest } from '../v1/vm.ts';
import type { PodResourceClaim, VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import { applyResourceClaimRequest } from '../resource-claim-requests.ts';
import { invalid, type Causes } from './causes.ts';
import type { ValidationContext } from './context.ts';
import { semanticEqual } from './equality.ts';
import { pendingRequestCauses, type RunningVmi } from './vm-pending-requests.ts';

const FIELD = 'Status.resourceClaimRequests';
const PREFIX = 'AddResourceClaim request';

type AddOptions = NonNullable<VirtualMachineResourceClaimRequest['addResourceClaimOptions']>;

const fail = (message: string): Causes => [invalid(FIELD, message)];

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

interface Seen {
  readonly adds: Set<string>;
  readonly removes: Set<string>;
  readonly template: ReadonlyMap<string, PodResourceClaim>;
  readonly vmi: ReadonlyMap<string, PodResourceClaim>;
}

function addCauses(add: AddOptions, seen: Seen): Causes {
  const name = add.name;
  if (seen.adds.has(name)) return fail(`${PREFIX} for [${name}] aleady exists`);
  const problem = hostDeviceProblem(add.hostDevice);
  if (problem !== undefined) return fail(`${PREFIX} for [${name}] requires ${problem}`);
  const claim = (add.resourceClaim as PodResourceClaim | undefined) ?? {};
  const onTemplate = seen.template.get(name);
  if (onTemplate !== undefined && !semanticEqual(claim, onTemplate)) {
    return fail(
      `${PREFIX} for [${name}] conflicts with an existing resource claim of the same name on the vmi template.`,
    );
  }
  const onVmi = seen.vmi.get(name);
  if (onVmi !== undefined && !semanticEqual(claim, onVmi)) {
    return fail(
      `${PREFIX} for [${name}] conflicts with an existing resource claim of the same name on currently running vmi`,
    );
  }
  seen.adds.add(name);
  return [];
}

function requestCauses(req: VirtualMachineResourceClaimRequest, seen: Seen): Causes {
  const { addResourceClaimOptions: add, removeResourceClaimOptions: remove } = req;
  if (add !== undefined && remove !== undefined) {
    return fail(
      'ResourceClaimRequests require either addResourceClaimOptions or removeResourceClaimOptions to be set, not both',
    );
  }
  if (add !== undefined) return addCauses(add, seen);
  if (remove === undefined) {
    return fail(
      'ResourceClaimRequests require one of either addResourceClaimOptions or removeResourceClaimOptions to be set',
    );
  }
  if (seen.removes.has(remove.name))
    return fail(`RemoveResourceClaim request for [${remove.name}] aleady exists`);
  seen.removes.add(remove.name);
  return [];
}

const byName = (spec: VirtualMachineInstanceSpec | undefined): Map<string, PodResourceClaim> =>
  new Map((spec?.resourceClaims ?? []).map((c) => [c.name, c]));

export function claimRequestCauses(
  template: VirtualMachineInstanceSpec,
  requests: readonly VirtualMachineResourceClaimRequest[] | undefined,
  vmi: RunningVmi | undefined,
  ctx: ValidationContext,
): Causes {
  const seen: Seen = {
    adds: new Set(),
    removes: new Set(),
    template: byName(template),
    vmi: byName(vmi?.spec),
  };
  return pendingRequestCauses({ template, vmi }, requests, ctx, {
    what: 'resource claim requests',
    check: (req) => requestCauses(req, seen),
    apply: applyResourceClaimRequest,
  });
}
