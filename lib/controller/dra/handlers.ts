/**
 * What the DRA status controller reads and what wakes it (kubevirt watch/dra/dra.go): VMIs with DRA devices;
 * launcher Pods, which wake the VMI that controls them, and attachment Pods, the VMI of their launcher Pod;
 * ResourceClaims, which wake the VMI of each Pod they are reserved for (the scheduler writes the allocation and the reservation together); ResourceSlices, which wake
 * every VMI with DRA devices (slices change rarely, and a device's attributes may arrive after its allocation).
 */
import { APP_LABEL, hasDraDevices, VIRTUAL_MACHINE_INSTANCES } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { EventHandler } from '../../kernel/informer/informer.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import { objectKey } from '../../kernel/controller/keys.ts';
import { PODS, RESOURCE_CLAIMS, RESOURCE_SLICES } from '../../kernel/kube/resources.ts';
import type { KubeObject } from '../../kernel/kube/types.ts';
import type { ResourceClaim, ResourceSlice } from '../../kubevirt/core/dra.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { watch, type Caches } from '../registry.ts';
import { owningVmi, type PodCaches } from '../vmi/handlers.ts';
import { vmiIndexers } from '../vmi/indexers.ts';

export const BY_DRIVER_POOL = 'driver-pool';

/** Slices by `<driver>/<pool>`, the pair an allocation result names. */
export const slicePoolIndex = (s: ResourceSlice): string[] => [`${s.spec.driver}/${s.spec.pool.name}`];

export const DRA_WATCHES = {
  vmis: watch<VirtualMachineInstance>(VIRTUAL_MACHINE_INSTANCES),
  pods: watch<Pod>(PODS, { labelSelector: APP_LABEL, indexers: vmiIndexers }),
  claims: watch<ResourceClaim>(RESOURCE_CLAIMS),
  slices: watch<ResourceSlice>(RESOURCE_SLICES, { indexers: { [BY_DRIVER_POOL]: slicePoolIndex } }),
};

type Enqueue = (key: string) => void;

function onChange<T extends KubeObject>(wake: (obj: T) => void): EventHandler<T> {
  return {
    onAdd: wake,
    onUpdate: (old, obj): void => {
      if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) wake(obj);
    },
    onDelete: wake,
  };
}

function wakeDraVmis(vmis: StoreReader<VirtualMachineInstance>, enqueue: Enqueue): void {
  for (const vmi of vmis.list()) if (hasDraDevices(vmi)) enqueue(objectKey(vmi));
}

/**
 * The VMIs whose launcher Pods, or their device attachment Pods, the claim is reserved for, each Pod checked
 * by uid against the cache.
 */
export function reservingVmis(claim: ResourceClaim, caches: PodCaches): string[] {
  const ns = claim.metadata.namespace ?? '';
  return (claim.status?.reservedFor ?? []).flatMap((r) => {
    if (r.resource !== 'pods') return [];
    const pod = caches.pods.get(`${ns}/${r.name}`);
    const key = pod === undefined || pod.metadata.uid !== r.uid ? undefined : owningVmi(pod, caches);
    return key === undefined ? [] : [key];
  });
}

export function watchForDraStatus(inf: Caches<typeof DRA_WATCHES>, enqueue: Enqueue): void {
  const vmis = inf.vmis.store;
  inf.vmis.addEventHandler(
    onChange((vmi: VirtualMachineInstance) => {
      if (hasDraDevices(vmi)) enqueue(objectKey(vmi));
    }),
  );
  const caches = { vmis, pods: inf.pods.store };
  inf.pods.addEventHandler(
    onChange((pod: Pod) => {
      const key = owningVmi(pod, caches);
      if (key !== undefined) enqueue(key);
    }),
  );
  inf.claims.addEventHandler(
    onChange((claim: ResourceClaim) => {
      for (const key of reservingVmis(claim, caches)) enqueue(key);
    }),
  );
  inf.slices.addEventHandler(
    onChange(() => {
      wakeDraVmis(vmis, enqueue);
    }),
  );
}
