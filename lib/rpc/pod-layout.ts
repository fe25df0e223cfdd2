/**
 * The launcher Pod's path layout: where the controller's Pod renderer mounts each volume, where the converter
 * points the domain, where the launcher creates its directories and sockets, and where the handler finds them
 * (kubevirt pkg/handler-launcher-com, pkg/virt-controller/services/rendervolumes.go, tag v1.6.2, in its
 * ImageVolume layout). One function writes it. Every path sits under a root prefix so several launchers and
 * handlers run side by side, unprivileged, in local mode and in tests; the root "/" gives the paths a Pod
 * sees.
 */
import path from 'node:path';
import { KvError } from '../kernel/errors/errors.ts';

/** Kinds of config volumes mounted under the private directory (`<private>/<kind>/<volume>`). */
export type ConfigVolumeKind = 'secret' | 'config-map' | 'downwardapi' | 'sysprep';

export interface PodLayout {
  readonly root: string;
  /** emptyDir `private`: per-VMI sockets, vmi-disks, config volumes, NVRAM. */
  readonly privateDir: string;
  /** emptyDir `public`, shared with the node. */
  readonly shareDir: string;
  /** emptyDir `sockets`: the launcher's command sockets. */
  readonly socketsDir: string;
  /** Command socket the launcher serves once it is ready. */
  readonly launcherSocket: string;
  /** The launcher's port-forward socket (lib/rpc/port-forward.ts). */
  readonly portForwardSocket: string;
  /** Command socket the launcher serves before its domain manager is initialized. */
  readonly launcherInitSocket: string;
  /** Socket the handler serves for Notify. */
  readonly notifySocket: string;
  /** emptyDir `libvirt-runtime`. */
  readonly libvirtRuntimeDir: string;
  /** emptyDir `ephemeral-disks`: overlay images (disk-data) and cloud-init ISOs (cloud-init-data). */
  readonly ephemeralDiskDir: string;
  /** emptyDir `hotplug-disks` (HostToContainer): where the handler mounts hotplugged disks. */
  readonly hotplugDiskDir: string;
  /** Parent of the containerDisk image volumes. */
  readonly imageVolumeDir: string;
  /** Where the kernelBoot container image is mounted (kernelPath and initrdPath are inside it). */
  readonly kernelBootDir: string;
  readonly emptyDiskDir: string;
  /** Where block-mode volumes appear as devices (`<devDir>/<volume>`). */
  readonly devDir: string;
  /** Where filesystem claims and host disks are mounted (`<vmiDisksDir>/<volume>`). */
  readonly vmiDisksDir: string;
  readonly nvramDir: string;
  /**
   * swtpm's TPM state (one `<vmi uid>/tpm2` directory per VMI) and swtpm_setup's local CA: where the launcher's
   * session libvirt puts them below its XDG_CONFIG_HOME `/lv` (lib/libvirt/daemon/layout.ts), KubeVirt's
   * PathForSwtpm and PathForSwtpmLocalca in this project's layout.
   */
  readonly swtpmStateDir: string;
  readonly swtpmLocalCaDir: string;
  /** Where the VM's backend-storage PVC keeps its `meta` subdirectory (KubeVirt's migration marker). */
  readonly backendStorageMetaDir: string;
  readonly prHelperSocket: string;
  /** Socket QEMU listens on for the guest's downward metrics channel (the node answers the guest through it). */
  readonly downwardMetricsSocket: string;
  /** emptyDir `virtiofs-containers`: each virtiofs filesystem's vhost-user socket, `<name>.sock`. */
  readonly virtiofsDir: string;
  /** The migration proxies' unix sockets (kubevirt migrationproxy.SourceUnixFile under the share dir). */
  readonly migrationProxyDir: string;
  /** The image volume of spec.volumes[index] when it is a containerDisk. */
  containerDiskDir(index: number): string;
  configVolumeDir(kind: ConfigVolumeKind, volume: string): string;
  /** Per-VMI private directory (serial console, VNC). */
  vmiPrivateDir(vmiUid: string): string;
  serialSocket(vmiUid: string): string;
  serialLog(vmiUid: string): string;
  vncSocket(vmiUid: string): string;
  /**
   * A migration proxy's socket (kubevirt SourceUnixFile(shareDir, ConstructProxyKey(uid, port))): port 0 is the
   * libvirt connection (`<uid>-source.sock`), a libvirt migration port the QEMU stream (`<uid>-<port>-source.sock`).
   */
  migrationSocket(vmiUid: string, port: number): string;
}

const UID_RE = /^[A-Za-z0-9][A-Za-z0-9._-]*$/;

