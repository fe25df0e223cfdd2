/**
 * The disruption-budget controller as the role runs it (kubevirt watch/application.go
 * initDisruptionBudgetController): on the shared PodDisruptionBudget cache.
 */
import { defineController } from '../definition.ts';
import { DISRUPTION_BUDGET_WATCHES, disruptionBudgetReconciler, pdbHandler } from './controller.ts';

export const disruptionBudgetController = defineController({
  queue: 'virt-controller-disruption-budget',
  watches: DISRUPTION_BUDGET_WATCHES,
  start: (inf, ctx) => {
    inf.pdbs.addEventHandler(pdbHandler(ctx.enqueue));
    return disruptionBudgetReconciler(ctx.client, inf.pdbs.store);
  },
});
