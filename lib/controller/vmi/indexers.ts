/** Indexes of the launcher Pod cache. */
import { controllerRefOf } from '../../kernel/controller/owner.ts';
import type { Indexer } from '../../kernel/informer/index-funcs.ts';
import type { Pod } from '../common/pod.ts';

export const BY_VMI_UID = 'vmi-uid';

/** Pods by the uid of the VMI that controls them. */
export const vmiUidIndex: Indexer<Pod> = (pod) => {
  const ref = controllerRefOf(pod);
  return ref?.kind === 'VirtualMachineInstance' ? [ref.uid] : [];
};

export const vmiIndexers: Readonly<Record<string, Indexer<Pod>>> = { [BY_VMI_UID]: vmiUidIndex };
