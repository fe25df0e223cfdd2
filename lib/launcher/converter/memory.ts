/**
 * Guest memory in bytes: memory.guest, else the memory request, else the memory limit (kubevirt
 * vcpu.GetVirtualMemory); with memory.maxGuest above memory.guest, `<maxMemory>` and the NUMA node memory
 * hotplug needs (kubevirt converter.go setupDomainMemory). The growth itself comes later, as one virtio-mem
 * device attached while the guest runs, so nothing else is plugged at start.
 */
import { quantityValue, type Quantity, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import { atField, ConversionError } from './errors.ts';

const MIN_MEMORY = 1_000_000;
/**
 * KubeVirt writes `slots="0"` and no NUMA cell: libvirt 10 accepts that and adds the one node memory hotplug
 * needs when it defines the domain. libvirt 9.0, the launcher image's, refuses both ("both maximum memory size
 * and memory slot count must be specified", "At least one numa node has to be configured when enabling memory
 * hotplug"), so the domain states one DIMM slot (virtio-mem needs none) and the node, as libvirt 10 makes it:
 * every vCPU and all the boot memory on node 0. Either libvirt gives the guest the same layout.
 */
const HOTPLUG_SLOTS = 1;

type DomainSpecIn = VirtualMachineInstance['spec']['domain'];

interface GuestMemory {
  readonly field: string;
  readonly quantity: Quantity;
}

function guestMemory(spec: DomainSpecIn): GuestMemory | undefined {
  const guest = spec.memory?.guest;
  if (guest !== undefined) return { field: 'spec.domain.memory.guest', quantity: guest };
  const request = spec.resources?.requests?.['memory'];
  if (request !== undefined) return { field: 'spec.domain.resources.requests.memory', quantity: request };
  const limit = spec.resources?.limits?.['memory'];
  if (limit !== undefined) return { field: 'spec.domain.resources.limits.memory', quantity: limit };
  return undefined;
}

const bytesOf = (field: string, q: Quantity): number => atField(field, () => quantityValue(q, field));

/**
 * The hotplug ceiling in bytes, when memory.guest and a different memory.maxGuest are both set (KubeVirt
 * renders none when they are equal); a ceiling below the guest memory is refused, as libvirt would.
 */
function maxMemoryBytes(spec: DomainSpecIn, guestBytes: number): number | undefined {
  const maxGuest = spec.memory?.maxGuest;
  if (maxGuest === undefined || spec.memory?.guest === undefined) return undefined;
  const field = 'spec.domain.memory.maxGuest';
  const max = bytesOf(field, maxGuest);
  if (max === guestBytes) return undefined;
  if (max < guestBytes) {
    throw new ConversionError(field, 'Guest memory is greater than the configured maxGuest memory');
  }
  return max;
}

export const memoryConfigurator: Configurator = configurator((vmi, domain) => {
  const memory = guestMemory(vmi.spec.domain);
  if (memory === undefined) {
    throw new ConversionError(
      'spec.domain.memory.guest',
      "no memory requested, at least one of 'spec.domain.memory.guest', 'spec.domain.resources.requests.memory' " +
        "or 'spec.domain.resources.limits.memory' must be set",
    );
  }
  const bytes = bytesOf(memory.field, memory.quantity);
  if (bytes < MIN_MEMORY) throw new ConversionError(memory.field, 'must be greater than or equal to 1M.');
  domain.memory = bytes;
  const max = maxMemoryBytes(vmi.spec.domain, bytes);
  if (max !== undefined) domain.maxMemory = { bytes: max, slots: HOTPLUG_SLOTS };
});

/** The NUMA node memory hotplug needs; runs after the vCPUs are known. */
export const memoryHotplugNumaConfigurator: Configurator = configurator((_vmi, domain) => {
  if (domain.maxMemory === undefined || domain.cpu.numa !== undefined) return;
  const cpus = domain.vcpu === 1 ? '0' : `0-${String(domain.vcpu - 1)}`;
  domain.cpu.numa = [{ id: 0, cpus, memoryKiB: Math.ceil(domain.memory / 1024) }];
});
