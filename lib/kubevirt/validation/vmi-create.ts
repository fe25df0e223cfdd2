/**
 * A new VMI, as KubeVirt's /virtualmachineinstances-validate-create sees it: after the mutating webhook, so
 * with defaults applied (vmi-create-admitter.go Admit). All causes are collected, in KubeVirt's order:
 * discontinued gates, the network creation rules, the shared spec rules, volumes without a disk, no memory
 * requested, metadata, Hyper-V dependencies, architecture settings.
 *
 * KubeVirt registers the network rules as an extra spec validator as well, so on VMI create each network cause
 * comes twice; here it comes once.
 */
import type { VirtualMachineInstance } from '../v1/objects.ts';
import type { Causes } from './causes.ts';
import type { ValidationContext } from './context.ts';
import { discontinuedGateCauses } from './feature-gates.ts';
import { hyperv, perArchitecture } from './vmi-arch.ts';
import { volumesHaveDisks } from './vmi-disk-volumes.ts';
import { validateVmiMetadata } from './vmi-metadata.ts';
import { networkCreation } from './vmi-network.ts';
import { memoryRequested } from './vmi-resources.ts';
import { validateVmiSpec } from './vmi-spec.ts';

export interface VmiCreateContext extends ValidationContext {
  /** The request comes from one of KubeVirt's (our) service accounts. */
  readonly isKubevirtServiceAccount: boolean;
}

export function validateVmiCreate(
  vmi: Pick<VirtualMachineInstance, 'metadata' | 'spec'>,
  ctx: VmiCreateContext,
): Causes {
  const { spec } = vmi;
  return [
    ...discontinuedGateCauses(spec, ctx),
    ...networkCreation(spec, ctx, 'spec'),
    ...validateVmiSpec(spec, ctx, 'spec'),
    ...volumesHaveDisks(spec, ctx, 'spec'),
    ...memoryRequested(spec, ctx, 'spec'),
    ...validateVmiMetadata(vmi.metadata, ctx, 'metadata'),
    ...hyperv(spec, ctx, 'spec'),
    ...perArchitecture(spec, ctx, 'spec'),
  ];
}
