/**
 * The launcher Pod's CPU under Deckhouse's cpu-resources-requests-fraction annotation, in place of KubeVirt's
 * vCPUs / cpuAllocationRatio request: the VMI's vCPUs as the limit and that percentage of them as the request,
 * rounded up to a whole millicore. It is the share Deckhouse's controller promises ("coreFraction") and reads
 * back as the VM's requested cores; a percentage outside 1–100 counts as 100, as that reader has it.
 */
import { ANNOTATIONS, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { vcpusOf } from '../../kubevirt/vmi-state.ts';
import { KvError } from '../../kernel/errors/errors.ts';

export interface FractionCpu {
  readonly request: string;
  readonly limit: string;
}

/** The annotation's percentage, or undefined without one; a value that is no whole number is refused. */
function fractionPercent(vmi: Pick<VirtualMachineInstance, 'metadata'>): number | undefined {
  const key = ANNOTATIONS.CPU_RESOURCES_REQUESTS_FRACTION;
  const value = vmi.metadata.annotations?.[key];
  if (value === undefined) return undefined;
  if (!/^[+-]?\d+$/.test(value)) {
    throw new KvError(
      'KV_ERR_INVALID',
      `annotation ${key}: ${JSON.stringify(value)} is not a whole percentage`,
    );
  }
  const percent = Number(value);
  return percent <= 0 || percent > 100 ? 100 : percent;
}

/** Millicores the way Kubernetes prints them: 6000 → "6", 250 → "250m". */
const millicores = (m: number): string => (m % 1000 === 0 ? String(m / 1000) : `${String(m)}m`);

/** The request and limit the annotation asks for, or undefined when the VMI carries none. */
export function fractionCpu(vmi: Pick<VirtualMachineInstance, 'spec' | 'metadata'>): FractionCpu | undefined {
  const percent = fractionPercent(vmi);
  if (percent === undefined) return undefined;
  const vcpus = Math.max(1, vcpusOf(vmi.spec.domain.cpu));
  return { request: millicores(Math.ceil((vcpus * 1000 * percent) / 100)), limit: String(vcpus) };
}
