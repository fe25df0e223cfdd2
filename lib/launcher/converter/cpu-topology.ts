/**
 * vCPU topology: sockets × cores × threads from spec.domain.cpu, or, when none is given, one socket per CPU of
 * the limit (else the request), rounded up (kubevirt vcpu.GetCPUTopology). With cpu.maxSockets the domain gets
 * the maximum and a per-vCPU list where the vCPUs beyond the current count are present but disabled, so the
 * guest can be given more CPUs while it runs (amd64 and s390x). A domain never gets more vCPUs than KubeVirt's
 * upper bound (512) or libvirt's maximum for the host (ctx.maxVcpus): the VMI is refused, naming the field the
 * count came from, before any per-vCPU list is built.
 */
import { MAX_VCPUS, quantityValue, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import type { Arch, ConverterContext } from './context.ts';
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

/** The CPU count of the limit, else the request, and the field it came from. */
function cpusFromResources(vmi: VirtualMachineInstance): { sockets: number; field: string } | undefined {
  const { limits, requests } = vmi.spec.domain.resources ?? {};
  for (const [list, name] of [
    [limits, 'limits'],
    [requests, 'requests'],
  ] as const) {
    const q = list?.['cpu'];
    if (q === undefined) continue;
    const field = `spec.domain.resources.${name}.cpu`;
    return {
      sockets: Math.max(
        1,
        atField(field, () => quantityValue(q, field)),
      ),
      field,
    };
  }
  return undefined;
}

/** sockets × cores × threads as spec.domain.cpu gives them, a missing or zero part counting as one. */
function givenTopology(cpu: VirtualMachineInstance['spec']['domain']['cpu']): Topology {
  return {
    sockets: positive(cpu?.sockets, 'spec.domain.cpu.sockets'),
    cores: positive(cpu?.cores, 'spec.domain.cpu.cores'),
    threads: positive(cpu?.threads, 'spec.domain.cpu.threads'),
  };
}

/** The topology the guest starts with, and the field that decided it. */
function startTopology(vmi: VirtualMachineInstance): { topology: Topology; field: string } {
  const cpu = vmi.spec.domain.cpu;
  const topology = givenTopology(cpu);
  const given = (cpu?.sockets ?? 0) + (cpu?.cores ?? 0) + (cpu?.threads ?? 0) > 0;
  const fromResources = given ? undefined : cpusFromResources(vmi);
  if (fromResources === undefined) return { topology, field: 'spec.domain.cpu' };
  return { topology: { ...topology, sockets: fromResources.sockets }, field: fromResources.field };
}

/** The topology the guest starts with. */
export function cpuTopology(vmi: VirtualMachineInstance): Topology {
  return startTopology(vmi).topology;
}

export function vcpuCount(t: Topology): number {
  return t.sockets * t.cores * t.threads;
}

/** Refuses a topology with more vCPUs than KubeVirt and libvirt allow, naming `field`. */
function checkVcpuLimit(t: Topology, field: string, ctx: ConverterContext): void {
  const host = ctx.maxVcpus;
  const limit = host === undefined ? MAX_VCPUS : Math.min(MAX_VCPUS, host);
  const count = vcpuCount(t);
  if (count <= limit) return;
  const whose = host !== undefined && host < MAX_VCPUS ? " (libvirt's limit for this host)" : '';
  throw new ConversionError(
    field,
    `${String(count)} vCPUs (${String(t.sockets)} sockets × ${String(t.cores)} cores × ` +
      `${String(t.threads)} threads) exceed the maximum of ${String(limit)}${whose}`,
  );
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
  const { topology, field } = startTopology(vmi);
  checkVcpuLimit(topology, field, ctx);
  const maxSockets = vmi.spec.domain.cpu?.maxSockets ?? 0;
  if (maxSockets !== 0 && CPU_HOTPLUG_ARCHES.includes(ctx.arch)) {
    if (!Number.isInteger(maxSockets) || maxSockets < topology.sockets) {
      throw new ConversionError(
        'spec.domain.cpu.maxSockets',
        `must be at least sockets (${String(topology.sockets)})`,
      );
    }
    const max = { ...topology, sockets: maxSockets };
    checkVcpuLimit(max, 'spec.domain.cpu.maxSockets', ctx);
    domain.cpu.topology = max;
    domain.vcpus = hotplugVcpus(topology, maxSockets);
    domain.vcpu = domain.vcpus.length;
    return;
  }
  domain.cpu.topology = { ...topology };
  domain.vcpu = vcpuCount(topology);
});
