/**
 * The VMI a sync leads to, from its launcher Pod (kubevirt vmi/lifecycle.go updateStatus, tag v1.6.2), up to
 * Scheduled or Failed; Scheduled → Running belongs to the node.
 * - no phase / Pending: Scheduling once a Pod exists; Failed when the VMI is being deleted; else Pending;
 * - Scheduling: PodScheduled=False mirrored from the Pod (removed once scheduled); an image pull error becomes
 *   the Synchronized failure; a ready Pod hands the VMI over: Scheduled, status.nodeName and the
 *   kubevirt.io/nodeName label; a Pod going down, or gone, → Failed;
 * - Scheduled and Running: a missing Pod → Failed;
 * - final: the foregroundDeleteVirtualMachine finalizer goes once every Pod is gone, the VM controller's
 *   finalizer once no owner VM is left.
 * Ready mirrors the Pod's Ready condition once the guest runs; activePods lists every Pod the VMI controls.
 * status.interfaces gets the Pod's side (interfaces-status.ts) at the hand-over and while Running, as KubeVirt's
 * updateNetworkStatus; a Running VMI whose vCPU count or guest memory changed gets HotVCPUChange or
 * HotMemoryChange (requireCPUHotplug, requireMemoryHotplug).
 * Our addition: the VMI finalizer is set on the first write when the API's defaulting did not set it.
 */
import {
  FINALIZERS,
  HOT_MEMORY_CHANGE,
  HOT_VCPU_CHANGE,
  LABELS,
  requiresCpuHotplug,
  requiresMemoryHotplug,
} from '../../kubevirt/index.ts';
import type { VirtualMachineInstance, VirtualMachineInstanceCondition } from '../../kubevirt/index.ts';
import {
  findCondition,
  upsertCondition,
  withoutCondition,
  withPhaseTransition,
  withSyncFailure,
} from '../../kubevirt/conditions.ts';
import { addFinalizer, removeFinalizer } from '../../kernel/controller/finalizers.ts';
import {
  COMPUTE_CONTAINER,
  isPodDownOrGoingDown,
  isPodReady,
  podCondition,
  type Pod,
} from '../../kubevirt/core/pod.ts';
import { rfc3339 } from '../../kernel/controller/time.ts';
import {
  isFinal,
  isRunning,
  isScheduled,
  isScheduling,
  isUnprocessed,
  isWaitingForSync,
} from '../../kubevirt/vmi-state.ts';
import type { SyncFailure } from '../../kubevirt/conditions.ts';
import type { PodNetworkStatus } from '../../network/multus-status.ts';
import { interfacesFromPod } from './interfaces-status.ts';

export interface VmiStatusInput {
  vmi: VirtualMachineInstance;
  /** The current launcher Pod: the newest controlled Pod on the VMI's node (any node before scheduling). */
  pod: Pod | undefined;
  /** Every Pod the VMI controls. */
  pods: readonly Pod[];
  ownerVmExists: boolean;
  nowMs: number;
  /** What went wrong in this sync (creating the Pod, ...), for the Synchronized condition. */
  failure?: SyncFailure;
  /** The current Pod's Multus network-status (lib/network/multus-status.ts); none when absent. */
  podNetworks?: readonly PodNetworkStatus[];
}

export interface VmiStatusResult {
  vmi: VirtualMachineInstance;
  /** Scheduled or Running: the node owns the VMI, only status fields the controller shares may change. */
  nodeOwned: boolean;
  /** A failure found while reading the Pod (image pull errors), to report like a sync failure. */
  failure?: SyncFailure;
}

type Cond = VirtualMachineInstanceCondition;

function readyCondition(vmi: VirtualMachineInstance, pod: Pod | undefined, now: string): Cond {
  const base = { type: 'Ready', status: 'False' as const, lastProbeTime: now, lastTransitionTime: now };
  if (pod === undefined) {
    return { ...base, reason: 'PodNotExists', message: 'virt-launcher pod has not yet been scheduled' };
  }
  if (isPodDownOrGoingDown(pod)) {
    return { ...base, reason: 'PodTerminating', message: 'virt-launcher pod is terminating' };
  }
  if (!isRunning(vmi)) {
    return { ...base, reason: 'GuestNotRunning', message: 'Guest VM is not reported as running' };
  }
  const ready = podCondition(pod, 'Ready');
  if (ready === undefined) {
    return {
      ...base,
      reason: 'PodConditionMissing',
      message: 'virt-launcher pod is missing the Ready condition',
    };
  }
  return { ...ready, type: 'Ready' };
}

