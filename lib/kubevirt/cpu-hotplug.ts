/**
 * CPU hotplug facts that more than one role reads (kubevirt pkg/util/hardware GetNumberOfVCPUs and
 * virt-controller vmi/lifecycle.go requireCPUHotplug): a running VMI with hotplug headroom (cpu.maxSockets)
 * whose spec asks for another vCPU count than status.currentCPUTopology records needs its domain changed;
 * the VMI controller marks it with the HotVCPUChange condition, the handler applies it and drops the mark.
 */
import type { VirtualMachineInstance } from './v1/objects.ts';

export const HOT_VCPU_CHANGE = 'HotVCPUChange';

interface CpuCounts {
  readonly sockets?: number | undefined;
  readonly cores?: number | undefined;
  readonly threads?: number | undefined;
}

/** sockets × cores × threads, a part that is missing or 0 left out (0 when every part is). */
export function vcpusOf(cpu: CpuCounts | undefined): number {
  const parts = [cpu?.sockets, cpu?.cores, cpu?.threads].filter(
    (n): n is number => n !== undefined && n !== 0,
  );
  return parts.length === 0 ? 0 : parts.reduce((a, b) => a * b, 1);
}

/** The spec's vCPU count differs from the one the domain was last given, and the VMI can grow live. */
export function requiresCpuHotplug(vmi: Pick<VirtualMachineInstance, 'spec' | 'status'>): boolean {
  const cpu = vmi.spec.domain.cpu;
  const current = vmi.status?.currentCPUTopology;
  if (current === undefined || cpu === undefined || (cpu.maxSockets ?? 0) === 0) return false;
  return vcpusOf(cpu) !== vcpusOf(current);
}
