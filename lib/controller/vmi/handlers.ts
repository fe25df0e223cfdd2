/**
 * Informer handlers of the VMI controller (kubevirt vmi/vmi.go addPod & co., storage.go addPVC): Pod events
 * wake the VMI that controls the Pod, or for an attachment Pod the VMI of the launcher Pod that controls it
 * (each link checked by uid against the caches), and count towards the Pod expectations; VMI events wake the
 * VMI itself; claim events wake the VMIs that use the claim.
 */
import { APP_LABEL, KUBEVIRTS, VIRTUAL_MACHINE_INSTANCES, VIRTUAL_MACHINES } from '../../kubevirt/index.ts';
import type { KubeVirt, VirtualMachine, VirtualMachineInstance } from '../../kubevirt/index.ts';
import { controllerRefOf } from '../../kernel/controller/owner.ts';
import type { EventHandler } from '../../kernel/informer/informer.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import { enqueueOwnKey, objectKey, ownerKey } from '../../kernel/controller/keys.ts';
import { PERSISTENT_VOLUME_CLAIMS, PODS } from '../../kernel/kube/resources.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { PersistentVolumeClaim } from '../../kubevirt/core/pvc.ts';
import { watch, type Caches } from '../registry.ts';
import type { VmiController } from './controller.ts';
import { BY_CLAIM, vmiClaimIndex, vmiIndexers } from './indexers.ts';

export type Enqueue = (key: string) => void;

export interface PodCaches {
  vmis: StoreReader<VirtualMachineInstance>;
  pods: StoreReader<Pod>;
}

/** The key of the VMI that controls the Pod, or the launcher Pod controlling it; checked by uid in the caches. */
export function owningVmi(pod: Pod, caches: PodCaches): string | undefined {
  let ref = controllerRefOf(pod);
  let owned = pod;
  const podKey = ownerKey(pod, ref, 'Pod');
  if (podKey !== undefined) {
    const launcher = caches.pods.get(podKey);
    if (launcher === undefined || launcher.metadata.uid !== ref?.uid) return undefined;
    owned = launcher;
    ref = controllerRefOf(launcher);
  }
  const key = ownerKey(owned, ref, 'VirtualMachineInstance');
  if (key === undefined) return undefined;
  return caches.vmis.get(key)?.metadata.uid === ref?.uid ? key : undefined;
}

export function podHandler(
  controller: VmiController,
  caches: PodCaches,
  enqueue: Enqueue,
): EventHandler<Pod> {
  const deleted = (pod: Pod): void => {
    const key = owningVmi(pod, caches);
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
      const key = owningVmi(pod, caches);
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
      const oldKey = owningVmi(old, caches);
      const key = owningVmi(pod, caches);
      if (oldKey !== undefined && oldKey !== key) enqueue(oldKey);
      if (key !== undefined) enqueue(key);
    },
    onDelete: deleted,
  };
}

/** Claim events wake every VMI with a volume on the claim (kubevirt indexes VMIs by "pvc" and "dv"). */
export function pvcHandler(
  vmis: StoreReader<VirtualMachineInstance>,
  enqueue: Enqueue,
): EventHandler<PersistentVolumeClaim> {
  const wake = (pvc: PersistentVolumeClaim): void => {
    const ref = `${pvc.metadata.namespace ?? ''}/${pvc.metadata.name ?? ''}`;
    for (const vmi of vmis.byIndex(BY_CLAIM, ref)) enqueue(objectKey(vmi));
  };
  return {
    onAdd: wake,
    onUpdate: (old, pvc): void => {
      if (old.metadata.resourceVersion !== pvc.metadata.resourceVersion) wake(pvc);
    },
    onDelete: wake,
  };
}

/**
 * What the VMI controller reads: VMIs (by claim), VMs, launcher and attachment Pods (label kubevirt.io, by
 * owning VMI and owning launcher Pod), claims, and the KubeVirt CR in the controller's own namespace.
 */
export const VMI_WATCHES = {
  vmis: watch<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES, { indexers: { [BY_CLAIM]: vmiClaimIndex } }),
  vms: watch<VirtualMachine>(VIRTUAL_MACHINES),
  pods: watch<Pod>(PODS, { labelSelector: APP_LABEL, indexers: vmiIndexers }),
  pvcs: watch<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS),
  kubevirts: watch<KubeVirt>(KUBEVIRTS, { scope: 'config' }),
};

/**
 * The VMI controller's watches: its VMIs; a deleted VM wakes the VMI of the same name (its VMI is then
 * orphaned and stopped); launcher and attachment Pods; the claims the VMIs use.
 */
export function watchForVmis(
  inf: Pick<Caches<typeof VMI_WATCHES>, 'vms' | 'vmis' | 'pods' | 'pvcs'>,
  controller: VmiController,
  enqueue: Enqueue,
): void {
  inf.vmis.addEventHandler(enqueueOwnKey(enqueue));
  inf.vms.addEventHandler({
    onDelete: (vm): void => {
      enqueue(objectKey(vm));
    },
  });
  inf.pods.addEventHandler(podHandler(controller, { vmis: inf.vmis.store, pods: inf.pods.store }, enqueue));
  inf.pvcs.addEventHandler(pvcHandler(inf.vmis.store, enqueue));
}
