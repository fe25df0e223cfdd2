/**
 * The DRA status controller as the role runs it (kubevirt watch/application.go initDRAStatusController): on
 * the shared VMI and launcher Pod caches and the ResourceClaim and ResourceSlice caches.
 */
import { defineController } from '../definition.ts';
import { DraStatusController } from './controller.ts';
import { DRA_WATCHES, watchForDraStatus } from './handlers.ts';

const DRA_QUEUE = 'virt-controller-dra-status';

export const draStatusController = defineController({
  queue: DRA_QUEUE,
  watches: DRA_WATCHES,
  start: (inf, ctx) => {
    const dra = new DraStatusController({
      client: ctx.client,
      vmis: inf.vmis.store,
      pods: inf.pods.store,
      claims: inf.claims.store,
      slices: inf.slices.store,
      recorder: ctx.recorder('dra-status-controller'),
    });
    watchForDraStatus(inf, ctx.enqueue);
    return dra.reconcile;
  },
});
