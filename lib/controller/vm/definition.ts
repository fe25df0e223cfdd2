/**
 * The VM controller as the role runs it (kubevirt watch/application.go initVirtualMachines): on the shared VM
 * and VMI caches, VMI events reaching its queue through a short DelayedEnqueue, its Events waiting while VMs
 * or VMIs are queued.
 */
import { DelayedEnqueue } from '../../kernel/controller/delayed-enqueue.ts';
import { defineController } from '../definition.ts';
import { VmController } from './controller.ts';
import { VM_WATCHES, watchForVms } from './handlers.ts';

const VM_QUEUE = 'virt-controller-vm';
// Long enough for the bursts a start makes (VMI created → Scheduling, Running → Ready: 60–200 ms apart here),
// short enough that the VM shows its VMI's state soon after (500 ms cost every start as much in `VM Running`).
const DEFAULT_VMI_EVENT_DELAY_MS = 150;

export const vmController = defineController({
  queue: VM_QUEUE,
  watches: VM_WATCHES,
  eventsWait: true,
  start: (inf, ctx) => {
    const vm = new VmController({
      client: ctx.client,
      vms: inf.vms.store,
      vmis: inf.vmis.store,
      kubevirts: inf.kubevirts.store,
      clock: ctx.clock,
      recorder: ctx.recorder('virtualmachine-controller'),
      ...(ctx.settings.random !== undefined && { random: ctx.settings.random }),
    });
    const vmiToVm = new DelayedEnqueue(
      ctx.clock,
      ctx.settings.vmiEventDelayMs ?? DEFAULT_VMI_EVENT_DELAY_MS,
      ctx.enqueue,
    );
    ctx.signal.addEventListener('abort', () => {
      vmiToVm.cancelAll();
    });
    watchForVms(inf, vm, ctx.enqueue, vmiToVm.enqueue);
    return vm.reconcile;
  },
});
