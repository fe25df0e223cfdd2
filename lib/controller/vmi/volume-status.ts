/**
 * status.volumeStatus as the VMI controller keeps it (kubevirt vmi/storage.go updateVolumeStatus, tag
 * v1.6.2), as a pure function of the VMI, its launcher Pod, its attachment Pods and the claims.
 * - every spec volume has an entry (what the node wrote, target, size, ..., is kept); PVC and DataVolume
 *   volumes get persistentVolumeClaimInfo from their claim (volumeMode decides file or block in the launcher);
 * - a hotplug volume without an attachment Pod takes its phase from the claim: Pending (claim missing or not
 *   bound), Bound; a Ready one keeps its phase. Once an attachment Pod holds it: AttachedToNode (from no phase,
 *   Pending or Bound), attachPodName, and attachPodUID once the Pod's container is ready (the node's cue to
 *   mount). MountedToPod and Ready are the node's to set and are kept;
 * - the attachment Pod an entry names is always one of attachmentPods (the node mounts from the Pod whose uid
 *   it reads): a name or uid the controller did not take from those is dropped, and a volume that is not
 *   hotplugged has no hotplugVolume at all;
 * - a hotpluggable containerDisk (the Deckhouse fork's patch 031) has no claim: without an attachment Pod it
 *   is Pending with the fork's AttachmentPodNotFound (a Ready one stays Ready, as a claim does; the fork
 *   makes it Pending too, which would take the disk out of the running guest while its Pod is replaced),
 *   with one the same phases as a claim, and it carries an empty containerDiskVolume (the fork's marker of
 *   a hotplugged image; KubeVirt's checksum in it is not computed here);
 * - a volume gone from the spec keeps its entry while an attachment Pod still has it: Detaching (unless the
 *   node still has it mounted), "Deleted hotplug attachment pod" once that Pod is being deleted; then it goes;
 * - beyond KubeVirt v1.6.2, which leaves such a volume AttachedToNode without a word (KubeVirt #18734 reports
 *   the node's attach failures the same way): an attachment Pod that cannot run (the scheduler cannot place
 *   it, e.g. its claim never binds; its image cannot be pulled; it failed) makes the volume HotplugFailed with
 *   reason AttachmentPodFailed and what the scheduler or the kubelet said, until the Pod runs after all.
 * Entries are sorted by name. The transitions KubeVirt announces come back as events, and a volume that fails
 * (HotplugFailed, or its claim not found) as a warning.
 */
import type { VirtualMachineInstance, Volume, VolumeStatus } from '../../kubevirt/index.ts';
import { podCondition, type Pod } from '../../kubevirt/core/pod.ts';
import {
  claimNameOf,
  DEFAULT_FS_OVERHEAD,
  isPreallocated,
  type ClaimLookup,
  type PersistentVolumeClaim,
} from '../../kubevirt/core/pvc.ts';
import {
  hotplugVolumes,
  isHotplugImage,
  isMountedPhase,
  podHasVolume,
  splitAttachmentPods,
  volumeReadyToAttach,
} from './hotplug-volumes.ts';

const VOLUME_PHASES = {
  PENDING: 'Pending',
  BOUND: 'Bound',
  ATTACHED_TO_NODE: 'AttachedToNode',
  MOUNTED_TO_POD: 'MountedToPod',
  READY: 'Ready',
  DETACHING: 'Detaching',
  FAILED: 'HotplugFailed',
} as const;

const REASONS = {
  PVC_NOT_FOUND: 'FailedPvcNotFound',
  PVC_NOT_READY: 'PVCNotReady',
  NO_ATTACHMENT_POD: 'AttachmentPodNotFound',
  CREATED: 'SuccessfulCreate',
  DELETED: 'SuccessfulDelete',
  POD_FAILED: 'AttachmentPodFailed',
} as const;

/** Container waiting reasons that do not clear by waiting (an image to pull, a container to create). */
const STUCK_WAITING = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'ErrImageNeverPull',
  'InvalidImageName',
  'CreateContainerConfigError',
  'CreateContainerError',
]);

export interface VolumeStatusInput {
  vmi: VirtualMachineInstance;
  /** The current launcher Pod; before it exists, hotpluggable volumes count as hotplugged. */
  launcher: Pod | undefined;
  /** The attachment Pods of the launcher Pod. */
  attachmentPods: readonly Pod[];
  claim: ClaimLookup;
}

export interface VolumeEvent {
  type: 'Normal' | 'Warning';
  reason: string;
  message: string;
}

export interface VolumeStatusResult {
  statuses: VolumeStatus[];
  /** Normal events for the transitions made (attached, detached). */
  events: VolumeEvent[];
}

