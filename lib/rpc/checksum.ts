/**
 * The checksum of a VMI's spec that the launcher reports as applied (GetAppliedVMIChecksum, the Deckhouse
 * fork's) and the handler compares with the spec it holds, to skip a SyncVirtualMachine that would change
 * nothing. Both sides compute it here, over the spec as JSON.
 */
import { createHash } from 'node:crypto';

export function vmiSpecChecksum(vmi: { readonly spec: unknown }): string {
  return createHash('sha256').update(JSON.stringify(vmi.spec)).digest('hex');
}
