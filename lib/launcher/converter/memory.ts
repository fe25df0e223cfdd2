/**
 * Guest memory in bytes: memory.guest, else the memory request, else the memory limit (kubevirt
 * vcpu.GetVirtualMemory); with memory.maxGuest above memory.guest, `<maxMemory>` and the NUMA node memory
 * hotplug needs (kubevirt converter.go setupDomainMemory), and the virtio-mem device the guest grows through.
 * KubeVirt attaches that device at the first hotplug; here it is in the definition from the start, asked to
 * hold nothing, so libvirt places it on the PCI bus when it defines the domain (the launcher only resizes it).
 */
import { quantityValue, type Quantity, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import type { VirtioMem } from './domain-spec.ts';
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

/** QEMU's virtio-mem block: 2 MiB, or 1 GiB under 1Gi hugepages (kubevirt liveupdate/memory). */
const HOTPLUG_BLOCK = 2 * 1024 * 1024;
const HOTPLUG_BLOCK_1GI_PAGES = 1024 * 1024 * 1024;

interface HotplugLayout {
  readonly bootBytes: number;
  readonly maxBytes: number;
  readonly device: VirtioMem;
}

/** A size the virtio-mem device takes: whole blocks only. */
function inBlocks(field: string, bytes: number, block: number): number {
  if (bytes % block !== 0) {
    throw new ConversionError(field, `memory hotplug needs sizes in whole ${String(block)}-byte blocks`);
  }
  return bytes;
}

/** The memory the VMI booted with (status.memory.guestAtBoot, else the guest memory); the guest's not below it. */
function bootBytesOf(vmi: VirtualMachineInstance, guestBytes: number): number {
  const atBoot = vmi.status?.memory?.guestAtBoot;
  const bootBytes = atBoot === undefined ? guestBytes : bytesOf('status.memory.guestAtBoot', atBoot);
  if (guestBytes < bootBytes) {
    throw new ConversionError(
      'spec.domain.memory.guest',
      'lower than the memory the VMI started with (status.memory.guestAtBoot): that needs a restart',
    );
  }
  return bootBytes;
}

/**
 * With memory.guest and a different memory.maxGuest: the domain boots with status.memory.guestAtBoot (the
 * guest memory before the VMI has a status) and a virtio-mem device covers the rest up to maxGuest, asked to
 * hold the guest memory beyond the boot memory (kubevirt liveupdate/memory BuildMemoryDevice). KubeVirt
 * renders no ceiling when maxGuest equals the memory; a ceiling below the guest memory, or a guest memory
 * below the boot memory, is refused.
 */
function hotplugLayout(vmi: VirtualMachineInstance, guestBytes: number): HotplugLayout | undefined {
  const spec = vmi.spec.domain;
  const maxGuest = spec.memory?.maxGuest;
  if (maxGuest === undefined || spec.memory?.guest === undefined) return undefined;
  const maxField = 'spec.domain.memory.maxGuest';
  const maxBytes = bytesOf(maxField, maxGuest);
  if (maxBytes < guestBytes) {
    throw new ConversionError(maxField, 'Guest memory is greater than the configured maxGuest memory');
  }
  const bootBytes = bootBytesOf(vmi, guestBytes);
  if (maxBytes === bootBytes) return undefined;
  const block = spec.memory.hugepages?.pageSize === '1Gi' ? HOTPLUG_BLOCK_1GI_PAGES : HOTPLUG_BLOCK;
  const device: VirtioMem = {
    sizeBytes: inBlocks(maxField, maxBytes - bootBytes, block),
    node: 0,
    blockBytes: block,
    requestedBytes: inBlocks('spec.domain.memory.guest', guestBytes - bootBytes, block),
  };
  return { bootBytes, maxBytes, device };
}

/** The virtio-mem device of a VMI with memory hotplug headroom, or undefined; the launcher resizes it. */
export function virtioMemOf(vmi: VirtualMachineInstance): VirtioMem | undefined {
  const memory = guestMemory(vmi.spec.domain);
  if (memory === undefined) return undefined;
  return hotplugLayout(vmi, bytesOf(memory.field, memory.quantity))?.device;
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
  const hotplug = hotplugLayout(vmi, bytes);
  domain.memory = hotplug?.bootBytes ?? bytes;
  if (hotplug === undefined) return;
  domain.maxMemory = { bytes: hotplug.maxBytes, slots: HOTPLUG_SLOTS };
  domain.devices.memory = hotplug.device;
});

/** The NUMA node memory hotplug needs; runs after the vCPUs are known. */
export const memoryHotplugNumaConfigurator: Configurator = configurator((_vmi, domain) => {
  if (domain.maxMemory === undefined || domain.cpu.numa !== undefined) return;
  const cpus = domain.vcpu === 1 ? '0' : `0-${String(domain.vcpu - 1)}`;
  domain.cpu.numa = [{ id: 0, cpus, memoryKiB: Math.ceil(domain.memory / 1024) }];
});