function activePods(status: NonNullable<VirtualMachineInstance['status']>, pods: readonly Pod[]): void {
  if (pods.length === 0 && status.activePods === undefined) return;
  status.activePods = Object.fromEntries(pods.map((p) => [p.metadata.uid ?? '', p.spec.nodeName ?? '']));
}

function imagePullFailure(pod: Pod): SyncFailure | undefined {
  for (const cs of pod.status?.containerStatuses ?? []) {
    const reason = cs.state?.waiting?.reason;
    if (reason === 'ErrImagePull' || reason === 'ImagePullBackOff') {
      return { reason, message: cs.state?.waiting?.message ?? '' };
    }
  }
  return undefined;
}

function mirrorPodScheduled(out: VirtualMachineInstance, pod: Pod): void {
  const status = (out.status ??= {});
  const scheduled = podCondition(pod, 'PodScheduled');
  if (scheduled?.status === 'False') {
    if (findCondition(status.conditions, 'PodScheduled') === undefined) {
      status.conditions = [...(status.conditions ?? []), { ...scheduled, type: 'PodScheduled' }];
    }
  } else {
    status.conditions = withoutCondition(status.conditions, 'PodScheduled');
  }
}

function withPodInterfaces(out: VirtualMachineInstance, podNetworks: readonly PodNetworkStatus[]): void {
  const status = (out.status ??= {});
  const interfaces = interfacesFromPod(out, podNetworks);
  if (interfaces === undefined) delete status.interfaces;
  else status.interfaces = interfaces;
}

function handOver(out: VirtualMachineInstance, pod: Pod): void {
  const status = (out.status ??= {});
  const node = pod.spec.nodeName ?? '';
  status.phase = 'Scheduled';
  status.nodeName = node;
  out.metadata.labels = { ...out.metadata.labels, [LABELS.NODE_NAME]: node };
}

/** QoS class and PodScheduled=False copied from the Pod; returns the QoS class. */
function observePod(out: VirtualMachineInstance, pod: Pod): string {
  const status = (out.status ??= {});
  const qos = pod.status?.qosClass ?? '';
  if (qos === '') delete status.qosClass;
  else status.qosClass = qos;
  mirrorPodScheduled(out, pod);
  return qos;
}

/** Scheduling: returns an image pull failure, if the Pod reports one. */
function scheduling(input: VmiStatusInput, out: VirtualMachineInstance): SyncFailure | undefined {
  const { vmi, pod } = input;
  const status = (out.status ??= {});
  status.conditions = withoutCondition(status.conditions, 'Provisioning');
  if (pod === undefined) {
    status.phase = 'Failed';
    return undefined;
  }
  const qos = observePod(out, pod);
  if (isPodReady(pod) && vmi.metadata.deletionTimestamp === undefined) {
    if (qos !== 'Guaranteed' && vmi.spec.domain.cpu?.dedicatedCpuPlacement === true) {
      return { reason: 'FailedGuaranteePodResources', message: 'failed to guarantee pod resources' };
    }
    handOver(out, pod);
    withPodInterfaces(out, input.podNetworks ?? []);
  } else if (isPodDownOrGoingDown(pod)) {
    status.phase = 'Failed';
  }
  return imagePullFailure(pod);
}

function finalize(input: VmiStatusInput, out: VirtualMachineInstance): void {
  if (input.pods.length === 0) {
    out.metadata.finalizers = removeFinalizer(out.metadata.finalizers, FINALIZERS.VIRTUAL_MACHINE_INSTANCE);
    if (out.metadata.labels !== undefined)
      Reflect.deleteProperty(out.metadata.labels, LABELS.OUTDATED_LAUNCHER_IMAGE);
    if (out.status !== undefined) delete out.status.launcherContainerImageVersion;
  }
  if (!input.ownerVmExists) {
    out.metadata.finalizers = removeFinalizer(out.metadata.finalizers, FINALIZERS.VIRTUAL_MACHINE_CONTROLLER);
  }
}

