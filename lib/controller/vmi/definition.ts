/**
 * The VMI controller as the role runs it (kubevirt watch/application.go initVirtualMachineInstanceController):
 * on the shared VMI, VM, Pod, claim and KubeVirt caches, its Events waiting while VMs or VMIs are queued.
 */
import { defineController } from '../definition.ts';
import { VmiController } from './controller.ts';
import { VMI_WATCHES, watchForVmis } from './handlers.ts';
import { vmiMetricsFor } from './metrics.ts';

const VMI_QUEUE = 'virt-controller-vmi';

export const vmiController = defineController({
  queue: VMI_QUEUE,
  watches: VMI_WATCHES,
  eventsWait: true,
  start: (inf, ctx) => {
    const vmi = new VmiController({
      client: ctx.client,
      vmis: inf.vmis.store,
      pods: inf.pods.store,
      vms: inf.vms.store,
      pvcs: inf.pvcs.store,
      kubevirts: inf.kubevirts.store,
      clock: ctx.clock,
      recorder: ctx.recorder('virtualmachineinstance-controller'),
      launcher: ctx.settings.launcher,
      metrics: vmiMetricsFor(ctx.metricsRegistry),
    });
    watchForVmis(inf, vmi, ctx.enqueue);
    return vmi.reconcile;
  },
});
