/**
 * The node controller as the role runs it (kubevirt watch/application.go initNodeController): on the shared
 * Node, VMI and Pod caches.
 */
import { defineController } from '../definition.ts';
import { NodeController } from './controller.ts';
import { NODE_WATCHES, watchForNodes } from './handlers.ts';

const NODE_QUEUE = 'virt-controller-node';

export const nodeController = defineController({
  queue: NODE_QUEUE,
  watches: NODE_WATCHES,
  start: (inf, ctx) => {
    const node = new NodeController({
      client: ctx.client,
      nodes: inf.nodes.store,
      vmis: inf.vmis.store,
      pods: inf.pods.store,
      clock: ctx.clock,
      recorder: ctx.recorder('node-controller'),
      ...(ctx.settings.heartbeatTimeoutMs !== undefined && {
        heartbeatTimeoutMs: ctx.settings.heartbeatTimeoutMs,
      }),
    });
    watchForNodes(inf, ctx.enqueue);
    return node.reconcile;
  },
});
