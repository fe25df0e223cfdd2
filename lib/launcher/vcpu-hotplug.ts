/**
 * CPU hotplug of the running domain (kubevirt virtwrap/manager.go UpdateVCPUs): the VMI's vCPU count
 * (sockets × cores × threads, as the converter reads them) becomes the domain's online count, live and in its
 * persistent definition, with one virDomainSetVcpusFlags. libvirt plugs the next hotpluggable vCPUs of the
 * domain's list in order of id. A VMI started without headroom (no cpu.maxSockets), a count beyond it, or
 * dedicated CPUs (KubeVirt pins each new vCPU; not built) are refused naming the field.
 */
import type { VirtualMachineInstance } from '../kubevirt/index.ts';
import { setVcpus, type DomainRef, type LibvirtConnection } from '../libvirt/index.ts';
import { ConversionError, cpuTopology, vcpuCount } from './converter/index.ts';

/** What the update needs of the DomainManager. */
export interface VcpuDomain {
  readonly conn: LibvirtConnection;
  require(): Promise<DomainRef>;
  checkIdentity(vmi: VirtualMachineInstance): void;
}

const part = (n: number | undefined): number => (n === undefined || n === 0 ? 1 : n);

/** The vCPU count the running domain should have, or the field that keeps it from being set live. */
export function hotplugVcpuCount(vmi: VirtualMachineInstance): number {
  const cpu = vmi.spec.domain.cpu;
  const maxSockets = cpu?.maxSockets ?? 0;
  if (cpu === undefined || maxSockets === 0) {
    throw new ConversionError(
      'spec.domain.cpu.maxSockets',
      'the VMI was started without CPU hotplug headroom: a new vCPU count needs a restart',
    );
  }
  if (cpu.dedicatedCpuPlacement === true) {
    throw new ConversionError(
      'spec.domain.cpu.dedicatedCpuPlacement',
      'CPU hotplug of dedicated CPUs is not supported',
      'unsupported',
    );
  }
  const count = vcpuCount(cpuTopology(vmi));
  // The field that grows is cpu.sockets in both readings (Deckhouse's dynamic cores swap what it means).
  const max = maxSockets * part(cpu.cores) * part(cpu.threads);
  if (count > max) {
    throw new ConversionError(
      'spec.domain.cpu.sockets',
      `${String(count)} vCPUs exceed the ${String(max)} the domain was started with room for (maxSockets ${String(maxSockets)})`,
    );
  }
  return count;
}

/** Sets the running domain's vCPU count to the VMI's; returns the count. */
export async function updateVcpus(m: VcpuDomain, vmi: VirtualMachineInstance): Promise<number> {
  m.checkIdentity(vmi);
  const count = hotplugVcpuCount(vmi);
  await setVcpus(m.conn, await m.require(), count);
  return count;
}