function claimInfo(pvc: PersistentVolumeClaim): NonNullable<VolumeStatus['persistentVolumeClaimInfo']> {
  const { accessModes, volumeMode, resources } = pvc.spec ?? {};
  const capacity = pvc.status?.capacity;
  return {
    claimName: pvc.metadata.name ?? '',
    ...(accessModes !== undefined && accessModes.length > 0 && { accessModes: [...accessModes] }),
    ...(volumeMode !== undefined && { volumeMode }),
    ...(capacity !== undefined && { capacity: { ...capacity } }),
    ...(resources?.requests !== undefined && { requests: { ...resources.requests } }),
    ...(isPreallocated(pvc) && { preallocated: true }),
    filesystemOverhead: DEFAULT_FS_OVERHEAD,
  };
}

/** Phase, reason and message of a hotplug volume no attachment Pod holds (getVolumePhaseMessageReason). */
function claimPhase(
  claimName: string,
  pvc: PersistentVolumeClaim | undefined,
): Required<Pick<VolumeStatus, 'phase' | 'reason' | 'message'>> {
  if (pvc === undefined) {
    return { phase: 'Pending', reason: REASONS.PVC_NOT_FOUND, message: `PVC ${claimName} not found` };
  }
  const claim = pvc.status?.phase ?? 'Pending';
  if (claim === 'Bound')
    return { phase: 'Bound', reason: REASONS.PVC_NOT_READY, message: 'PVC is in phase Bound' };
  const message = claim === 'Pending' ? 'PVC is in phase ClaimPending' : 'PVC is in phase Lost';
  return { phase: 'Pending', reason: REASONS.PVC_NOT_READY, message };
}

const canMoveToAttached = (phase: string | undefined): boolean =>
  phase === undefined ||
  phase === '' ||
  phase === VOLUME_PHASES.BOUND ||
  phase === VOLUME_PHASES.PENDING ||
  phase === VOLUME_PHASES.FAILED;

/** A container of the Pod stuck waiting, as `<reason>: <message>`. */
function stuckContainer(pod: Pod): string | undefined {
  for (const cs of pod.status?.containerStatuses ?? []) {
    const { reason, message } = cs.state?.waiting ?? {};
    if (reason !== undefined && STUCK_WAITING.has(reason)) return message ? `${reason}: ${message}` : reason;
  }
  return undefined;
}

