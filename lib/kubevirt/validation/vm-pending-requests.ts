/**
 * What KubeVirt's VM admission does with a VM's pending hotplug requests (status.volumeRequests, and the
 * Deckhouse fork's status.resourceClaimRequests), whichever kind: each request is checked against those before
 * it and applied, in order, to the template and to the running VMI; both specs must then pass the VMI spec
 * rules (at `spec.template.spec`, as KubeVirt reports them), and a migrating VMI takes no requests. The first
 * failing request, or spec, is the answer.
 */
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import { notSupported, type Causes } from './causes.ts';
import type { ValidationContext } from './context.ts';
import { validateVmiSpec } from './vmi-spec.ts';

const SPEC_PATH = 'spec.template.spec';

/** The VMI of a VM as the VM check needs it: passed when the VM is ready and its VMI is not being deleted. */
export interface RunningVmi {
  readonly spec: VirtualMachineInstanceSpec;
  /** The VMI's migration has started and not ended. */
  readonly migrating: boolean;
}

export interface PendingRequestRules<R> {
  /** "volume requests", "resource claim requests": for the migration refusal. */
  readonly what: string;
  /** The causes of one request, given the ones checked before it (the rules keep what they saw). */
  readonly check: (req: R) => Causes;
  readonly apply: (spec: VirtualMachineInstanceSpec, req: R) => VirtualMachineInstanceSpec;
}

/** The causes of `requests` on the VM's template and, when it runs, its VMI. */
export function pendingRequestCauses<R>(
  on: { readonly template: VirtualMachineInstanceSpec; readonly vmi: RunningVmi | undefined },
  requests: readonly R[] | undefined,
  ctx: ValidationContext,
  rules: PendingRequestRules<R>,
): Causes {
  if (requests === undefined || requests.length === 0) return [];
  const { template, vmi } = on;
  let next = { template, vmi: vmi?.spec };
  for (const req of requests) {
    const causes = rules.check(req);
    if (causes.length > 0) return causes;
    next = {
      template: rules.apply(next.template, req),
      vmi: next.vmi === undefined ? undefined : rules.apply(next.vmi, req),
    };
  }
  for (const spec of next.vmi === undefined ? [next.template] : [next.template, next.vmi]) {
    const causes = validateVmiSpec(spec, ctx, SPEC_PATH);
    if (causes.length > 0) return causes;
  }
  return vmi?.migrating === true
    ? [notSupported('spec', `Cannot handle ${rules.what} while VMI migration is in progress`)]
    : [];
}
