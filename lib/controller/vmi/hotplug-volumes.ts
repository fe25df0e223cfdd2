/**
 * Which volumes are hotplugged and which attachment Pods a VMI needs (kubevirt vmi/volume-hotplug.go and
 * controller.go GetHotplugVolumes, tag v1.6.2, with the fixes of KubeVirt main: a Pod being deleted is never
 * the current one, an old running Pod is kept as a fallback only while it holds a volume worth keeping).
 * - hotplug volumes: PVC and DataVolume volumes the launcher Pod does not mount (hotpluggable ones), and
 *   hotpluggable containerDisks (the Deckhouse fork's patch 031: an image the attachment Pod mounts);
 * - a volume is ready to attach when its claim exists and, for a DataVolume's claim, is Bound (CDI is not
 *   watched: a DataVolume's claim binds once populated). Like KubeVirt, a plain claim need not be Bound: the
 *   attachment Pod is its first consumer, which is what binds a WaitForFirstConsumer claim. A containerDisk
 *   is always ready (the fork's handleHotplugVolumes): the kubelet pulls its image for the attachment Pod;
 * - one current attachment Pod holds exactly the ready volumes. When the set changes the new Pod is created
 *   first and the old one deleted once the new one runs; a Pod still holding a mounted volume the spec no
 *   longer has (phase MountedToPod or Ready) waits for the node to unmount it.
 */
import type { VirtualMachineInstance, Volume } from '../../kubevirt/index.ts';
import { HOTPLUG_MOUNTED_PHASES } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import {
  claimNameOf,
  isDataVolumeClaim,
  type ClaimLookup,
  type PersistentVolumeClaim,
} from '../../kubevirt/core/pvc.ts';
import { parseTime } from '../../kernel/controller/time.ts';

interface PodVolume {
  name: string;
  persistentVolumeClaim?: { claimName: string };
  image?: { reference?: string };
}

function podVolumes(pod: Pod): PodVolume[] {
  const vols = pod.spec['volumes'];
  return Array.isArray(vols) ? (vols as PodVolume[]) : [];
}

export const podHasVolume = (pod: Pod, name: string): boolean => podVolumes(pod).some((v) => v.name === name);

/** A containerDisk the attachment Pod brings to the node (the fork's IsHotplugContainerDisk). */
export const isHotplugImage = (v: Volume): boolean => v.containerDisk?.hotpluggable === true;

/**
 * PVC and DataVolume volumes not mounted by the launcher Pod (without a Pod: the hotpluggable ones), and the
 * hotpluggable containerDisks (never in a launcher Pod: pod-volumes.ts leaves them out).
 */
export function hotplugVolumes(vmi: VirtualMachineInstance, launcher: Pod | undefined): Volume[] {
  const inPod = new Set(launcher === undefined ? [] : podVolumes(launcher).map((v) => v.name));
  return (vmi.spec.volumes ?? []).filter((v) => {
    if (isHotplugImage(v)) return true;
    if (v.persistentVolumeClaim === undefined && v.dataVolume === undefined) return false;
    if (launcher !== undefined) return !inPod.has(v.name);
    return v.persistentVolumeClaim?.hotpluggable === true || v.dataVolume?.hotpluggable === true;
  });
}

/**
 * The VMI has hotplugged volumes: a volume status of one, or a hotpluggable volume in the spec (KubeVirt's
 * VMIHasHotplugVolumes, with the fork's hotpluggable containerDisks).
 */
export function hasHotplugVolumes(vmi: VirtualMachineInstance): boolean {
  return (
    (vmi.status?.volumeStatus ?? []).some((s) => s.hotplugVolume !== undefined) ||
    hotplugVolumes(vmi, undefined).length > 0
  );
}

export function readyToAttach(pvc: PersistentVolumeClaim | undefined): boolean {
  if (pvc === undefined) return false;
  return !isDataVolumeClaim(pvc) || pvc.status?.phase === 'Bound';
}

/** A hotplug volume is ready to attach: an image always, a claim by readyToAttach. */
export function volumeReadyToAttach(v: Volume, claim: ClaimLookup): boolean {
  return isHotplugImage(v) || readyToAttach(claim(claimNameOf(v)));
}

/** The volumes an attachment Pod holds: its claims and images (the emptyDir and any token volume do not count). */
function heldVolumes(pod: Pod): PodVolume[] {
  return podVolumes(pod).filter((v) => v.persistentVolumeClaim !== undefined || v.image !== undefined);
}

