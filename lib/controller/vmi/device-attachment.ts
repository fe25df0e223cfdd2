/**
 * Attachment Pods of hotplugged DRA devices (the Deckhouse fork's addresourceclaim on a running VMI), as pure
 * functions. The fork's controller code for them is not public; its status names one attachment Pod per device
 * (deviceStatus.hotplug.attachPodName), so this is inferred from that and from KubeVirt's volume attachment Pods:
 * - a hotplugged claim is one of the VMI's spec.resourceClaims the launcher Pod does not have (a Pod's claims
 *   cannot change once it exists);
 * - each gets its own Pod, `hp-device-<random>`, label kubevirt.io=hotplug-device, on the launcher's node and
 *   controlled by the launcher Pod, holding that one claim (and each request of it the VMI's DRA devices name):
 *   the scheduler allocates the claim on that node and the kubelet prepares it, as for the launcher's own claims;
 * - a Pod whose claim the spec no longer has is deleted, at once: the launcher detaches the device from the
 *   domain in the same turn, and nothing waits for the guest to let it go.
 */
import { LABEL_VALUES, type PodResourceClaim, type VirtualMachineInstance } from '../../kubevirt/index.ts';
import type { Pod } from '../../kubevirt/core/pod.ts';
import { attachmentPod, holdingContainer } from './attachment-pod.ts';
import { podResourceClaim, type LauncherPodConfig } from './launcher-pod.ts';
import { draClaims } from './pod-resources.ts';

const DEVICE_POD_PREFIX = 'hp-device-';
/** Value of the kubevirt.io label, and the container name, of device attachment Pods. */
export const HOTPLUG_DEVICE = LABEL_VALUES.HOTPLUG_DEVICE;

const claimNames = (pod: Pod): string[] => {
  const claims = pod.spec['resourceClaims'];
  return Array.isArray(claims) ? (claims as { name: string }[]).map((c) => c.name) : [];
};

/** The one claim a device attachment Pod holds. */
export const heldClaim = (pod: Pod): string | undefined => claimNames(pod)[0];

/** The VMI's resource claims the launcher Pod was not created with. */
export function hotplugClaims(vmi: VirtualMachineInstance, launcher: Pod): PodResourceClaim[] {
  const inPod = new Set(claimNames(launcher));
  return (vmi.spec.resourceClaims ?? []).filter((c) => !inPod.has(c.name));
}

export function newDeviceAttachmentPod(
  vmi: VirtualMachineInstance,
  launcher: Pod,
  claim: PodResourceClaim,
  cfg: LauncherPodConfig,
): Pod {
  const container = holdingContainer(HOTPLUG_DEVICE, launcher, cfg);
  const requests = draClaims(vmi.spec).filter((c) => c.name === claim.name);
  container.resources = { ...container.resources, claims: requests };
  return attachmentPod(launcher, {
    prefix: DEVICE_POD_PREFIX,
    label: HOTPLUG_DEVICE,
    container,
    fields: { resourceClaims: [podResourceClaim(claim)] },
    secrets: cfg.imagePullSecret === undefined ? [] : [cfg.imagePullSecret],
  });
}

export interface DevicePlan {
  /** Device attachment Pods to create. */
  create: Pod[];
  /** Device attachment Pods to delete (never one already being deleted). */
  remove: Pod[];
}

/**
 * One live Pod per hotplugged claim: a Pod for each claim without one, and every live Pod whose claim is not
 * hotplugged any more (or that duplicates another's) deleted.
 */
export function planDeviceAttachment(
  vmi: VirtualMachineInstance,
  launcher: Pod,
  pods: readonly Pod[],
  cfg: LauncherPodConfig,
): DevicePlan {
  const wanted = hotplugClaims(vmi, launcher);
  const held = new Set<string>();
  const remove: Pod[] = [];
  for (const p of pods) {
    if (p.metadata.deletionTimestamp !== undefined) continue;
    const claim = heldClaim(p) ?? '';
    if (wanted.some((c) => c.name === claim) && !held.has(claim)) held.add(claim);
    else remove.push(p);
  }
  const create = wanted
    .filter((c) => !held.has(c.name))
    .map((c) => newDeviceAttachmentPod(vmi, launcher, c, cfg));
  return { create, remove };
}
