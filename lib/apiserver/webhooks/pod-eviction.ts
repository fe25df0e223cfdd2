/**
 * The /pod-eviction-validate webhook (kubevirt pod-eviction-admitter.go Admit, tag v1.6.2): the IO around the
 * pure decision of lib/kubevirt/admission/pod-eviction.ts. It reads the evicted Pod from the cluster (an eviction
 * of a Pod it cannot read is allowed, as in KubeVirt), a hotplug-disk Pod's owner, and the VMI, then writes the
 * evacuation mark the decision asks for (status.evacuationNodeName added by a JSON patch, dry run when the
 * eviction is one) and answers the decision's denial: code 429 and no reason, as KubeVirt's denied() does, so
 * `kubectl drain` retries until the migration has moved the VMI and the Pod goes with it.
 */
import type { Pod } from '../../kubevirt/core/pod.ts';
import { ANNOTATIONS, APP_LABEL, LABEL_VALUES, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import { errorMessage } from '../../kernel/errors/errors.ts';
import type { EvictionStrategy } from '../../kubevirt/v1/vmi-spec.ts';
import {
  decideEviction,
  isDryRunEviction,
  markFailedMessage,
  type EvictionInput,
} from '../../kubevirt/admission/pod-eviction.ts';
import type { AdmissionRequest, Verdict } from '../../kubevirt/admission/review.ts';

/** A read's outcome: the object, undefined when it is not there, or the error's text. */
export type EvictionRead<T> = T | undefined | { error: string };

/** What the webhook reads and writes, live from the cluster as KubeVirt's admitter reads. */
export interface EvictionIo {
  pod(namespace: string, name: string): Promise<EvictionRead<Pod>>;
  vmi(namespace: string, name: string): Promise<EvictionRead<VirtualMachineInstance>>;
  /** Adds status.evacuationNodeName = node to the VMI; throws when the patch fails. */
  markEvacuation(vmi: { namespace: string; name: string }, node: string, dryRun: boolean): Promise<void>;
}

const isRead = <T extends object>(r: EvictionRead<T>): r is T => r !== undefined && !('error' in r);
const denied = (message: string): Verdict => ({ allowed: false, code: 429, reason: '', message });
const domainOf = (p: Pod): string | undefined => p.metadata.annotations?.[ANNOTATIONS.DOMAIN];

/** A hotplug-disk Pod's one owner (KubeVirt's isHotplugPod), else undefined. */
function hotplugOwner(pod: Pod): string | undefined {
  const owners = pod.metadata.ownerReferences ?? [];
  const hotplug = pod.metadata.labels?.[APP_LABEL] === LABEL_VALUES.HOTPLUG_DISK && owners.length === 1;
  return hotplug ? (owners[0]?.name ?? '') : undefined;
}

/** What decideEviction needs: a hotplug-disk Pod's owner, and the VMI the (owner) launcher names. */
async function inputFor(
  io: EvictionIo,
  pod: Pod,
  cluster: EvictionStrategy | undefined,
): Promise<EvictionInput> {
  const ns = pod.metadata.namespace ?? '';
  const owner = hotplugOwner(pod);
  const ownerPod = owner === undefined ? undefined : await io.pod(ns, owner);
  const launcher = owner === undefined ? pod : ownerPod;
  const vmiName = isRead(launcher) ? domainOf(launcher) : undefined;
  const vmi = vmiName === undefined ? undefined : await io.vmi(ns, vmiName);
  return {
    pod,
    ...(ownerPod !== undefined && { ownerPod }),
    ...(vmi !== undefined && { vmi }),
    clusterEvictionStrategy: cluster,
  };
}

/** The verdict on the eviction `req` asks for; `cluster` is the KubeVirt CR's eviction strategy. */
export async function admitPodEviction(
  io: EvictionIo,
  req: AdmissionRequest,
  cluster: EvictionStrategy | undefined,
): Promise<Verdict> {
  const pod = await io.pod(req.namespace ?? '', req.name ?? '');
  if (!isRead(pod)) return { allowed: true };
  const input = await inputFor(io, pod, cluster);
  const decision = decideEviction(input);
  if (decision.allowed) return decision;
  const vmi = input.vmi;
  if (decision.evacuateNode !== undefined && isRead(vmi)) {
    const target = { namespace: vmi.metadata.namespace ?? '', name: vmi.metadata.name ?? '' };
    try {
      await io.markEvacuation(target, decision.evacuateNode, isDryRunEviction(req.dryRun, req.object));
    } catch (err) {
      return denied(markFailedMessage(errorMessage(err)));
    }
  }
  return denied(decision.message);
}
