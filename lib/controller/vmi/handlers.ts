/**
 * Informer handlers of the VMI controller (kubevirt vmi/vmi.go addPod & co.): Pod events wake the VMI that
 * controls the Pod (checked by uid against the cache) and count towards the Pod expectations; VMI events
 * wake the VMI itself.
 */
import type { VirtualMachineInstance } from '../../api/index.ts';
import { controllerRefOf } from '../../kernel/controller/owner.ts';
import type { EventHandler } from '../../kernel/informer/informer.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import { objectKey, ownerKey } from '../common/keys.ts';
import type { Pod } from '../common/pod.ts';
import type { VmiController } from './controller.ts';

export type Enqueue = (key: string) => void;

export function vmiHandler(enqueue: Enqueue): EventHandler<VirtualMachineInstance> {
  return {
    onAdd: (vmi): void => {
      enqueue(objectKey(vmi));
    },
    onUpdate: (_old, vmi): void => {
      enqueue(objectKey(vmi));
    },
    onDelete: (vmi): void => {
      enqueue(objectKey(vmi));
    },
  };
}

function owningVmi(pod: Pod, vmis: StoreReader<VirtualMachineInstance>): string | undefined {
  const ref = controllerRefOf(pod);
  const key = ownerKey(pod, ref, 'VirtualMachineInstance');
  if (key === undefined) return undefined;
  return vmis.get(key)?.metadata.uid === ref?.uid ? key : undefined;
}

export function podHandler(
  controller: VmiController,
  vmis: StoreReader<VirtualMachineInstance>,
  enqueue: Enqueue,
): EventHandler<Pod> {
  const deleted = (pod: Pod): void => {
    const key = owningVmi(pod, vmis);
    if (key === undefined) return;
    controller.podExpectations.deletionObserved(key, pod.metadata.uid ?? '');
    enqueue(key);
  };
  return {
    onAdd: (pod): void => {
      if (pod.metadata.deletionTimestamp !== undefined) {
        deleted(pod);
        return;
      }
      const key = owningVmi(pod, vmis);
      if (key === undefined) return;
      controller.podExpectations.creationObserved(key);
      enqueue(key);
    },
    onUpdate: (old, pod): void => {
      if (old.metadata.resourceVersion === pod.metadata.resourceVersion) return;
      if (pod.metadata.deletionTimestamp !== undefined) {
        deleted(pod);
        return;
      }
      const oldKey = owningVmi(old, vmis);
      const key = owningVmi(pod, vmis);
      if (oldKey !== undefined && oldKey !== key) enqueue(oldKey);
      if (key !== undefined) enqueue(key);
    },
    onDelete: deleted,
  };
}
