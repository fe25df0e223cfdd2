/**
 * Memory hotplug facts that more than one role reads (kubevirt virt-controller vmi/lifecycle.go
 * requireMemoryHotplug): a VMI with hotplug headroom (memory.maxGuest) whose spec asks for another guest
 * memory than status.memory.guestRequested records needs its domain's virtio-mem device resized; the VMI
 * controller marks it with the HotMemoryChange condition, the handler applies it and drops the mark.
 */
import { parseQuantity } from './quantity.ts';
import type { VirtualMachineInstance } from './v1/objects.ts';

export const HOT_MEMORY_CHANGE = 'HotMemoryChange';

/** The spec's guest memory differs from the one the domain was last asked for, and the VMI can grow live. */
export function requiresMemoryHotplug(vmi: Pick<VirtualMachineInstance, 'spec' | 'status'>): boolean {
  const memory = vmi.spec.domain.memory;
  const requested = vmi.status?.memory?.guestRequested;
  if (memory?.guest === undefined || memory.maxGuest === undefined || requested === undefined) return false;
  try {
    return parseQuantity(memory.guest) !== parseQuantity(requested);
  } catch {
    return false; // a quantity the webhook would have refused: nothing to apply
  }
}
