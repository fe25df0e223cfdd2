/**
 * Guest memory in bytes: memory.guest, else the memory request, else the memory limit (kubevirt
 * vcpu.GetVirtualMemory). memory.maxGuest (hotplug headroom) is not rendered: libvirt needs NUMA cells and a
 * virtio-mem device for it, which this converter does not build yet.
 */
import { quantityValue, type Quantity, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { configurator, type Configurator } from './configurator.ts';
import { atField, ConversionError } from './errors.ts';

const MIN_MEMORY = 1_000_000;

interface GuestMemory {
  readonly field: string;
  readonly quantity: Quantity;
}

function guestMemory(spec: VirtualMachineInstance['spec']['domain']): GuestMemory | undefined {
  const guest = spec.memory?.guest;
  if (guest !== undefined) return { field: 'spec.domain.memory.guest', quantity: guest };
  const request = spec.resources?.requests?.['memory'];
  if (request !== undefined) return { field: 'spec.domain.resources.requests.memory', quantity: request };
  const limit = spec.resources?.limits?.['memory'];
  if (limit !== undefined) return { field: 'spec.domain.resources.limits.memory', quantity: limit };
  return undefined;
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
  const bytes = atField(memory.field, () => quantityValue(memory.quantity, memory.field));
  if (bytes < MIN_MEMORY) throw new ConversionError(memory.field, 'must be greater than or equal to 1M.');
  domain.memory = bytes;
});
