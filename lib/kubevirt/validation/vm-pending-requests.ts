/**
 * What KubeVirt's VM admission does with a VM's pending hotplug requests (vms-admitter.go
 * validateVolumeRequests, and the Deckhouse fork's validateResourceClaimRequests for
 * status.resourceClaimRequests), whichever kind: each request adds or removes, once per name; an add passes
 * its kind's own checks and does not clash with what the template or the running VMI has of that name; each
 * request is checked against those before it and applied, in order, to the template and to the running VMI;
 * both specs must then pass the VMI spec rules (at `spec.template.spec`, as KubeVirt reports them), and a
 * migrating VMI takes no requests. The first failing request, or spec, is the answer. "aleady" is KubeVirt's
 * spelling.
 */
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import { invalid, notSupported, type Causes } from './causes.ts';
import type { ValidationContext } from './context.ts';
import { semanticEqual } from './equality.ts';
import { validateVmiSpec } from './vmi-spec.ts';

const SPEC_PATH = 'spec.template.spec';

/** The VMI of a VM as the VM check needs it: passed when the VM is ready and its VMI is not being deleted. */
export interface RunningVmi {
  readonly spec: VirtualMachineInstanceSpec;
  /** The VMI's migration has started and not ended. */
  readonly migrating: boolean;
}

interface Named {
  readonly name: string;
}

/** One kind of pending request: what differs between the volume and the resource claim requests. */
export interface PendingRequestKind<R, A extends Named> {
  /** "Volume", "ResourceClaim": the word of the messages (AddVolume request, VolumeRequests, addVolumeOptions). */
  readonly kind: string;
  /** "volume", "resource claim": what an add puts on the spec, as the messages name it. */
  readonly noun: string;
  /** Where the causes sit: `Status.volumeRequests`, `Status.resourceClaimRequests`. */
  readonly field: string;
  readonly add: (req: R) => A | undefined;
  readonly remove: (req: R) => Named | undefined;
  /** The causes of an add particular to this kind (its disk, its host device); `prefix` is "Add<kind> request". */
  readonly addCauses: (add: A, prefix: string, field: string) => Causes;
  /** What an add puts on the spec, as compared with what a spec has of that name. */
  readonly requested: (add: A) => unknown;
  /** What a spec has of this kind. */
  readonly onSpec: (spec: VirtualMachineInstanceSpec) => readonly Named[] | undefined;
  readonly apply: (spec: VirtualMachineInstanceSpec, req: R) => VirtualMachineInstanceSpec;
}

interface Seen {
  readonly adds: Set<string>;
  readonly removes: Set<string>;
  readonly template: ReadonlyMap<string, Named>;
  readonly vmi: ReadonlyMap<string, Named>;
}

/** Nothing checked yet; what the template and the running VMI have of kind `k`, by name. */
function seenAtFirst<R, A extends Named>(
  k: PendingRequestKind<R, A>,
  template: VirtualMachineInstanceSpec,
  vmi: RunningVmi | undefined,
): Seen {
  const byName = (spec: VirtualMachineInstanceSpec): Map<string, Named> =>
    new Map((k.onSpec(spec) ?? []).map((x) => [x.name, x]));
  return {
    adds: new Set(),
    removes: new Set(),
    template: byName(template),
    vmi: vmi === undefined ? new Map() : byName(vmi.spec),
  };
}

const failure = (field: string, message: string): Causes => [invalid(field, message)];

/** The causes of an add, given the requests checked before it (recorded in `seen`). */
function addCauses<R, A extends Named>(k: PendingRequestKind<R, A>, add: A, seen: Seen): Causes {
  const prefix = `Add${k.kind} request for [${add.name}]`;
  if (seen.adds.has(add.name)) return failure(k.field, `${prefix} aleady exists`);
  const own = k.addCauses(add, `Add${k.kind} request`, k.field);
  if (own.length > 0) return own;
  const requested = k.requested(add);
  const conflict = `${prefix} conflicts with an existing ${k.noun} of the same name on`;
  const onTemplate = seen.template.get(add.name);
  if (onTemplate !== undefined && !semanticEqual(requested, onTemplate))
    return failure(k.field, `${conflict} the vmi template.`);
  const onVmi = seen.vmi.get(add.name);
  if (onVmi !== undefined && !semanticEqual(requested, onVmi))
    return failure(k.field, `${conflict} currently running vmi`);
  seen.adds.add(add.name);
  return [];
}

/** The causes of one request, given the ones checked before it (recorded in `seen`). */
function requestCauses<R, A extends Named>(k: PendingRequestKind<R, A>, req: R, seen: Seen): Causes {
  const add = k.add(req);
  const remove = k.remove(req);
  const options = `add${k.kind}Options or remove${k.kind}Options`;
  if (add !== undefined && remove !== undefined)
    return failure(k.field, `${k.kind}Requests require either ${options} to be set, not both`);
  if (add !== undefined) return addCauses(k, add, seen);
  if (remove === undefined)
    return failure(k.field, `${k.kind}Requests require one of either ${options} to be set`);
  if (seen.removes.has(remove.name))
    return failure(k.field, `Remove${k.kind} request for [${remove.name}] aleady exists`);
  seen.removes.add(remove.name);
  return [];
}

/** The causes of `requests` of kind `k` on the VM's template and, when it runs, its VMI. */
export function pendingRequestCauses<R, A extends Named>(
  k: PendingRequestKind<R, A>,
  requests: readonly R[] | undefined,
  on: { readonly template: VirtualMachineInstanceSpec; readonly vmi: RunningVmi | undefined },
  ctx: ValidationContext,
): Causes {
  if (requests === undefined || requests.length === 0) return [];
  const { template, vmi } = on;
  const seen = seenAtFirst(k, template, vmi);
  let next = { template, vmi: vmi?.spec };
  for (const req of requests) {
    const causes = requestCauses(k, req, seen);
    if (causes.length > 0) return causes;
    next = {
      template: k.apply(next.template, req),
      vmi: next.vmi === undefined ? undefined : k.apply(next.vmi, req),
    };
  }
  for (const spec of next.vmi === undefined ? [next.template] : [next.template, next.vmi]) {
    const causes = validateVmiSpec(spec, ctx, SPEC_PATH);
    if (causes.length > 0) return causes;
  }
  return vmi?.migrating === true
    ? [notSupported('spec', `Cannot handle ${k.noun} requests while VMI migration is in progress`)]
    : [];
}
