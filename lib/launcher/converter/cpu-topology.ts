/**
 * vCPU topology: sockets × cores × threads from spec.domain.cpu, or, when none is given, one socket per CPU of
 * the limit (else the request), rounded up (kubevirt vcpu.GetCPUTopology). With cpu.maxSockets the domain gets
 * the maximum and a per-vCPU list where the vCPUs beyond the current count are present but disabled, so the
 * guest can be given more CPUs while it runs (amd64 and s390x).
 */
import { quantityValue, type VirtualMachineInstance } from '../../api/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import type { Arch } from './context.ts';
import type { VcpuEntry } from './domain-spec.ts';
import { atField, ConversionError } from './errors.ts';

export interface Topology {
  readonly sockets: number;
  readonly cores: number;
  readonly threads: number;
}

const CPU_HOTPLUG_ARCHES: readonly Arch[] = ['amd64', 's390x'];

function positive(value: number | undefined, field: string): number {
  if (value === undefined || value === 0) return 1;
  if (!Number.isInteger(value) || value < 0) throw new ConversionError(field, 'must be a positive integer');
  return value;
}

function socketsFromResources(vmi: VirtualMachineInstance): number {
  const { limits, requests } = vmi.spec.domain.resources ?? {};
  const limit = limits?.['cpu'];
  if (limit !== undefined) {
    return Math.max(
      1,
      atField('spec.domain.resources.limits.cpu', () => quantityValue(limit)),
    );
  }
  const request = requests?.['cpu'];
  if (request !== undefined) {
    return Math.max(
      1,
      atField('spec.domain.resources.requests.cpu', () => quantityValue(request)),
    );
  }
  return 1;
}

/** The topology the guest starts with. */
export function cpuTopology(vmi: VirtualMachineInstance): Topology {
  const cpu = vmi.spec.domain.cpu;
  const given = (cpu?.sockets ?? 0) + (cpu?.cores ?? 0) + (cpu?.threads ?? 0) > 0;
  return {
    sockets: given ? positive(cpu?.sockets, 'spec.domain.cpu.sockets') : socketsFromResources(vmi),
    cores: positive(cpu?.cores, 'spec.domain.cpu.cores'),
    threads: positive(cpu?.threads, 'spec.domain.cpu.threads'),
  };
}

export function vcpuCount(t: Topology): number {
  return t.sockets * t.cores * t.threads;
}

function hotplugVcpus(current: Topology, maxSockets: number): VcpuEntry[] {
  const max = vcpuCount({ ...current, sockets: maxSockets });
  const enabled = vcpuCount(current);
  // The vCPUs of the first socket stay: a guest always keeps at least one socket.
  const fixed = current.cores * current.threads;
  return Array.from({ length: max }, (_, id) => ({
    id,
    enabled: id < enabled ? 'yes' : 'no',
    hotpluggable: id >= fixed ? 'yes' : 'no',
  }));
}

export const cpuTopologyConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const topology = cpuTopology(vmi);
  const maxSockets = vmi.spec.domain.cpu?.maxSockets ?? 0;
  if (maxSockets !== 0 && CPU_HOTPLUG_ARCHES.includes(ctx.arch)) {
    if (!Number.isInteger(maxSockets) || maxSockets < topology.sockets) {
      throw new ConversionError(
        'spec.domain.cpu.maxSockets',
        `must be at least sockets (${topology.sockets})`,
      );
    }
    domain.cpu.topology = { ...topology, sockets: maxSockets };
    domain.vcpus = hotplugVcpus(topology, maxSockets);
    domain.vcpu = domain.vcpus.length;
    return;
  }
  domain.cpu.topology = { ...topology };
  domain.vcpu = vcpuCount(topology);
});
