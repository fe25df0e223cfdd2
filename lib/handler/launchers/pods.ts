/**
 * Which Pod the handler takes for a VMI's launcher Pod, pure. KubeVirt (pkg/virt-handler/cmd-client
 * FindPodDirOnHost) takes any of `status.activePods` whose directory is on the node; the VMI has no status
 * subresource, so whoever may update a VMI could name another tenant's Pod there. Here a listed Pod counts
 * only when the node's launcher Pod cache holds it with that uid, in the VMI's own namespace, on this node,
 * controlled by this VMI (kind VirtualMachineInstance and its uid, as kubevirt controller.go CurrentVMIPod
 * finds a VMI's Pods) and labelled as its launcher Pod (lib/controller/vmi/launcher-pod.ts). The command
 * socket, Notify, the console and hotplug all reach a launcher Pod through this one check.
 */
import { APP_LABEL, LABEL_VALUES, LABELS, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { controllerRefOf } from '../../kernel/controller/owner.ts';
import type { Indexer } from '../../kernel/informer/index-funcs.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';

/** The index of the handler's Pod cache by Pod uid. */
export const POD_BY_UID = 'uid';
export const podUidIndex: Indexer<Pod> = (pod) =>
  pod.metadata.uid === undefined || pod.metadata.uid === '' ? [] : [pod.metadata.uid];

/** The selectors of the handler's Pod cache: launcher Pods on this node, in every namespace. */
export function launcherPodSelectors(node: string): { labelSelector: string; fieldSelector: string } {
  return { labelSelector: `${APP_LABEL}=${LABEL_VALUES.LAUNCHER}`, fieldSelector: `spec.nodeName=${node}` };
}

/** The launcher Pods of this node the handler has cached, by uid. */
export interface NodePods {
  byUid(uid: string): Pod | undefined;
}

export function nodePods(store: Pick<StoreReader<Pod>, 'byIndex'>): NodePods {
  return { byUid: (uid) => store.byIndex(POD_BY_UID, uid)[0] };
}

/** Whether the VMI controls the Pod (kind VirtualMachineInstance, its uid) and labelled it as its launcher Pod. */
function ownedBy(pod: Pod, vmiUid: string): { controlled: boolean; labelled: boolean } {
  const ref = controllerRefOf(pod);
  const labels = pod.metadata.labels ?? {};
  return {
    controlled: ref?.kind === 'VirtualMachineInstance' && ref.uid === vmiUid,
    labelled: labels[APP_LABEL] === LABEL_VALUES.LAUNCHER && labels[LABELS.CREATED_BY] === vmiUid,
  };
}

/** Why `pod` (the cache's Pod of uid `podUid`, if any) is not the VMI's launcher Pod on `node`, or undefined. */
export function launcherPodProblem(
  vmi: VirtualMachineInstance,
  podUid: string,
  pod: Pod | undefined,
  node: string,
): string | undefined {
  const { namespace = '', name = '', uid = '' } = vmi.metadata;
  const what = `pod ${podUid}`;
  if (uid === '') return 'the VMI has no uid';
  if (pod === undefined || pod.metadata.uid !== podUid)
    return `${what} is not a launcher pod in the node's cache`;
  if (pod.metadata.namespace !== namespace) return `${what} is not in the VMI's namespace ${namespace}`;
  if (pod.spec.nodeName !== node) return `${what} does not run on node ${node}`;
  const owned = ownedBy(pod, uid);
  if (!owned.controlled) return `${what} is not controlled by VMI ${namespace}/${name}`;
  if (!owned.labelled) return `${what} is not labelled as the launcher pod of VMI ${namespace}/${name}`;
  return undefined;
}

export type LauncherPodChoice =
  | { readonly uid: string }
  | {
      readonly uid?: undefined;
      /** Why each active Pod listed for this node was refused (none listed: empty). */
      readonly refused: readonly string[];
      /** Whether one of them is in the cache (else they may just not be cached yet). */
      readonly cached: boolean;
    };

/**
 * The VMI's launcher Pod among its active Pods on this node, or why there is none: of those that are its launcher
 * Pods, one still running before one that ended (a migration's source Pod completes beside its target), then the
 * newest. `activePods` is a map, and its keys come back sorted, not in the order the Pods came.
 */
export function trustedLauncherPod(
  vmi: VirtualMachineInstance,
  node: string,
  pods: NodePods,
): LauncherPodChoice {
  const listed = Object.entries(vmi.status?.activePods ?? {})
    .filter(([, n]) => n === node)
    .map(([uid]) => uid);
  const refused: string[] = [];
  const trusted: Pod[] = [];
  let cached = false;
  for (const podUid of listed) {
    const pod = pods.byUid(podUid);
    const problem = launcherPodProblem(vmi, podUid, pod, node);
    if (problem === undefined && pod !== undefined) trusted.push(pod);
    else if (problem !== undefined) refused.push(problem);
    cached ||= pod !== undefined;
  }
  const best = trusted.sort(preferred)[0];
  return best === undefined ? { refused, cached } : { uid: best.metadata.uid ?? '' };
}

const ended = (p: Pod): boolean => p.status?.phase === 'Succeeded' || p.status?.phase === 'Failed';

/** Running before ended, then the newest first (the uid breaks a tie, so the choice is stable). */
function preferred(a: Pod, b: Pod): number {
  if (ended(a) !== ended(b)) return ended(a) ? 1 : -1;
  const at = a.metadata.creationTimestamp ?? '';
  const bt = b.metadata.creationTimestamp ?? '';
  if (at !== bt) return at < bt ? 1 : -1;
  return (a.metadata.uid ?? '') < (b.metadata.uid ?? '') ? 1 : -1;
}
