/**
 * The evacuation controller as the role runs it (kubevirt watch/application.go initEvacuationController): on
 * the shared Node, VMI, migration, Pod and KubeVirt caches.
 */
import { defineController } from '../definition.ts';
import { EvacuationController } from './controller.ts';
import { EVACUATION_WATCHES, watchForEvacuations } from './handlers.ts';

export const evacuationController = defineController({
  queue: 'virt-controller-evacuation',
  watches: EVACUATION_WATCHES,
  start: (inf, ctx) => {
    const c = new EvacuationController({
      client: ctx.client,
      nodes: inf.nodes.store,
      vmis: inf.vmis.store,
      migrations: inf.migrations.store,
      pods: inf.pods.store,
      kubevirts: inf.kubevirts.store,
      clock: ctx.clock,
      recorder: ctx.recorder('evacuation-controller'),
    });
    watchForEvacuations(inf, c.expectations, ctx.enqueue);
    return c.reconcile;
  },
});
