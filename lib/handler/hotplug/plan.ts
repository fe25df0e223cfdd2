/**
 * Hotplug volumes on the node, pure (kubevirt pkg/virt-handler/hotplug-disk/mount.go in substance): which
 * hotplugged claims this node should show inside a VMI's launcher Pod, where each claim's data lies on the node,
 * and what to mount and unmount to get there.
 *
 * - A volume is wanted once the controller marked it attached to this node (its attachment Pod's name and uid
 *   are in the volume status) and it is still in the VMI spec. The names it goes by are checked first: a volume
 *   name is a DNS label, an attachment Pod's uid a UID and its name a DNS subdomain.
 * - The data is found from the claim's PersistentVolume, as a trusted root and the names below it that are
 *   opened without following symlinks: a hostPath or local volume is its own path (the root); any other source
 *   is the kubelet's: the attachment Pod's `volumes/kubernetes.io~csi/<pv>/mount` below the pods dir for a
 *   filesystem, and for a block device the kubelet's own bind mount of it for that Pod,
 *   `plugins/kubernetes.io/csi/volumeDevices/<pv>/dev/<pod uid>` below the kubelet's dir (the Pod's
 *   `volumeDevices` entry is a symlink to it). A filesystem claim holds `disk.img`, a regular file.
 * - A hotplugged containerDisk (the Deckhouse fork's patch 031) has no claim: its image is an image volume of
 *   the attachment Pod, found on the node by mountinfo (image-mount.ts), and its disk file is the image's `path`
 *   or the one file under `disk/`, mounted read-only.
 * - The target, in the launcher Pod's `hotplug-disks` emptyDir, is `<volume>.img` for a file and `<volume>` for a
 *   device: the paths the converter gives the domain.
 * - A mount whose volume is no longer wanted comes off only once the domain no longer uses the disk.
 */
import path from 'node:path';
import {
  attachmentImageMountPath,
  HOTPLUG_ATTACHED_PHASES,
  type VirtualMachineInstance,
  type Volume,
} from '../../kubevirt/index.ts';
import { claimNameOf } from '../../kubevirt/core/pvc.ts';
import type { PersistentVolume } from '../../kubevirt/core/pv.ts';
import { isDns1123Label, isDns1123Subdomain } from '../../kubevirt/validation/dns.ts';

/** The image of a hotplugged containerDisk: its reference and `path` ('' for the one file under disk/). */
export interface HotplugImage {
  readonly reference: string;
  readonly path: string;
}

export interface WantedHotplug {
  readonly volume: string;
  /** The claim ('' for an image). */
  readonly claimName: string;
  readonly image?: HotplugImage;
  readonly attachPodName: string;
  readonly attachPodUid: string;
  readonly block: boolean;
}

/** What a hotplug pass did for one VMI: the volumes mounted now, and why each refused one was refused. */
export interface HotplugOutcome {
  readonly mounted: ReadonlySet<string>;
  readonly refused: ReadonlyMap<string, string>;
}

const UID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

/** A Kubernetes object uid (an RFC 4122 UUID as the API server writes it). */
export function isUid(s: string): boolean {
  return UID.test(s);
}

const isLabel = (s: string): boolean => isDns1123Label(s).length === 0;

/** What KubeVirt's mounter prefixes its errors with. */
export function refusal(volume: string, block: boolean, why: string): string {
  return `failed to mount ${block ? 'block' : 'filesystem'} hotplug volume ${volume}: ${why}`;
}

function nameProblem(w: WantedHotplug): string | undefined {
  if (!isLabel(w.volume)) return `the volume name ${JSON.stringify(w.volume)} is not a DNS label`;
  if (!isUid(w.attachPodUid))
    return `the attachment pod uid ${JSON.stringify(w.attachPodUid)} in the volume status is not a UID`;
  if (isDns1123Subdomain(w.attachPodName).length > 0)
    return `the attachment pod name ${JSON.stringify(w.attachPodName)} in the volume status is not a pod name`;
  return undefined;
}

type VolumeStatus = NonNullable<NonNullable<VirtualMachineInstance['status']>['volumeStatus']>[number];

function imageOf(v: Volume | undefined): HotplugImage | undefined {
  const cd = v?.containerDisk;
  if (cd?.hotpluggable !== true) return undefined;
  return { reference: cd.image, path: cd.path ?? '' };
}

/** The volume a status entry asks the node for, when it asks (attached, with its Pod's uid, in the spec). */
function asked(s: VolumeStatus, volumes: ReadonlyMap<string, Volume>): WantedHotplug | undefined {
  const attachPodUid = s.hotplugVolume?.attachPodUID ?? '';
  const volume = volumes.get(s.name);
  const claimName = volume === undefined ? '' : claimNameOf(volume);
  const image = imageOf(volume);
  if (attachPodUid === '' || (claimName === '' && image === undefined)) return undefined;
  if (!HOTPLUG_ATTACHED_PHASES.includes(s.phase)) return undefined;
  return {
    volume: s.name,
    claimName,
    ...(image !== undefined && { image }),
    attachPodName: s.hotplugVolume?.attachPodName ?? '',
    attachPodUid,
    block: s.persistentVolumeClaimInfo?.volumeMode === 'Block',
  };
}

