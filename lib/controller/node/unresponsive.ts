/**
 * When a node's virt-handler counts as gone, and which VMIs that strands (kubevirt watch/node/node.go,
 * tag v1.6.2): a node is unresponsive when it no longer exists, or when its kubevirt.io/heartbeat annotation
 * (written by virt-handler) is older than the timeout; a node without a heartbeat has no handler yet and is
 * left alone. Of the VMIs on such a node, those with no live launcher Pod there are stuck: the controller
 * fails them (a live Pod means the guest may still run; its node, not the controller, decides).
 */
import { ANNOTATIONS } from '../../kubevirt/index.ts';
import type { VirtualMachineInstance } from '../../kubevirt/index.ts';
import { controllerRefOf } from '../../kernel/controller/owner.ts';
import type { KubeObject } from '../../kernel/kube/types.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { parseTime } from '../../kernel/controller/time.ts';
import { ownerIndexKey, vmiUidIndex } from '../vmi/indexers.ts';

/** KubeVirt's heartBeatTimeout. */
export const DEFAULT_HEARTBEAT_TIMEOUT_MS = 5 * 60 * 1000;
export const NODE_UNRESPONSIVE_REASON = 'NodeUnresponsive';

export function isNodeUnresponsive(node: KubeObject | undefined, nowMs: number, timeoutMs: number): boolean {
  if (node === undefined) return true;
  const beat = node.metadata.annotations?.[ANNOTATIONS.HANDLER_HEARTBEAT];
  const at = parseTime(beat);
  return at !== undefined && at < nowMs - timeoutMs;
}

/** A launcher Pod that may still hold a guest: not Failed or Succeeded, and not every container terminated. */
export function isAliveLauncher(pod: Pod): boolean {
  if (controllerRefOf(pod)?.kind !== 'VirtualMachineInstance') return false;
  const phase = pod.status?.phase;
  if (phase === 'Failed' || phase === 'Succeeded') return false;
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.length === 0 || statuses.some((c) => c.state?.terminated === undefined);
}

/** The VMIs among vmis that no live launcher Pod in pods belongs to (a Pod of the VMI's own namespace). */
export function stuckVmis(
  vmis: readonly VirtualMachineInstance[],
  pods: readonly Pod[],
): VirtualMachineInstance[] {
  const alive = new Set(pods.filter(isAliveLauncher).flatMap(vmiUidIndex));
  return vmis.filter((v) => !alive.has(ownerIndexKey(v)));
}
