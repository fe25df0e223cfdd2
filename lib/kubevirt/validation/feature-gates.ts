/**
 * Discontinued feature gates (KubeVirt pkg/virt-config/featuregate validator.go ValidateFeatureGates): a gate
 * listed in the KubeVirt CR whose API is gone refuses specs that still use it. The causes have no field.
 */
import type { VirtualMachineInstanceSpec } from '../v1/vmi-spec.ts';
import { notSupported, type Causes } from './causes.ts';
import { GATES, type ValidationContext } from './context.ts';

const DISCONTINUED: Readonly<
  Record<string, { message: string; used: (s: VirtualMachineInstanceSpec) => boolean }>
> = {
  [GATES.PASST]: {
    message:
      'Passt network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.',
    used: (s) => (s.domain.devices.interfaces ?? []).some((i) => i.passt !== undefined),
  },
  [GATES.MACVTAP]: {
    message:
      'Macvtap network binding is discontinued since v1.3. Please refer to Kubevirt user guide for alternatives.',
    used: (s) => (s.domain.devices.interfaces ?? []).some((i) => i.macvtap !== undefined),
  },
};

export function discontinuedGateCauses(spec: VirtualMachineInstanceSpec, ctx: ValidationContext): Causes {
  return [...ctx.featureGates].flatMap((gate) => {
    const fg = DISCONTINUED[gate];
    return fg !== undefined && fg.used(spec) ? [notSupported('', fg.message)] : [];
  });
}
