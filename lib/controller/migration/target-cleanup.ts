/**
 * Which target Pod a failed migration leaves to delete. KubeVirt v1.6.2 (migration.go) deletes the target Pod
 * itself only on a cancel before the hand-off or a pending timeout, and otherwise has the target launcher exit
 * through the handlers; this controller also removes the target Pod of a Failed migration, so no second
 * launcher of the VMI is left behind when no handler cleans it up. A Pod on the node the VMI now runs on is
 * the VMI's launcher (the guest moved) and stays; one already being deleted is left to finish.
 */
import type { VirtualMachineInstance, VirtualMachineInstanceMigration } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';

export function failedTargetToDelete(
  m: VirtualMachineInstanceMigration,
  vmi: VirtualMachineInstance,
  target: Pod | undefined,
): Pod | undefined {
  if (m.status?.phase !== 'Failed' || target === undefined) return undefined;
  if (target.metadata.deletionTimestamp !== undefined) return undefined;
  const node = target.spec.nodeName ?? '';
  if (node !== '' && node === vmi.status?.nodeName) return undefined;
  return target;
}
