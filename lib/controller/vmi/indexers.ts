/**
 * Indexes of the launcher Pod cache (which also holds attachment Pods) and of the VMI cache. A Pod's owner is
 * keyed by the Pod's own namespace and the owner's uid: a controller reference names an object of the same
 * namespace, so a Pod elsewhere that names a VMI's uid is never that VMI's (kubevirt controller.go
 * CurrentVMIPod and AttachmentPods list the owner's namespace, then compare uids).
 */
import { APP_LABEL, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { controllerRefOf } from '../../kernel/controller/owner.ts';
import type { Indexer } from '../../kernel/informer/index-funcs.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import type { KubeObject } from '../../kernel/kube/types.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { claimNameOf } from '../../kubevirt/core/pvc.ts';

const BY_VMI_UID = 'vmi-uid';
const BY_OWNER_POD_UID = 'owner-pod-uid';
export const BY_CLAIM = 'claim';

/** `namespace/uid` of an object: the index value of the Pods it controls. */
export const ownerIndexKey = (owner: KubeObject): string =>
  `${owner.metadata.namespace ?? ''}/${owner.metadata.uid ?? ''}`;

function controllerIndex(kind: string): Indexer<Pod> {
  return (pod) => {
    const ref = controllerRefOf(pod);
    return ref?.kind === kind && ref.uid !== '' ? [`${pod.metadata.namespace ?? ''}/${ref.uid}`] : [];
  };
}

/** Pods by `namespace/uid` of the VMI that controls them. */
export const vmiUidIndex: Indexer<Pod> = controllerIndex('VirtualMachineInstance');

/** Attachment Pods by `namespace/uid` of the launcher Pod that controls them. */
export const ownerPodUidIndex: Indexer<Pod> = controllerIndex('Pod');

export const vmiIndexers: Readonly<Record<string, Indexer<Pod>>> = {
  [BY_VMI_UID]: vmiUidIndex,
  [BY_OWNER_POD_UID]: ownerPodUidIndex,
};

/** The Pods of the VMI's namespace that it controls. */
export function podsOfVmi(pods: StoreReader<Pod>, vmi: VirtualMachineInstance): Pod[] {
  return vmi.metadata.uid === undefined ? [] : pods.byIndex(BY_VMI_UID, ownerIndexKey(vmi));
}

/** The attachment Pods of the launcher Pod's namespace that it controls; with label, those of that kubevirt.io label. */
export function attachmentPodsOfLauncher(
  pods: StoreReader<Pod>,
  launcher: Pod | undefined,
  label?: string,
): Pod[] {
  if (launcher?.metadata.uid === undefined) return [];
  const owned = pods.byIndex(BY_OWNER_POD_UID, ownerIndexKey(launcher));
  return label === undefined ? owned : owned.filter((p) => p.metadata.labels?.[APP_LABEL] === label);
}

/** VMIs by `namespace/claim` of each PVC and DataVolume volume (a DataVolume's claim has its name). */
export const vmiClaimIndex: Indexer<VirtualMachineInstance> = (vmi) => {
  const ns = vmi.metadata.namespace ?? '';
  const names = (vmi.spec.volumes ?? []).map(claimNameOf).filter((n) => n !== '');
  return [...new Set(names)].map((n) => `${ns}/${n}`);
};