/** An attachment Pod by name and uid. */
export interface AttachPodRef {
  readonly name: string;
  readonly uid: string;
}

/**
 * The hotplug volumes of this VMI attached to the node and still in its spec, and the refusals (volume →
 * message) of those whose names cannot be used. With `from`, each is taken from that attachment Pod instead of
 * the one its status names: a migration target's, made for the target node (kubevirt MountFromPod).
 */
export function wantedHotplug(
  vmi: VirtualMachineInstance,
  from?: AttachPodRef,
): {
  wanted: WantedHotplug[];
  invalid: Map<string, string>;
} {
  const volumes = new Map((vmi.spec.volumes ?? []).map((v) => [v.name, v]));
  const wanted: WantedHotplug[] = [];
  const invalid = new Map<string, string>();
  for (const s of vmi.status?.volumeStatus ?? []) {
    const asks = asked(s, volumes);
    if (asks === undefined) continue;
    const w = from === undefined ? asks : { ...asks, attachPodName: from.name, attachPodUid: from.uid };
    const problem = nameProblem(w);
    if (problem === undefined) wanted.push(w);
    else invalid.set(w.volume, refusal(w.volume, w.block, problem));
  }
  return { wanted, invalid };
}

/**
 * A claim's disk on the node: `rel` opened below the trusted `root` without following symlinks, of `kind`.
 * An empty `rel` means `root` itself is the disk (a block PersistentVolume's own path, trusted as a whole).
 */
export interface SourceOnNode {
  readonly root: string;
  readonly rel: readonly string[];
  readonly kind: 'file' | 'block';
}

/** A hotplugged image on the node: the attachment Pod's mount of it, and its `path` ('' for disk/'s file). */
export interface ImageOnNode {
  readonly kind: 'image';
  readonly attachPodUid: string;
  readonly mountPath: string;
  readonly path: string;
}

/** Where the attachment Pod shows the volume's image. */
export function imageOnNode(w: WantedHotplug & { image: HotplugImage }): ImageOnNode {
  return {
    kind: 'image',
    attachPodUid: w.attachPodUid,
    mountPath: attachmentImageMountPath(w.volume),
    path: w.image.path,
  };
}

const DISK_IMG = 'disk.img';

/** The kubelet's place of a CSI claim's disk for the attachment Pod. */
function csiSource(want: WantedHotplug, pvName: string, kubeletPodsDir: string): SourceOnNode {
  if (want.block) {
    const rel = ['plugins', 'kubernetes.io', 'csi', 'volumeDevices', pvName, 'dev', want.attachPodUid];
    return { root: path.dirname(kubeletPodsDir), rel, kind: 'block' };
  }
  const rel = [want.attachPodUid, 'volumes', 'kubernetes.io~csi', pvName, 'mount', DISK_IMG];
  return { root: kubeletPodsDir, rel, kind: 'file' };
}

/** A hostPath or local volume's own path ('' for other sources). */
function ownPath(pv: PersistentVolume): string {
  return pv.spec?.hostPath?.path ?? pv.spec?.local?.path ?? '';
}

/** Where the claim's disk (a file or a device) is on the node, or why it cannot be told. */
export function claimSourceOnNode(
  want: WantedHotplug,
  pv: PersistentVolume,
  kubeletPodsDir: string,
): SourceOnNode | { readonly problem: string } {
  const own = ownPath(pv);
  if (own !== '')
    return want.block ? { root: own, rel: [], kind: 'block' } : { root: own, rel: [DISK_IMG], kind: 'file' };
  const pvName = pv.metadata.name ?? '';
  if (pv.spec?.csi === undefined || pvName === '')
    return { problem: `persistent volume ${pvName} has a source the handler cannot hotplug from` };
  return csiSource(want, pvName, kubeletPodsDir);
}

/** The entry a volume's disk is mounted on in the launcher Pod's hotplug directory. */
export function targetName(volume: string, block: boolean): string {
  return block ? volume : `${volume}.img`;
}

/** The volume an entry of the hotplug directory belongs to; undefined for a name no volume has. */
export function volumeOfEntry(name: string): string | undefined {
  const volume = name.endsWith('.img') ? name.slice(0, -'.img'.length) : name;
  return isLabel(volume) ? volume : undefined;
}

export interface MountPlan {
  readonly mount: readonly WantedHotplug[];
  /** Entries of the hotplug directory to unmount and remove. */
  readonly unmount: readonly string[];
}

/**
 * From what should be mounted, what is mounted (volume → entry of the hotplug directory) and the volumes the
 * domain still has as disks.
 */
export function mountPlan(
  wanted: readonly WantedHotplug[],
  mounted: ReadonlyMap<string, string>,
  inDomain: ReadonlySet<string>,
): MountPlan {
  const keep = new Set(wanted.map((w) => w.volume));
  return {
    mount: wanted.filter((w) => !mounted.has(w.volume)),
    unmount: [...mounted]
      .filter(([volume]) => !keep.has(volume) && !inDomain.has(volume))
      .map(([, entry]) => entry),
  };
}
