/**
 * The disruption-budget decision of KubeVirt v1.6.2 (kubevirt drain/disruptionbudget/disruptionbudget.go execute
 * with pkg/util/pdbs PDBsForVMI): KubeVirt no longer keeps a PodDisruptionBudget per VMI (v1.6.0 dropped the
 * minAvailable 1, 2-during-migration budgets); the pod-eviction admitter (lib/kubevirt/admission/pod-eviction.ts) protects launcher Pods
 * instead. What is left removes the budgets an older version made: every PDB in the VMI's namespace whose
 * controller is a VirtualMachineInstance of the VMI's name goes, whatever the VMI's eviction strategy or phase,
 * and whether or not the VMI still exists; one already being deleted is left to finish.
 */
import type { KubeObject } from '../../kernel/kube/types.ts';
import { controllerRefOf } from '../../kernel/controller/owner.ts';

/** The names of the PDBs to delete for the VMI namespace/name, from the PDBs of that namespace. */
export function disruptionBudgetsToDelete(
  vmi: { namespace: string; name: string },
  pdbs: readonly KubeObject[],
): string[] {
  return pdbs
    .filter((pdb) => {
      const ref = controllerRefOf(pdb);
      return (
        pdb.metadata.namespace === vmi.namespace &&
        ref?.kind === 'VirtualMachineInstance' &&
        ref.name === vmi.name &&
        pdb.metadata.deletionTimestamp === undefined
      );
    })
    .map((pdb) => pdb.metadata.name ?? '');
}
