/** Indexes of the launcher Pod cache (which also holds attachment Pods) and of the VMI cache. */
import type { VirtualMachineInstance } from '../../api/index.ts';
import { controllerRefOf } from '../../kernel/controller/owner.ts';
import type { Indexer } from '../../kernel/informer/index-funcs.ts';
import type { Pod } from '../../api/core/pod.ts';
import { claimNameOf } from '../../api/core/pvc.ts';

export const BY_VMI_UID = 'vmi-uid';
export const BY_OWNER_POD_UID = 'owner-pod-uid';
export const BY_CLAIM = 'claim';

/** Pods by the uid of the VMI that controls them. */
export const vmiUidIndex: Indexer<Pod> = (pod) => {
  const ref = controllerRefOf(pod);
  return ref?.kind === 'VirtualMachineInstance' ? [ref.uid] : [];
};

/** Attachment Pods by the uid of the launcher Pod that controls them. */
export const ownerPodUidIndex: Indexer<Pod> = (pod) => {
  const ref = controllerRefOf(pod);
  return ref?.kind === 'Pod' ? [ref.uid] : [];
};

export const vmiIndexers: Readonly<Record<string, Indexer<Pod>>> = {
  [BY_VMI_UID]: vmiUidIndex,
  [BY_OWNER_POD_UID]: ownerPodUidIndex,
};

/** VMIs by `namespace/claim` of each PVC and DataVolume volume (a DataVolume's claim has its name). */
export const vmiClaimIndex: Indexer<VirtualMachineInstance> = (vmi) => {
  const ns = vmi.metadata.namespace ?? '';
  const names = (vmi.spec.volumes ?? []).map(claimNameOf).filter((n) => n !== '');
  return [...new Set(names)].map((n) => `${ns}/${n}`);
};
