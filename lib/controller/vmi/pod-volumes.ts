/**
 * Volumes and mounts of a launcher Pod (kubevirt rendervolumes.go, tag v1.6.2, in its ImageVolume layout):
 * - emptyDirs shared with the node: private, public, sockets, libvirt-runtime, ephemeral-disks, and
 *   hotplug-disks (HostToContainer propagation, where the handler mounts hotplugged disks);
 * - PVCs, DataVolumes and ephemeral PVCs: the claim, mounted at /var/run/kubevirt-private/vmi-disks/<volume>,
 *   or as the block device /dev/<volume> when the VMI status reports volumeMode Block;
 * - containerDisks: a Kubernetes image volume of the disk image, read-only at
 *   /var/run/kubevirt-image-volume/disk_<index in spec.volumes> (the launcher takes its `path`, or the one
 *   file under /disk: lib/launcher/sync/container-disks.ts);
 * - the kernelBoot container: an image volume, read-only at /var/run/kubevirt-kernel-boot (kernelPath and
 *   initrdPath are paths inside it);
 * - hostDisk: the host directory; secret, configMap and downwardAPI volumes under
 *   /var/run/kubevirt-private/<kind>/<volume>, a sysprep volume's Secret or ConfigMap under
 *   /var/run/kubevirt-private/sysprep/<volume>; a cloud-init secret's user and network data as single files
 *   (subPath) under /var/run/kubevirt-private/secret/<volume>/; accessCredentials secrets at
 *   /var/run/kubevirt-private/secret/<secret>-access-cred.
 * - hugepages: a hugetlbfs emptyDir at /dev/hugepages; virtiofs: the `virtiofs-containers` emptyDir of the
 *   virtiofsd sockets (the virtiofsd containers themselves: virtiofs-containers.ts), only when the Pod gets
 *   those containers: the launcher takes the directory as the sign that they serve the sockets.
 * Hotpluggable volumes are left to attachment pods.
 */
import path from 'node:path';
import { accessCredentialDir, accessCredentialSecrets, needsBackendStorage } from '../../kubevirt/index.ts';
import { KvError } from '../../kernel/errors/errors.ts';
import { backendStorageVolumes } from './backend-storage/volumes.ts';
import type { VolumeDevice, VolumeMount } from '../../kubevirt/core/pod.ts';
import type { VirtualMachineInstance, Volume } from '../../kubevirt/index.ts';
import {
  HOTPLUG_DISKS_VOLUME,
  POD_LAYOUT as L,
  PRIVATE_VOLUME,
  PUBLIC_VOLUME,
  SOCKETS_VOLUME,
  type ConfigVolumeKind,
} from '../../rpc/index.ts';

const KERNEL_BOOT_VOLUME = 'kernel-boot-volume';
const HUGEPAGES_VOLUME = 'hugepages';
/** KubeVirt's spelling. */
const HUGETLBFS_DIR_VOLUME = 'hugetblfs-dir';
const HUGEPAGES_DIR = '/dev/hugepages';
export const VIRTIOFS_VOLUME = 'virtiofs-containers';

type PodVolume = { name: string } & Record<string, unknown>;

export interface RenderedVolumes {
  volumes: PodVolume[];
  mounts: VolumeMount[];
  devices: VolumeDevice[];
  imagePullSecrets: string[];
  serviceAccountName?: string;
}

const emptyDir = (name: string): PodVolume => ({ name, emptyDir: {} });

function base(): RenderedVolumes {
  return {
    volumes: [
      PRIVATE_VOLUME,
      PUBLIC_VOLUME,
      SOCKETS_VOLUME,
      'libvirt-runtime',
      'ephemeral-disks',
      HOTPLUG_DISKS_VOLUME,
    ].map(emptyDir),
    mounts: [
      { name: PRIVATE_VOLUME, mountPath: L.privateDir },
      { name: PUBLIC_VOLUME, mountPath: L.shareDir },
      { name: 'ephemeral-disks', mountPath: L.ephemeralDiskDir },
      { name: 'libvirt-runtime', mountPath: L.libvirtRuntimeDir },
      { name: SOCKETS_VOLUME, mountPath: L.socketsDir },
      { name: HOTPLUG_DISKS_VOLUME, mountPath: L.hotplugDiskDir, mountPropagation: 'HostToContainer' },
    ],
    devices: [],
    imagePullSecrets: [],
  };
}

function isBlock(vmi: VirtualMachineInstance, volume: string): boolean {
  const st = vmi.status?.volumeStatus?.find((s) => s.name === volume);
  return st?.persistentVolumeClaimInfo?.volumeMode === 'Block';
}

