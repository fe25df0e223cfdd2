/**
 * For tests of which Pod the handler takes for a VMI's launcher Pod: the launcher Pod the controller renders
 * for a VMI (its labels and controller reference, lib/controller/vmi/launcher-pod.ts), scheduled to a node,
 * and the handler's Pod cache over given Pods (a real Store with the handler's uid index).
 */
import { APP_LABEL, LABEL_VALUES, LABELS, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { newControllerRef } from '../../kernel/controller/owner.ts';
import { Store } from '../../kernel/informer/store.ts';
import { nodePods, POD_BY_UID, podUidIndex, type NodePods } from '../launchers/pods.ts';

/** The launcher Pod of `vmi` with uid `podUid`, in its namespace, on `node`. */
export function launcherPodFor(vmi: VirtualMachineInstance, podUid: string, node: string): Pod {
  const { namespace, name, uid = '' } = vmi.metadata;
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name: `virt-launcher-${name ?? ''}-${podUid}`,
      ...(namespace !== undefined && { namespace }),
      uid: podUid,
      labels: { [APP_LABEL]: LABEL_VALUES.LAUNCHER, [LABELS.CREATED_BY]: uid },
      ownerReferences: [
        newControllerRef(vmi, { group: 'kubevirt.io', version: 'v1', kind: 'VirtualMachineInstance' }),
      ],
    },
    spec: { nodeName: node, containers: [{ name: 'compute', image: 'virt:test' }] },
  };
}

/** The handler's cache of launcher Pods, holding `pods`. */
export function cachedPods(...pods: Pod[]): NodePods {
  const store = new Store<Pod>({ indexers: { [POD_BY_UID]: podUidIndex } });
  for (const p of pods) store.add(p);
  return nodePods(store);
}