function vmiDir(privateDir: string, vmiUid: string): string {
  if (!UID_RE.test(vmiUid) || vmiUid.includes('..')) {
    throw new KvError('KV_ERR_CONFIG', `invalid VMI uid for a path: ${JSON.stringify(vmiUid)}`);
  }
  return path.join(privateDir, vmiUid);
}

/** libvirt's migration ports a migration tunnels (kubevirt migrationproxy LibvirtDirectMigrationPort, …BlockMigrationPort). */
export const LIBVIRT_DIRECT_MIGRATION_PORT = 49152;
export const LIBVIRT_BLOCK_MIGRATION_PORT = 49153;

/** KubeVirt's migration socket name: `<uid>[-<port>]-source.sock`, the port left out when it is 0. */
function migrationSocketName(vmiUid: string, port: number): string {
  if (!UID_RE.test(vmiUid) || vmiUid.includes('..')) {
    throw new KvError('KV_ERR_CONFIG', `invalid VMI uid for a path: ${JSON.stringify(vmiUid)}`);
  }
  if (!Number.isInteger(port) || port < 0 || port > 65535) {
    throw new KvError('KV_ERR_CONFIG', `invalid migration port for a socket name: ${port}`);
  }
  return `${port === 0 ? vmiUid : `${vmiUid}-${port}`}-source.sock`;
}

/** The layout under `root`, which must be absolute ("/" for the paths a Pod sees). */
export function podLayout(root: string): PodLayout {
  if (!path.isAbsolute(root)) {
    throw new KvError('KV_ERR_CONFIG', `layout root must be an absolute path, got ${JSON.stringify(root)}`);
  }
  const base = path.resolve(root);
  const under = (p: string): string => path.join(base, p);
  const privateDir = under('var/run/kubevirt-private');
  const shareDir = under('var/run/kubevirt');
  const socketsDir = path.join(shareDir, 'sockets');
  const imageVolumeDir = under('var/run/kubevirt-image-volume');
  const migrationProxyDir = path.join(shareDir, 'migrationproxy');
  return {
    root: base,
    privateDir,
    shareDir,
    socketsDir,
    launcherSocket: path.join(socketsDir, 'launcher-sock'),
    launcherInitSocket: path.join(socketsDir, 'launcher-init-sock'),
    portForwardSocket: path.join(socketsDir, 'portforward-sock'),
    notifySocket: path.join(shareDir, 'domain-notify.sock'),
    libvirtRuntimeDir: under('var/run/libvirt'),
    ephemeralDiskDir: under('var/run/kubevirt-ephemeral-disks'),
    hotplugDiskDir: path.join(shareDir, 'hotplug-disks'),
    imageVolumeDir,
    kernelBootDir: under('var/run/kubevirt-kernel-boot'),
    emptyDiskDir: under('var/run/libvirt/empty-disks'),
    devDir: under('dev'),
    vmiDisksDir: path.join(privateDir, 'vmi-disks'),
    nvramDir: path.join(privateDir, 'libvirt/qemu/nvram'),
    swtpmStateDir: under('lv/libvirt/qemu/swtpm'),
    swtpmLocalCaDir: under('lv/var/lib/swtpm-localca'),
    backendStorageMetaDir: path.join(privateDir, 'backend-storage-meta'),
    prHelperSocket: path.join(shareDir, 'daemons/pr/pr-helper.sock'),
    downwardMetricsSocket: path.join(privateDir, 'downwardmetrics-channel/downwardmetrics.sock'),
    virtiofsDir: path.join(shareDir, 'virtiofs-containers'),
    migrationProxyDir,
    containerDiskDir: (index) => path.join(imageVolumeDir, `disk_${index}`),
    configVolumeDir: (kind, volume) => path.join(privateDir, kind, volume),
    vmiPrivateDir: (uid) => vmiDir(privateDir, uid),
    serialSocket: (uid) => path.join(vmiDir(privateDir, uid), 'virt-serial0'),
    serialLog: (uid) => path.join(vmiDir(privateDir, uid), 'virt-serial0-log'),
    vncSocket: (uid) => path.join(vmiDir(privateDir, uid), 'virt-vnc'),
    migrationSocket: (uid, port) => path.join(migrationProxyDir, migrationSocketName(uid, port)),
  };
}

/** The paths a launcher Pod's containers see. */
export const POD_LAYOUT = podLayout('/');