function addClaim(
  out: RenderedVolumes,
  vmi: VirtualMachineInstance,
  v: Volume,
  claim: Record<string, unknown>,
): void {
  out.volumes.push({ name: v.name, persistentVolumeClaim: claim });
  if (isBlock(vmi, v.name)) out.devices.push({ name: v.name, devicePath: path.join(L.devDir, v.name) });
  else out.mounts.push({ name: v.name, mountPath: path.join(L.vmiDisksDir, v.name) });
}

function claimOf(volume: Volume): Record<string, unknown> | undefined {
  if (volume.persistentVolumeClaim !== undefined && volume.persistentVolumeClaim.hotpluggable !== true) {
    const { claimName, readOnly } = volume.persistentVolumeClaim;
    return { claimName, ...(readOnly !== undefined && { readOnly }) };
  }
  if (volume.dataVolume !== undefined && volume.dataVolume.hotpluggable !== true)
    return { claimName: volume.dataVolume.name };
  if (volume.ephemeral?.persistentVolumeClaim !== undefined)
    return { ...volume.ephemeral.persistentVolumeClaim };
  return undefined;
}

function addSource(
  out: RenderedVolumes,
  v: Volume,
  kind: ConfigVolumeKind,
  source: Record<string, unknown>,
): void {
  out.volumes.push({ name: v.name, ...source });
  out.mounts.push({ name: v.name, mountPath: L.configVolumeDir(kind, v.name), readOnly: true });
}

interface ImageSource {
  image: string;
  imagePullPolicy?: string;
  imagePullSecret?: string;
}

function addImage(out: RenderedVolumes, name: string, mountPath: string, src: ImageSource): void {
  const pullPolicy = src.imagePullPolicy;
  out.volumes.push({
    name,
    image: { reference: src.image, ...(pullPolicy !== undefined && { pullPolicy }) },
  });
  out.mounts.push({ name, mountPath, readOnly: true });
  const secret = src.imagePullSecret ?? '';
  if (secret !== '' && !out.imagePullSecrets.includes(secret)) out.imagePullSecrets.push(secret);
}

function addContainerDisk(out: RenderedVolumes, v: Volume, index: number): void {
  const cd = v.containerDisk;
  if (cd === undefined || cd.hotpluggable === true) return;
  addImage(out, v.name, L.containerDiskDir(index), cd);
}

function addBackendStorage(
  out: RenderedVolumes,
  vmi: VirtualMachineInstance,
  claim: string | undefined,
): void {
  if (!needsBackendStorage(vmi.spec)) return;
  if (claim === undefined)
    throw new KvError(
      'KV_ERR_INTERNAL',
      'the VMI keeps persistent state but has no backend-storage claim yet',
    );
  const more = backendStorageVolumes(vmi.spec, claim);
  out.volumes.push(...more.volumes);
  out.mounts.push(...more.mounts);
}

function addKernelBoot(out: RenderedVolumes, vmi: VirtualMachineInstance): void {
  const container = vmi.spec.domain.firmware?.kernelBoot?.container;
  if (container !== undefined) addImage(out, KERNEL_BOOT_VOLUME, L.kernelBootDir, container);
}

function addHostDisk(out: RenderedVolumes, v: Volume): void {
  const hd = v.hostDisk;
  if (hd === undefined) return;
  const type = hd.type === 'DiskOrCreate' ? 'DirectoryOrCreate' : 'Directory';
  out.volumes.push({ name: v.name, hostPath: { path: path.dirname(hd.path), type } });
  out.mounts.push({ name: v.name, mountPath: path.join(L.vmiDisksDir, v.name) });
}

function addConfigSource(out: RenderedVolumes, volume: Volume): void {
  if (volume.secret !== undefined) {
    const { secretName, optional } = volume.secret;
    addSource(out, volume, 'secret', { secret: { secretName, ...(optional !== undefined && { optional }) } });
  } else if (volume.configMap !== undefined) {
    const { name, optional } = volume.configMap;
    addSource(out, volume, 'config-map', {
      configMap: { name, ...(optional !== undefined && { optional }) },
    });
  } else if (volume.downwardAPI !== undefined) {
    addSource(out, volume, 'downwardapi', { downwardAPI: { items: volume.downwardAPI.fields ?? [] } });
  } else if (volume.serviceAccount !== undefined) {
    out.serviceAccountName = volume.serviceAccount.serviceAccountName ?? '';
  } else if (volume.sysprep !== undefined) {
    addSysprep(out, volume);
  }
}

