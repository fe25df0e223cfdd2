/**
 * vCPU topology: sockets × cores × threads from spec.domain.cpu, or, when none is given, one socket per CPU of
 * the limit (else the request), rounded up (kubevirt vcpu.GetCPUTopology). With cpu.maxSockets the domain gets
 * the maximum and a per-vCPU list where the vCPUs beyond the current count are present but disabled, so the
 * guest can be given more CPUs while it runs (amd64 and s390x; kubevirt converter.go
 * domainVCPUTopologyForHotplug, and Deckhouse's dynamic cores, which grow cores instead of sockets). A domain
 * never gets more vCPUs than KubeVirt's upper bound (512) or libvirt's maximum for the host (ctx.maxVcpus): the
 * VMI is refused, naming the field the count came from, before any per-vCPU list is built.
 */
import { ANNOTATIONS, MAX_VCPUS, quantityValue, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import type { Arch, ConverterContext } from './context.ts';
import type { VcpuEntry } from './domain-spec.ts';
import { atField, ConversionError } from './errors.ts';

export interface Topology {
  readonly sockets: number;
  readonly cores: number;
  readonly threads: number;
}

/** The guest's starting topology, the field that decided it, and whether it follows the dynamic-cores marker. */
interface Start {
  readonly topology: Topology;
  readonly field: string;
  readonly dynamicCores: boolean;
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

/**
 * Deckhouse's vcpu-topology-dynamic-cores marker: its controller swaps cpu.cores and cpu.sockets to pass
 * KubeVirt's validation, so the guest has cpu.cores sockets of cpu.sockets cores, and maxSockets is the most
 * cores each socket can grow to.
 */
function hasDynamicCores(vmi: VirtualMachineInstance): boolean {
  return vmi.metadata.annotations?.[ANNOTATIONS.VCPU_TOPOLOGY_DYNAMIC_CORES] !== undefined;
}

/** The topology the guest starts with, and the field that decided it. */
function startTopology(vmi: VirtualMachineInstance): Start {
  const cpu = vmi.spec.domain.cpu;
  const topology = givenTopology(cpu);
  const given = (cpu?.sockets ?? 0) + (cpu?.cores ?? 0) + (cpu?.threads ?? 0) > 0;
  const fromResources = given ? undefined : cpusFromResources(vmi);
  if (fromResources !== undefined) {
    return {
      topology: { ...topology, sockets: fromResources.sockets },
      field: fromResources.field,
      dynamicCores: false,
    };
  }
  if (!hasDynamicCores(vmi)) return { topology, field: 'spec.domain.cpu', dynamicCores: false };
  const swapped = { sockets: topology.cores, cores: topology.sockets, threads: topology.threads };
  return { topology: swapped, field: 'spec.domain.cpu', dynamicCores: true };
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

/**
 * The largest topology the guest can grow to: maxSockets sockets, or, with dynamic cores, maxSockets cores in
 * each socket. maxSockets may not be below spec.domain.cpu.sockets in either reading.
 */
function maxTopology(start: Start, maxSockets: number): Topology {
  const { topology, dynamicCores } = start;
  const specSockets = dynamicCores ? topology.cores : topology.sockets;
  if (!Number.isInteger(maxSockets) || maxSockets < specSockets) {
    throw new ConversionError(
      'spec.domain.cpu.maxSockets',
      `must be at least sockets (${String(specSockets)})`,
    );
  }
  return dynamicCores ? { ...topology, cores: maxSockets } : { ...topology, sockets: maxSockets };
}

/**
 * One entry per vCPU of `max`, numbered as QEMU numbers them (threads of a core, cores of a socket, then
 * sockets). A vCPU is enabled when its socket and core are within `current`. The first `fixed` vCPUs cannot be
 * unplugged: libvirt wants them online and ahead of every hotpluggable one.
 */
function hotplugVcpus(current: Topology, max: Topology, fixed: number): VcpuEntry[] {
  return Array.from({ length: vcpuCount(max) }, (_, id) => {
    const core = Math.floor(id / max.threads) % max.cores;
    const socket = Math.floor(id / (max.threads * max.cores));
    const enabled = socket < current.sockets && core < current.cores;
    return { id, enabled: enabled ? 'yes' : 'no', hotpluggable: id >= fixed ? 'yes' : 'no' };
  });
}

export const cpuTopologyConfigurator: Configurator = configurator((vmi, domain, ctx) => {
  const start = startTopology(vmi);
  const { topology } = start;
  checkVcpuLimit(topology, start.field, ctx);
  const maxSockets = vmi.spec.domain.cpu?.maxSockets ?? 0;
  if (maxSockets === 0 || !CPU_HOTPLUG_ARCHES.includes(ctx.arch)) {
    domain.cpu.topology = { ...topology };
    domain.vcpu = vcpuCount(topology);
    return;
  }
  const max = maxTopology(start, maxSockets);
  checkVcpuLimit(max, 'spec.domain.cpu.maxSockets', ctx);
  // A guest keeps at least its first socket (KubeVirt), or the first core of its first socket (dynamic cores:
  // the cores of every socket may shrink, and only a leading run of vCPUs can be fixed).
  const fixed = start.dynamicCores ? topology.threads : topology.cores * topology.threads;
  domain.cpu.topology = max;
  domain.vcpus = hotplugVcpus(topology, max, fixed);
  domain.vcpu = domain.vcpus.length;
});
