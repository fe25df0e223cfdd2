/**
 * Informer handlers of the VM controller (kubevirt vm.go addVirtualMachineInstance & co.). They only enqueue
 * VM keys and record observed creations and deletions for the expectations; a VMI's VM is its controller
 * reference when that names a VM in the cache with the same uid, or the VM of the same name for an orphan.
 */
import { KUBEVIRTS, VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES } from '../../kubevirt/index.ts';
import type { KubeVirt, VirtualMachine, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { controllerRefOf } from '../../kernel/controller/owner.ts';
import type { EventHandler } from '../../kernel/informer/informer.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import { enqueueOwnKey, objectKey, ownerKey } from '../../kernel/controller/keys.ts';
import { watch, type Caches } from '../registry.ts';
import type { VmController } from './controller.ts';

export type Enqueue = (key: string) => void;

/** The key of the VM that controls vmi, checked against the cache (undefined when none does). */
function controllingVm(vmi: VirtualMachineInstance, vms: StoreReader<VirtualMachine>): string | undefined {
  const ref = controllerRefOf(vmi);
  const key = ownerKey(vmi, ref, 'VirtualMachine');
  if (key === undefined) return undefined;
  return vms.get(key)?.metadata.uid === ref?.uid ? key : undefined;
}

export function vmiHandlerForVms(
  controller: VmController,
  vms: StoreReader<VirtualMachine>,
  enqueue: Enqueue,
): EventHandler<VirtualMachineInstance> {
  const deleted = (vmi: VirtualMachineInstance): void => {
    const key = controllingVm(vmi, vms);
    if (key === undefined) return;
    controller.expectations.deletionObserved(key, vmi.metadata.uid ?? '');
    enqueue(key);
  };
  return {
    onAdd: (vmi): void => {
      if (vmi.metadata.deletionTimestamp !== undefined) {
        deleted(vmi);
        return;
      }
      const key = controllingVm(vmi, vms);
      if (key !== undefined) {
        controller.expectations.creationObserved(key);
        enqueue(key);
      } else if (controllerRefOf(vmi) === undefined) enqueue(objectKey(vmi));
    },
    onUpdate: (old, vmi): void => {
      if (old.metadata.resourceVersion === vmi.metadata.resourceVersion) return;
      if (vmi.metadata.deletionTimestamp !== undefined) {
        deleted(vmi);
        return;
      }
      const oldKey = controllingVm(old, vms);
      const key =
        controllingVm(vmi, vms) ?? (controllerRefOf(vmi) === undefined ? objectKey(vmi) : undefined);
      if (oldKey !== undefined && oldKey !== key) enqueue(oldKey);
      if (key !== undefined) enqueue(key);
    },
    onDelete: deleted,
  };
}

/** What the VM controller reads: its VMs, the VMIs and the KubeVirt CR in the controller's own namespace. */
export const VM_WATCHES = {
  vms: watch<VirtualMachine>(VIRTUAL_MACHINES),
  vmis: watch<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES),
  kubevirts: watch<KubeVirt>(KUBEVIRTS, { scope: 'config' }),
};

/**
 * The VM controller's watches: its VMs, and the VMIs they control. VMI events reach the queue through
 * `vmiEnqueue` (a short DelayedEnqueue: a VMI created and moved to Scheduling moments later then costs one VM
 * status write, not two).
 */
export function watchForVms(
  inf: Caches<typeof VM_WATCHES>,
  controller: VmController,
  enqueue: Enqueue,
  vmiEnqueue: Enqueue,
): void {
  inf.vms.addEventHandler(enqueueOwnKey(enqueue));
  inf.vmis.addEventHandler(vmiHandlerForVms(controller, inf.vms.store, vmiEnqueue));
}