/** The Pod's claim and image volumes are exactly these volumes. */
export function podMatchesVolumes(pod: Pod, volumes: readonly Volume[]): boolean {
  const held = heldVolumes(pod);
  const want = new Set(volumes.map((v) => v.name));
  return held.length === want.size && held.every((v) => want.has(v.name));
}

/** The live Pod holding exactly the ready volumes, and every other Pod, newest first. */
export function splitAttachmentPods(
  ready: readonly Volume[],
  pods: readonly Pod[],
): { current: Pod | undefined; old: Pod[] } {
  let current: Pod | undefined;
  const old: Pod[] = [];
  for (const p of pods) {
    if (!podMatchesVolumes(p, ready)) old.push(p);
    else if (p.metadata.deletionTimestamp === undefined) current = p;
  }
  const created = (p: Pod): number => parseTime(p.metadata.creationTimestamp) ?? 0;
  old.sort((a, b) => created(b) - created(a));
  return { current, old };
}

/** Phases in which the node still has the volume mounted into the launcher. */
export const isMountedPhase = (phase: string | undefined): boolean => HOTPLUG_MOUNTED_PHASES.includes(phase);

export interface AttachmentPlanInput {
  vmi: VirtualMachineInstance;
  /** Every hotplug volume of the VMI. */
  hotplug: readonly Volume[];
  /** The hotplug volumes ready to attach. */
  ready: readonly Volume[];
  /** The attachment Pods of the current launcher Pod. */
  pods: readonly Pod[];
}

export interface AttachmentPlan {
  /** The volumes of an attachment Pod to create, when one is needed. */
  create?: Volume[];
  /** Attachment Pods to delete (never one already being deleted). */
  remove: Pod[];
}

function needsHandling({ hotplug, pods }: AttachmentPlanInput): boolean {
  if (pods.length > 1) return true;
  const only = pods[0];
  if (only !== undefined && podMatchesVolumes(only, hotplug)) return false;
  return hotplug.length > 0 || pods.length > 0;
}

const isPending = (p: Pod): boolean => !['Running', 'Succeeded', 'Failed'].includes(p.status?.phase ?? '');
const isRunningPod = (p: Pod): boolean =>
  p.status?.phase === 'Running' && p.metadata.deletionTimestamp === undefined;

interface Unplugged {
  /** Names of the hotpluggable volumes of the spec. */
  inSpec: Set<string>;
  /** Phases of the hotplug volume statuses whose volume left the spec, by name. */
  phases: Map<string, string | undefined>;
}

function unplugged(vmi: VirtualMachineInstance): Unplugged {
  const inSpec = new Set(hotplugVolumes(vmi, undefined).map((v) => v.name));
  const phases = new Map<string, string | undefined>();
  for (const s of vmi.status?.volumeStatus ?? []) {
    if (s.hotplugVolume !== undefined && !inSpec.has(s.name)) phases.set(s.name, s.phase);
  }
  return { inSpec, phases };
}

/** The Pod holds a volume the spec still has, or one the node has not unmounted yet. */
function worthKeeping(pod: Pod, u: Unplugged): boolean {
  return podVolumes(pod).some((v) => u.inSpec.has(v.name) || isMountedPhase(u.phases.get(v.name)));
}

/**
 * The old Pods to delete (newest first in old): all but those still holding a mounted unplugged volume and,
 * while mayKeepOne, the newest running one worth keeping as a fallback.
 */
function cleanup(old: readonly Pod[], mayKeepOne: boolean, unplugged: Unplugged): Pod[] {
  const remove: Pod[] = [];
  let kept = !mayKeepOne;
  for (const p of old) {
    if (!kept && isRunningPod(p) && worthKeeping(p, unplugged)) {
      kept = true;
      continue;
    }
    const stillMounted = podVolumes(p).some((v) => isMountedPhase(unplugged.phases.get(v.name)));
    if (!stillMounted && p.metadata.deletionTimestamp === undefined) remove.push(p);
  }
  return remove;
}

export function planAttachment(input: AttachmentPlanInput): AttachmentPlan {
  if (!needsHandling(input)) return { remove: [] };
  const { vmi, ready } = input;
  const split = splitAttachmentPods(ready, input.pods);
  const create = split.current === undefined && !split.old.some(isPending) && ready.length > 0;
  const currentRunning = !create && split.current !== undefined && isRunningPod(split.current);
  const remove = cleanup(split.old, ready.length > 0 && !currentRunning, unplugged(vmi));
  return { ...(create && { create: [...ready] }), remove };
}