/** Why an attachment Pod that is not ready will not become so by itself, or undefined. Pure. */
function attachmentPodFailure(pod: Pod): string | undefined {
  const name = `attachment pod ${pod.metadata.name ?? ''}`;
  if (pod.status?.phase === 'Failed') return `${name} failed`;
  const scheduled = podCondition(pod, 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable')
    return `${name} cannot be scheduled: ${scheduled.message ?? 'no reason given'}`;
  const stuck = stuckContainer(pod);
  return stuck === undefined ? undefined : `${name}: ${stuck}`;
}

/** The attachment Pod's one container is ready. */
function attachPodReady(pod: Pod): boolean {
  const statuses = pod.status?.containerStatuses ?? [];
  return statuses.length === 1 && statuses[0]?.ready === true;
}

/** Phase, reason and message of a hotplugged image no attachment Pod holds (the fork's updateVolumeStatus). */
const NO_POD = {
  phase: VOLUME_PHASES.PENDING,
  reason: REASONS.NO_ATTACHMENT_POD,
  message: 'Attachment pod not found',
} as const;

interface HotplugInput {
  /** The live attachment Pod holding the volume, if any. */
  holder: Pod | undefined;
  /** Every attachment Pod of the launcher Pod (in the VMI's namespace, controlled by that Pod). */
  attachmentPods: readonly Pod[];
  pvc: PersistentVolumeClaim | undefined;
  claimName: string;
  /** A hotpluggable containerDisk, not a claim. */
  image: boolean;
}

/**
 * No attachment Pod holds the volume: a Ready volume stays Ready (KubeVirt), anything else takes its phase
 * from the claim. The Pod named is kept only when it is one of the launcher Pod's attachment Pods, its uid
 * only for a Ready volume whose Pod still has the volume (being deleted): the controller wrote those.
 */
function unheldStatus(volumeStatus: VolumeStatus, i: HotplugInput): void {
  const hv = (volumeStatus.hotplugVolume ??= {});
  const ready = volumeStatus.phase === VOLUME_PHASES.READY;
  const byUid = i.attachmentPods.find((p) => p.metadata.uid === hv.attachPodUID);
  if (!ready || byUid === undefined || !podHasVolume(byUid, volumeStatus.name)) delete hv.attachPodUID;
  if (!i.attachmentPods.some((p) => p.metadata.name === hv.attachPodName)) delete hv.attachPodName;
  if (!ready) Object.assign(volumeStatus, i.image ? NO_POD : claimPhase(i.claimName, i.pvc));
}

function attachedStatus(volumeStatus: VolumeStatus, i: HotplugInput): void {
  const pod = i.holder;
  if (pod === undefined) {
    unheldStatus(volumeStatus, i);
    return;
  }
  const hv = (volumeStatus.hotplugVolume ??= {});
  hv.attachPodName = pod.metadata.name ?? '';
  if (attachPodReady(pod)) hv.attachPodUID = pod.metadata.uid ?? '';
  else delete hv.attachPodUID;
  const failure = attachPodReady(pod) ? undefined : attachmentPodFailure(pod);
  if (
    failure !== undefined &&
    (canMoveToAttached(volumeStatus.phase) || isAttachedPhase(volumeStatus.phase))
  ) {
    Object.assign(volumeStatus, {
      phase: VOLUME_PHASES.FAILED,
      reason: REASONS.POD_FAILED,
      message: failure,
    });
  } else if (canMoveToAttached(volumeStatus.phase)) {
    volumeStatus.phase = VOLUME_PHASES.ATTACHED_TO_NODE;
    volumeStatus.reason = REASONS.CREATED;
    volumeStatus.message = `Created hotplug attachment pod ${hv.attachPodName}, for volume ${volumeStatus.name}`;
  }
}

function hotplugStatus(volumeStatus: VolumeStatus, v: Volume, i: HotplugInput): void {
  attachedStatus(volumeStatus, i);
  if (isHotplugImage(v)) volumeStatus.containerDiskVolume ??= {};
}

function detachingStatus(volumeStatus: VolumeStatus, pod: Pod): void {
  volumeStatus.hotplugVolume = {
    ...volumeStatus.hotplugVolume,
    attachPodName: pod.metadata.name ?? '',
    attachPodUID: pod.metadata.uid ?? '',
  };
  if (!isMountedPhase(volumeStatus.phase)) volumeStatus.phase = VOLUME_PHASES.DETACHING;
  if (volumeStatus.phase === VOLUME_PHASES.DETACHING && pod.metadata.deletionTimestamp !== undefined) {
    volumeStatus.reason = REASONS.DELETED;
    volumeStatus.message = `Deleted hotplug attachment pod ${pod.metadata.name ?? ''}, for volume ${volumeStatus.name}`;
  }
}

const isAttachedPhase = (phase: string | undefined): boolean => phase === VOLUME_PHASES.ATTACHED_TO_NODE;

/**
 * The events of a status change: KubeVirt's for an attachment Pod made or deleted, and a warning when the
 * volume fails (once per failure: a pull error and its back-off alternate without a new event).
 */
function announce(events: VolumeEvent[], old: VolumeStatus | undefined, s: VolumeStatus): void {
  const changed = old?.reason !== s.reason || old?.message !== s.message;
  if (!changed || s.reason === undefined || s.message === undefined) return;
  const event = volumeEvent(s, old?.reason);
  if (event !== undefined) events.push(event);
}

function volumeEvent(s: VolumeStatus, was: string | undefined): VolumeEvent | undefined {
  const { reason = '', message = '' } = s;
  if (reason === REASONS.CREATED || reason === REASONS.DELETED) return { type: 'Normal', reason, message };
  if (reason === REASONS.POD_FAILED && was !== REASONS.POD_FAILED)
    return { type: 'Warning', reason: 'HotplugFailed', message };
  if (reason === REASONS.PVC_NOT_FOUND)
    return { type: 'Warning', reason: 'HotplugFailed', message: `volume ${s.name}: ${message}` };
  return undefined;
}

export function computeVolumeStatus(input: VolumeStatusInput): VolumeStatusResult {
  const { vmi, claim, attachmentPods } = input;
  const previous = new Map((vmi.status?.volumeStatus ?? []).map((s) => [s.name, s]));
  const left = new Map(previous);
  const hotplug = hotplugVolumes(vmi, input.launcher);
  const ready = hotplug.filter((v) => volumeReadyToAttach(v, claim));
  const split = splitAttachmentPods(ready, attachmentPods);
  const holders = [
    ...(split.current === undefined ? [] : [split.current]),
    ...split.old.filter((p) => p.metadata.deletionTimestamp === undefined),
  ];
  const hot = new Set(hotplug.map((v) => v.name));
  const statuses: VolumeStatus[] = [];
  const events: VolumeEvent[] = [];
  for (const v of vmi.spec.volumes ?? []) {
    const old = previous.get(v.name);
    left.delete(v.name);
    const s: VolumeStatus = old === undefined ? { name: v.name, target: '' } : structuredClone(old);
    const claimName = claimNameOf(v);
    const pvc = claimName === '' ? undefined : claim(claimName);
    if (hot.has(v.name)) {
      const holder = holders.find((p) => podHasVolume(p, v.name));
      hotplugStatus(s, v, { holder, attachmentPods, pvc, claimName, image: isHotplugImage(v) });
      announce(events, old, s);
    } else delete s.hotplugVolume;
    if (pvc !== undefined) s.persistentVolumeClaimInfo = claimInfo(pvc);
    statuses.push(s);
  }
  for (const old of left.values()) {
    const pod = attachmentPods.find((p) => podHasVolume(p, old.name));
    if (pod === undefined) continue;
    const s = structuredClone(old);
    detachingStatus(s, pod);
    announce(events, old, s);
    statuses.push(s);
  }
  statuses.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return { statuses, events };
}