/** A sysprep volume's Secret or ConfigMap (one naming neither is refused by the launcher). */
function addSysprep(out: RenderedVolumes, volume: Volume): void {
  const { secret, configMap } = volume.sysprep ?? {};
  if (secret !== undefined) addSource(out, volume, 'sysprep', { secret: { secretName: secret.name } });
  else if (configMap !== undefined)
    addSource(out, volume, 'sysprep', { configMap: { name: configMap.name } });
}

/** The user-data and network-data keys of a cloud-init secret, each mounted as a file (both spellings). */
function addCloudInitSecrets(out: RenderedVolumes, volume: Volume): void {
  const ci = volume.cloudInitNoCloud ?? volume.cloudInitConfigDrive;
  const refs: [string, string[], string | undefined][] = [
    ['udata', ['userdata', 'userData'], ci?.secretRef?.name],
    ['ndata', ['networkdata', 'networkData'], ci?.networkDataSecretRef?.name],
  ];
  for (const [suffix, keys, secretName] of refs) {
    if (secretName === undefined || secretName === '') continue;
    const name = `${volume.name}-${suffix}`;
    out.volumes.push({ name, secret: { secretName } });
    for (const key of keys) {
      out.mounts.push({
        name,
        mountPath: path.join(L.configVolumeDir('secret', volume.name), key),
        subPath: key,
        readOnly: true,
      });
    }
  }
}

/** Each accessCredentials secret, at <private>/secret/<secret>-access-cred (cloud-init and the agent read it). */
function addAccessCredentials(out: RenderedVolumes, vmi: VirtualMachineInstance): void {
  for (const { secretName } of accessCredentialSecrets(vmi.spec)) {
    const name = accessCredentialDir(secretName);
    if (out.volumes.some((v) => v.name === name)) continue;
    out.volumes.push({ name, secret: { secretName } });
    out.mounts.push({ name, mountPath: L.configVolumeDir('secret', name), readOnly: true });
  }
}

/**
 * Hugepages (withHugepages): a hugetlbfs emptyDir at /dev/hugepages, where the launcher's libvirt finds it
 * (qemu.conf hugetlbfs_mount), and a plain emptyDir at <that>/libvirt/qemu, where libvirt keeps its
 * per-domain directories (a hugetlbfs takes no directories the Pod's user can make there).
 */
function addHugepages(out: RenderedVolumes, vmi: VirtualMachineInstance): void {
  if (vmi.spec.domain.memory?.hugepages === undefined) return;
  out.volumes.push({ name: HUGEPAGES_VOLUME, emptyDir: { medium: 'HugePages' } });
  out.mounts.push({ name: HUGEPAGES_VOLUME, mountPath: HUGEPAGES_DIR });
  out.volumes.push(emptyDir(HUGETLBFS_DIR_VOLUME));
  out.mounts.push({ name: HUGETLBFS_DIR_VOLUME, mountPath: path.join(HUGEPAGES_DIR, 'libvirt/qemu') });
}

/**
 * virtiofs (withVirioFS): the emptyDir where each filesystem's virtiofsd puts its socket for QEMU. KubeVirt
 * always renders it with filesystems; here only with the virtiofsd containers.
 */
function addVirtiofsSockets(out: RenderedVolumes, vmi: VirtualMachineInstance, served: boolean): void {
  if (!served || (vmi.spec.domain.devices.filesystems ?? []).length === 0) return;
  out.volumes.push(emptyDir(VIRTIOFS_VOLUME));
  out.mounts.push({ name: VIRTIOFS_VOLUME, mountPath: L.virtiofsDir });
}

interface LauncherVolumesOptions {
  /**
   * The VM's backend-storage claim (backend-storage/pvc.ts), which a VMI keeping a persistent TPM or EFI state
   * cannot do without.
   */
  readonly backendStorageClaim?: string | undefined;
  /** The Pod runs a virtiofsd container per filesystem (virtiofs-containers.ts). */
  readonly virtiofsd: boolean;
}

/** The Pod's volumes and the compute container's mounts. */
export function launcherVolumes(vmi: VirtualMachineInstance, o: LauncherVolumesOptions): RenderedVolumes {
  const out = base();
  addBackendStorage(out, vmi, o.backendStorageClaim);
  (vmi.spec.volumes ?? []).forEach((v, index) => {
    const claim = claimOf(v);
    if (claim !== undefined) addClaim(out, vmi, v, claim);
    addContainerDisk(out, v, index);
    addHostDisk(out, v);
    addConfigSource(out, v);
    addCloudInitSecrets(out, v);
  });
  addKernelBoot(out, vmi);
  addAccessCredentials(out, vmi);
  addHugepages(out, vmi);
  addVirtiofsSockets(out, vmi, o.virtiofsd);
  return out;
}
