/**
 * Hotplug volumes on the node, pure (kubevirt pkg/virt-handler/hotplug-disk/mount.go in substance): which
 * hotplugged claims this node should show inside a VMI's launcher Pod, where each claim's data lies on the node,
 * and what to mount and unmount to get there.
 *
 * - A volume is wanted once the controller marked it attached to this node (its attachment Pod's uid is in the
 *   volume status) and it is still in the VMI spec.
 * - The data is found from the claim's PersistentVolume: a hostPath or local volume is its own path; any other
 *   source is the kubelet's per-Pod directory of the attachment Pod (`volumes/kubernetes.io~csi/<pv>/mount` for
 *   a filesystem, `volumeDevices/kubernetes.io~csi/<pv>` for a block device). A filesystem claim holds `disk.img`.
 * - The target, in the launcher Pod's `hotplug-disks` emptyDir, is `<volume>.img` for a file and `<volume>` for a
 *   device: the paths the converter gives the domain.
 * - A mount whose volume is no longer wanted comes off only once the domain no longer uses the disk.
 */
import path from 'node:path';
import { HOTPLUG_ATTACHED_PHASES, type VirtualMachineInstance } from '../../api/index.ts';
import { claimNameOf } from '../../api/core/pvc.ts';
import type { PersistentVolume } from '../../api/core/pv.ts';

export interface WantedHotplug {
  readonly volume: string;
  readonly claimName: string;
  readonly attachPodUid: string;
  readonly block: boolean;
}

/** The hotplug volumes of this VMI attached to the node and still in its spec. */
export function wantedHotplug(vmi: VirtualMachineInstance): WantedHotplug[] {
  const claims = new Map((vmi.spec.volumes ?? []).map((v) => [v.name, claimNameOf(v)]));
  const out: WantedHotplug[] = [];
  for (const s of vmi.status?.volumeStatus ?? []) {
    const attachPodUid = s.hotplugVolume?.attachPodUID ?? '';
    const claimName = claims.get(s.name) ?? '';
    if (attachPodUid === '' || claimName === '' || !HOTPLUG_ATTACHED_PHASES.includes(s.phase)) continue;
    const block = s.persistentVolumeClaimInfo?.volumeMode === 'Block';
    out.push({ volume: s.name, claimName, attachPodUid, block });
  }
  return out;
}

export type SourceOnNode = { readonly path: string } | { readonly problem: string };

/** Where the claim's disk (a file or a device) is on the node, or why it cannot be told. */
export function claimSourceOnNode(
  want: WantedHotplug,
  pv: PersistentVolume,
  kubeletPodsDir: string,
): SourceOnNode {
  const base = dataOnNode(want, pv, kubeletPodsDir);
  if (base === undefined)
    return {
      problem: `persistent volume ${pv.metadata.name ?? ''} has a source the handler cannot hotplug from`,
    };
  return { path: want.block ? base : path.join(base, 'disk.img') };
}

/** The volume's own path, or the attachment Pod's directory (or device) of it. */
function dataOnNode(want: WantedHotplug, pv: PersistentVolume, kubeletPodsDir: string): string | undefined {
  const own = pv.spec?.hostPath?.path ?? pv.spec?.local?.path ?? '';
  if (own !== '') return own;
  if (pv.spec?.csi === undefined) return undefined;
  const pod = path.join(kubeletPodsDir, want.attachPodUid);
  const pvName = pv.metadata.name ?? '';
  return want.block
    ? path.join(pod, 'volumeDevices', 'kubernetes.io~csi', pvName)
    : path.join(pod, 'volumes', 'kubernetes.io~csi', pvName, 'mount');
}

/** The file a volume's disk is mounted on in the launcher Pod's hotplug directory. */
export function hotplugTarget(hotplugDir: string, volume: string, block: boolean): string {
  return path.join(hotplugDir, block ? volume : `${volume}.img`);
}

/** The volume a target in the hotplug directory belongs to. */
export function volumeOfTarget(target: string): string {
  return path.basename(target).replace(/\.img$/, '');
}

export interface MountStep {
  readonly volume: string;
  readonly source: string;
  readonly target: string;
  readonly block: boolean;
}

export interface MountPlan {
  readonly mount: readonly MountStep[];
  /** Targets to unmount and remove. */
  readonly unmount: readonly string[];
}

/**
 * From what should be mounted (`wanted`, with sources found), what is mounted (targets under the hotplug
 * directory) and the volumes the domain still has as disks.
 */
export function mountPlan(
  wanted: readonly MountStep[],
  mounted: readonly string[],
  inDomain: ReadonlySet<string>,
): MountPlan {
  const have = new Set(mounted);
  const keep = new Set(wanted.map((w) => w.target));
  return {
    mount: wanted.filter((w) => !have.has(w.target)),
    unmount: mounted.filter((t) => !keep.has(t) && !inDomain.has(volumeOfTarget(t))),
  };
}
