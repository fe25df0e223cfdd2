/**
 * The checksum of what a VMI asks of its launcher, which the launcher reports as applied (GetAppliedVMIChecksum,
 * the Deckhouse fork's) and the handler compares with the VMI it holds, to skip a SyncVirtualMachine that would
 * change nothing. Both sides compute it here: over the spec as JSON and the hotplug volumes mounted into the
 * launcher Pod, since the domain gets a hotplugged disk only once it is mounted (a status change, not a spec one).
 */
import { createHash } from 'node:crypto';
import { mountedHotplugVolumes, type VirtualMachineInstance } from '../kubevirt/index.ts';

export function vmiSpecChecksum(vmi: Pick<VirtualMachineInstance, 'spec' | 'status'>): string {
  const h = createHash('sha256').update(JSON.stringify(vmi.spec));
  const mounted = mountedHotplugVolumes(vmi);
  if (mounted.length > 0) h.update(`\nhotplug:${mounted.join(',')}`);
  return h.digest('hex');
}