function waitingForSync(input: VmiStatusInput, out: VirtualMachineInstance): void {
  if (input.vmi.metadata.deletionTimestamp !== undefined) {
    out.metadata.finalizers = removeFinalizer(out.metadata.finalizers, FINALIZERS.VIRTUAL_MACHINE_INSTANCE);
    if (!input.ownerVmExists) {
      out.metadata.finalizers = removeFinalizer(
        out.metadata.finalizers,
        FINALIZERS.VIRTUAL_MACHINE_CONTROLLER,
      );
    }
  } else if (input.pod !== undefined) (out.status ??= {}).phase = 'Scheduling';
}

/**
 * A running VMI whose spec asks for another vCPU count or guest memory than it has gets HotVCPUChange=True or
 * HotMemoryChange=True (KubeVirt's syncHotplugCondition: added once, never replaced); the handler drops it
 * once the domain has the change.
 */
function withHotplugConditions(out: VirtualMachineInstance): void {
  const status = (out.status ??= {});
  for (const [type, required] of [
    [HOT_VCPU_CHANGE, requiresCpuHotplug(out)],
    [HOT_MEMORY_CHANGE, requiresMemoryHotplug(out)],
  ] as const) {
    if (!required || findCondition(status.conditions, type) !== undefined) continue;
    status.conditions = [...(status.conditions ?? []), { type, status: 'True' }];
  }
}

/** Scheduled and Running: Failed once the Pod is gone; a Running VMI gets the Pod's interfaces. */
function nodeOwnedStep(input: VmiStatusInput, out: VirtualMachineInstance): void {
  if (input.pod === undefined) (out.status ??= {}).phase = 'Failed';
  else if (isRunning(input.vmi)) {
    withPodInterfaces(out, input.podNetworks ?? []);
    withHotplugConditions(out);
  }
}

/** The phase step; returns a failure found on the way (Scheduling only). */
function phaseStep(input: VmiStatusInput, out: VirtualMachineInstance): SyncFailure | undefined {
  const { vmi, pod } = input;
  const status = (out.status ??= {});
  if (isUnprocessed(vmi)) {
    if (pod !== undefined) {
      // What KubeVirt's next pass would copy from the Pod goes into this write already: one write less.
      status.phase = 'Scheduling';
      observePod(out, pod);
    } else status.phase = vmi.metadata.deletionTimestamp !== undefined ? 'Failed' : 'Pending';
  } else if (isScheduling(vmi)) return scheduling(input, out);
  else if (isFinal(vmi)) finalize(input, out);
  else if (isRunning(vmi) || isScheduled(vmi)) nodeOwnedStep(input, out);
  else if (isWaitingForSync(vmi)) waitingForSync(input, out);
  return undefined;
}

export function computeVmiStatus(input: VmiStatusInput): VmiStatusResult {
  const { vmi, pod } = input;
  const now = rfc3339(input.nowMs);
  const out = structuredClone(vmi);
  const status = (out.status ??= {});
  activePods(status, input.pods);
  status.conditions = upsertCondition(status.conditions, readyCondition(vmi, pod, now));
  const image = pod?.spec.containers.find((c) => c.name === COMPUTE_CONTAINER)?.image;
  if (image !== undefined) status.launcherContainerImageVersion = image;
  const podFailure = phaseStep(input, out);
  const failure = podFailure ?? input.failure;
  const nodeOwned = isRunning(vmi) || isScheduled(vmi);
  if (!nodeOwned) {
    withSyncFailure(out, failure, now);
    withPhaseTransition(vmi, out, now);
    if (!isFinal(out) && vmi.metadata.deletionTimestamp === undefined) {
      out.metadata.finalizers = addFinalizer(out.metadata.finalizers, FINALIZERS.VIRTUAL_MACHINE_INSTANCE);
    }
  }
  return { vmi: out, nodeOwned, ...(failure !== undefined && { failure }) };
}
