/**
 * Whether the node may mount a hotplugged claim into a VMI's launcher Pod, pure: the volume status that asks for
 * it is not trusted on its own. The claim must be Bound to a PersistentVolume whose claimRef points back at it
 * (namespace, name and uid: the PV binder's IsVolumeBoundToClaim, kubernetes pkg/controller/volume/
 * persistentvolume), and the attachment Pod the status names must exist with that uid on this node, be
 * controlled by this VMI's launcher Pod, itself controlled by the VMI (kubevirt vmi/volume-hotplug.go's
 * attachment Pods, found by their controller reference), and mount that claim as that volume, or for a
 * hotplugged containerDisk that image as that volume at its mount path (attachmentImageMountPath).
 */
import { attachmentImageMountPath, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import type { PersistentVolume } from '../../kubevirt/core/pv.ts';
import type { PersistentVolumeClaim } from '../../kubevirt/core/pvc.ts';
import { controllerRefOf, isControlledBy } from '../../kernel/controller/owner.ts';
import type { WantedHotplug } from './plan.ts';

/** Why the claim cannot be used yet, or undefined when it is Bound to a volume. */
export function claimProblem(
  namespace: string,
  claimName: string,
  pvc: PersistentVolumeClaim | undefined,
): string | undefined {
  const claim = `${namespace}/${claimName}`;
  if (pvc === undefined) return `claim ${claim} not found`;
  const phase = pvc.status?.phase ?? 'Pending';
  if (phase !== 'Bound') return `claim ${claim} is not Bound (phase ${phase})`;
  if ((pvc.spec?.volumeName ?? '') === '') return `claim ${claim} names no persistent volume`;
  return undefined;
}

/** Whether the volume's claimRef is this very claim (namespace, name and uid). */
function boundTo(pv: PersistentVolume, pvc: PersistentVolumeClaim): boolean {
  const ref = pv.spec?.claimRef;
  const { namespace, name, uid } = pvc.metadata;
  if (ref === undefined || uid === undefined) return false;
  return ref.namespace === namespace && ref.name === name && ref.uid === uid;
}

/** Why the claim's volume is not its own, or undefined when the volume's claimRef is this very claim. */
export function volumeProblem(
  pvc: PersistentVolumeClaim,
  pv: PersistentVolume | undefined,
): string | undefined {
  const name = pvc.spec?.volumeName ?? '';
  if (pv === undefined) return `persistent volume ${name} not found`;
  if (pv.metadata.name === name && boundTo(pv, pvc)) return undefined;
  return `persistent volume ${name} is not bound to claim ${pvc.metadata.namespace ?? ''}/${pvc.metadata.name ?? ''}`;
}

/** The launcher Pod an attachment Pod names as its controller (a Pod), if any. */
export function controllingPodName(attachPod: Pod): string | undefined {
  const ref = controllerRefOf(attachPod);
  return ref?.kind === 'Pod' ? ref.name : undefined;
}

export interface AttachmentFacts {
  readonly vmi: VirtualMachineInstance;
  readonly node: string;
  /** The launcher Pod whose hotplug directory the volume would be mounted into. */
  readonly launcherPodUid: string;
  readonly attachPod: Pod | undefined;
  /** The Pod the attachment Pod names as its controller, if it names one and it exists. */
  readonly launcherPod: Pod | undefined;
}

function ownedByLauncher(attachPod: Pod, f: AttachmentFacts): boolean {
  const ref = controllerRefOf(attachPod);
  const launcher = f.launcherPod;
  if (ref?.kind !== 'Pod' || launcher === undefined) return false;
  return (
    launcher.metadata.uid === ref.uid &&
    launcher.metadata.uid === f.launcherPodUid &&
    launcher.metadata.namespace === f.vmi.metadata.namespace &&
    launcher.spec.nodeName === f.node &&
    isControlledBy(launcher, f.vmi)
  );
}

function mountsClaim(pod: Pod, w: WantedHotplug): boolean {
  const volumes: unknown = pod.spec['volumes'];
  if (!Array.isArray(volumes)) return false;
  return (volumes as { name?: unknown; persistentVolumeClaim?: { claimName?: unknown } }[]).some(
    (v) => v.name === w.volume && v.persistentVolumeClaim?.claimName === w.claimName,
  );
}

interface PodImageVolume {
  name?: unknown;
  image?: { reference?: unknown };
}

interface PodContainer {
  volumeMounts?: { name?: unknown; mountPath?: unknown }[];
}

/** The Pod has the image as the volume, and a container mounts it at the image's mount path. */
function mountsImage(pod: Pod, w: WantedHotplug): boolean {
  const volumes: unknown = pod.spec['volumes'];
  if (!Array.isArray(volumes)) return false;
  const reference = w.image?.reference;
  const has = (volumes as PodImageVolume[]).some(
    (v) => v.name === w.volume && v.image?.reference === reference,
  );
  const at = attachmentImageMountPath(w.volume);
  const mounted = (pod.spec.containers as PodContainer[]).some((c) =>
    (c.volumeMounts ?? []).some((m) => m.name === w.volume && m.mountPath === at),
  );
  return has && mounted;
}

function holdsVolume(pod: Pod, w: WantedHotplug, name: string): string | undefined {
  if (w.image === undefined) {
    return mountsClaim(pod, w)
      ? undefined
      : `${name} does not mount claim ${w.claimName} as volume ${w.volume}`;
  }
  return mountsImage(pod, w)
    ? undefined
    : `${name} does not mount image ${w.image.reference} as volume ${w.volume}`;
}

/** Why the attachment Pod named in the volume status does not vouch for the volume, or undefined. */
export function attachmentProblem(w: WantedHotplug, f: AttachmentFacts): string | undefined {
  const pod = f.attachPod;
  const name = `attachment pod ${f.vmi.metadata.namespace ?? ''}/${w.attachPodName}`;
  if (pod === undefined) return `${name} not found`;
  if (pod.metadata.uid !== w.attachPodUid || pod.metadata.namespace !== f.vmi.metadata.namespace)
    return `${name} is not the pod the volume status names (uid ${w.attachPodUid})`;
  if (pod.spec.nodeName !== f.node) return `${name} does not run on node ${f.node}`;
  if (!ownedByLauncher(pod, f))
    return `${name} is not controlled by the launcher pod of VMI ${f.vmi.metadata.name ?? ''}`;
  return holdsVolume(pod, w, name);
}
