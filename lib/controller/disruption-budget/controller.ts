/**
 * The disruption-budget controller of KubeVirt v1.6.2 (kubevirt drain/disruptionbudget/disruptionbudget.go):
 * keyed by namespace/VMI name, it deletes the PodDisruptionBudgets an older KubeVirt made for that VMI
 * (disruptionBudgetsToDelete); v1.6.2 makes none. A PDB whose controller is a VirtualMachineInstance wakes the
 * key of that VMI.
 */
import type { ReconcileResult } from '../../kernel/controller/runner.ts';
import { controllerRefOf } from '../../kernel/controller/owner.ts';
import { isNotFound } from '../../kernel/errors/errors.ts';
import type { Indexer } from '../../kernel/informer/index-funcs.ts';
import type { EventHandler } from '../../kernel/informer/informer.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import { POD_DISRUPTION_BUDGETS } from '../../kernel/kube/resources.ts';
import type { KubeClient, KubeObject } from '../../kernel/kube/types.ts';
import { disruptionBudgetsToDelete } from '../migration/disruption-budget.ts';
import { watch } from '../registry.ts';

const BY_VMI = 'pdb-vmi';

/** The namespace/name of the VMI that controls the PDB. */
const vmiKeyOf = (pdb: KubeObject): string | undefined => {
  const ref = controllerRefOf(pdb);
  return ref?.kind === 'VirtualMachineInstance' ? `${pdb.metadata.namespace ?? ''}/${ref.name}` : undefined;
};

const pdbVmiIndex: Indexer = (pdb) => {
  const key = vmiKeyOf(pdb);
  return key === undefined ? [] : [key];
};

export const DISRUPTION_BUDGET_WATCHES = {
  pdbs: watch<KubeObject>(POD_DISRUPTION_BUDGETS, { indexers: { [BY_VMI]: pdbVmiIndex } }),
};

export function pdbHandler(enqueue: (key: string) => void): EventHandler<KubeObject> {
  const wake = (pdb: KubeObject): void => {
    const key = vmiKeyOf(pdb);
    if (key !== undefined) enqueue(key);
  };
  return {
    onAdd: wake,
    onUpdate: (_old, pdb): void => {
      wake(pdb);
    },
    onDelete: wake,
  };
}

/** Deletes the VMI's leftover PDBs; a PDB already gone counts as deleted. */
export function disruptionBudgetReconciler(
  client: KubeClient,
  pdbs: StoreReader<KubeObject>,
): (key: string) => Promise<ReconcileResult> {
  return async (key) => {
    const [namespace = '', name = ''] = key.split('/');
    const doomed = disruptionBudgetsToDelete({ namespace, name }, pdbs.byIndex(BY_VMI, key));
    for (const pdb of doomed) {
      await client.delete(POD_DISRUPTION_BUDGETS, pdb, { namespace }).catch((err: unknown) => {
        if (!isNotFound(err)) throw err;
      });
    }
    return undefined;
  };
}