/** The launcher Pod's emptyDirs a node reaches into: command sockets, and the per-VMI private files. */
export const SOCKETS_VOLUME = 'sockets';
export const PRIVATE_VOLUME = 'private';
/** The emptyDir at shareDir, shared with the node: the launcher dials its notify socket there. */
export const PUBLIC_VOLUME = 'public';
/** The emptyDir at hotplugDiskDir (HostToContainer): the node mounts hotplugged disks into it. */
export const HOTPLUG_DISKS_VOLUME = 'hotplug-disks';
/** The emptyDir at libvirtRuntimeDir: the launcher's libvirt keeps its sockets there. */
export const LIBVIRT_RUNTIME_VOLUME = 'libvirt-runtime';

/** A launcher Pod's emptyDir as the node sees it, under the kubelet's pods directory. */
export function podVolumeOnNode(kubeletPodsDir: string, podUid: string, volume: string): string {
  if (!UID_RE.test(podUid) || podUid.includes('..')) {
    throw new KvError('KV_ERR_CONFIG', `invalid Pod uid for a path: ${JSON.stringify(podUid)}`);
  }
  return path.join(kubeletPodsDir, podUid, 'volumes/kubernetes.io~empty-dir', volume);
}

/**
 * A path inside one of a launcher Pod's emptyDirs as the node sees it, in two parts: `root`, the emptyDir itself
 * (`<kubeletPodsDir>/<podUid>/volumes/kubernetes.io~empty-dir/<volume>`, made by the kubelet), and `rel`, the
 * names below it, which the launcher's container writes. Open it with lib/kernel/safepath (`openBeneath(root,
 * rel, …)`, `connectBeneath`), never as one joined path: a symlink the tenant plants below the root is refused,
 * not followed. Join it only for messages (podPathText).
 */
export interface PodPath {
  readonly root: string;
  readonly rel: readonly string[];
}

/** The path as one string, for messages and logs only: never act on it. */
export function podPathText(p: PodPath): string {
  return path.join(p.root, ...p.rel);
}

/**
 * What a node reaches of a launcher Pod (kubevirt pkg/virt-handler/cmd-client socket lookup by Pod UID; the
 * REST server dials the VMI's serial and VNC sockets): every path is inside one of the Pod's emptyDirs under
 * the kubelet's pods directory, as a PodPath.
 */
export interface LauncherOnNode {
  readonly podUid: string;
  /** The launcher's command socket, in the `sockets` emptyDir. */
  readonly launcherSocket: PodPath;
  /** The launcher's port-forward socket, in the `sockets` emptyDir. */
  readonly portForwardSocket: PodPath;
  /** Where the launcher dials Notify (layout.notifySocket in the Pod, the `public` emptyDir); the handler listens there for it. */
  readonly notifySocket: PodPath;
  serialSocket(vmiUid: string): PodPath;
  vncSocket(vmiUid: string): PodPath;
  /** A migration proxy's socket (layout.migrationSocket), in the `public` emptyDir. */
  migrationSocket(vmiUid: string, port: number): PodPath;
}

/** The components of `inPod` below the Pod directory `volumeInPod` where the emptyDir is mounted. */
function below(volumeInPod: string, inPod: string): string[] {
  return path.relative(volumeInPod, inPod).split(path.sep);
}

export function launcherOnNode(kubeletPodsDir: string, podUid: string): LauncherOnNode {
  const volume = (name: string): string => podVolumeOnNode(kubeletPodsDir, podUid, name);
  const sockets = volume(SOCKETS_VOLUME);
  const share = volume(PUBLIC_VOLUME);
  // The private emptyDir is mounted at privateDir: the same layout under it, as podLayout gives.
  const inPrivate = (inPod: string): PodPath => ({
    root: volume(PRIVATE_VOLUME),
    rel: below(POD_LAYOUT.privateDir, inPod),
  });
  return {
    podUid,
    launcherSocket: { root: sockets, rel: below(POD_LAYOUT.socketsDir, POD_LAYOUT.launcherSocket) },
    portForwardSocket: { root: sockets, rel: below(POD_LAYOUT.socketsDir, POD_LAYOUT.portForwardSocket) },
    notifySocket: { root: share, rel: below(POD_LAYOUT.shareDir, POD_LAYOUT.notifySocket) },
    serialSocket: (vmiUid) => inPrivate(POD_LAYOUT.serialSocket(vmiUid)),
    vncSocket: (vmiUid) => inPrivate(POD_LAYOUT.vncSocket(vmiUid)),
    migrationSocket: (vmiUid, port) => ({
      root: share,
      rel: below(POD_LAYOUT.shareDir, POD_LAYOUT.migrationSocket(vmiUid, port)),
    }),
  };
}

/** Where a node sees the command socket of the launcher Pod with this uid, joined (for a caller that trusts it). */
export function launcherSocketOnNode(kubeletPodsDir: string, podUid: string): string {
  return podPathText(launcherOnNode(kubeletPodsDir, podUid).launcherSocket);
}
