/**
 * A VirtualMachine create or update, as KubeVirt's /virtualmachines-validate sees it (vms-admitter.go Admit):
 * a VM being deleted passes; the template is checked with KubeVirt's VMI defaults applied to a copy
 * (SetDefaultVirtualMachineInstanceSpec); on create, discontinued gates and slirp are refused first; then the
 * VM spec (template metadata and spec, DataVolume templates, run strategy, live-update limits), the storage
 * checks, the volume requests, and the Deckhouse fork's resource claim requests. KubeVirt stops at the first
 * failing step; so does this.
 *
 * Left out: instance types and preferences (KubeVirt applies them before validating; Deckhouse does not use
 * them), and the deprecation warnings KubeVirt returns with an allowed VM. A defaulting failure (a VM with no
 * interfaces where the cluster forbids the default one) is a 400 with a bare message in KubeVirt; here it is
 * one cause with no field.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import { setVmiSpecDefaults } from '../defaults/vmi-spec.ts';
import type { VirtualMachine } from '../v1/objects.ts';
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import { child, firstFailing, invalid, type Causes } from './causes.ts';
import { clusterOf, type ValidationContext } from './context.ts';
import { discontinuedGateCauses } from './feature-gates.ts';
import { vmStorageCauses } from './vm-storage.ts';
import { dataVolumeTemplateCauses, liveUpdateCauses, runStrategyCauses } from './vm-spec.ts';
import { RESOURCE_CLAIM_REQUESTS } from './vm-claim-requests.ts';
import { pendingRequestCauses, type RunningVmi } from './vm-pending-requests.ts';
import { VOLUME_REQUESTS } from './vm-volume-requests.ts';
import { validateVmiMetadata } from './vmi-metadata.ts';
import { networkCreation } from './vmi-network.ts';
import { validateVmiSpec } from './vmi-spec.ts';

type Vm = Pick<VirtualMachine, 'metadata' | 'spec' | 'status'>;

export interface VmContext extends ValidationContext {
  /** The request comes from one of KubeVirt's (our) service accounts. */
  readonly isKubevirtServiceAccount: boolean;
  /** The admission request's namespace, for a VM that names none. */
  readonly requestNamespace?: string;
  /** The VM's VMI, when the VM is ready and the VMI exists and is not being deleted. */
  readonly runningVmi?: RunningVmi;
}

/** The template with KubeVirt's VMI defaults, or the defaulting failure as causes. */
function defaultedTemplate(vm: Vm, ctx: VmContext): VirtualMachineInstanceSpec | Causes {
  const spec = structuredClone(vm.spec.template.spec);
  try {
    setVmiSpecDefaults(spec, clusterOf(ctx));
  } catch (err: unknown) {
    if (err instanceof KvError) return [invalid('', err.message)];
    throw err;
  }
  return spec;
}

function specCauses(vm: Vm, template: VirtualMachineInstanceSpec, ctx: VmContext): Causes {
  const spec = { ...vm.spec, template: { ...vm.spec.template, spec: template } };
  return [
    ...validateVmiMetadata(vm.spec.template.metadata, ctx, child('spec', 'template', 'metadata')),
    ...validateVmiSpec(template, ctx, child('spec', 'template', 'spec')),
    ...dataVolumeTemplateCauses(spec, 'spec'),
    ...runStrategyCauses(spec, ctx, 'spec'),
    ...liveUpdateCauses(spec, ctx, 'spec'),
  ];
}

/** Every cause of `vm`; `oldVm` is the stored VM on update and undefined on create. */
export function validateVm(vm: Vm, oldVm: Vm | undefined, ctx: VmContext): Causes {
  if ((vm.metadata.deletionTimestamp ?? '') !== '') return [];
  const template = defaultedTemplate(vm, ctx);
  if (Array.isArray(template)) return template;
  const creating = oldVm === undefined;
  const on = { template: vm.spec.template.spec, vmi: ctx.runningVmi };
  return firstFailing(
    () => (creating ? discontinuedGateCauses(vm.spec.template.spec, ctx) : []),
    // KubeVirt runs the network creation rules on the template at `spec`, not `spec.template.spec`.
    () => (creating ? networkCreation(template, ctx, 'spec') : []),
    () => specCauses(vm, template, ctx),
    () => vmStorageCauses(vm, oldVm, ctx.requestNamespace ?? ''),
    () => pendingRequestCauses(VOLUME_REQUESTS, vm.status?.volumeRequests, on, ctx),
    () => pendingRequestCauses(RESOURCE_CLAIM_REQUESTS, vm.status?.resourceClaimRequests, on, ctx),
  );
}
