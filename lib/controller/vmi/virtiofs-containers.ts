/**
 * The virtiofsd containers of a launcher Pod (kubevirt services/virtiofs.go generateVirtioFSContainers, tag
 * v1.6.2): one `virtiofs-<volume>` container per volume a VMI filesystem names, in spec.volumes order, running
 * the image's unprivileged virtiofsd as uid 107 with every capability dropped. It shares the volume (mounted at
 * /<volume>, or where the compute container has a config volume) and listens in the `virtiofs-containers`
 * emptyDir the compute container also mounts (pod-volumes.ts), on the socket the converter points QEMU at.
 *
 * Rendered where the image has such a virtiofsd (LauncherPodConfig.virtiofsd): this project's image carries
 * the Rust virtiofsd of the `virtiofsd` crate where KubeVirt's has it (IMAGE_VIRTIOFSD). KubeVirt's
 * supportContainerResources overrides are not read: its defaults apply.
 */
import path from 'node:path';
import { NON_ROOT_UID } from '../../kubevirt/index.ts';
import type { Container, VolumeMount } from '../../kubevirt/core/pod.ts';
import type { VirtualMachineInstance, Volume } from '../../kubevirt/index.ts';
import { POD_LAYOUT as L } from '../../rpc/index.ts';
import { wantsGuaranteedQos } from './overhead.ts';
import { VIRTIOFS_VOLUME } from './pod-volumes.ts';

/** Where this project's image has its virtiofsd, as KubeVirt's launcher image. */
export const IMAGE_VIRTIOFSD = '/usr/libexec/virtiofsd';

export interface VirtiofsOptions {
  readonly image: string;
  readonly imagePullPolicy?: string;
  /** The virtiofsd in the image (KubeVirt's is /usr/libexec/virtiofsd). */
  readonly binary: string;
}

/** Where the service account token is, which the Pod mounts itself (automountServiceAccountToken). */
const SERVICE_ACCOUNT_DIR = '/var/run/secrets/kubernetes.io/serviceaccount/';

/** Where the filesystem's volume is in its virtiofsd container (kubevirt virtioFSMountPoint). */
function sharedDir(v: Volume): string {
  if (v.configMap !== undefined) return L.configVolumeDir('config-map', v.name);
  if (v.secret !== undefined) return L.configVolumeDir('secret', v.name);
  if (v.downwardAPI !== undefined) return L.configVolumeDir('downwardapi', v.name);
  if (v.serviceAccount !== undefined) return SERVICE_ACCOUNT_DIR;
  return `/${v.name}`;
}

/**
 * KubeVirt's defaults: 10m CPU and 1M memory requested, 100m CPU and 80M memory the limit; the CPU request at
 * the limit for dedicated CPUs or Guaranteed QoS, and the memory request too for Guaranteed QoS.
 */
function resources(vmi: VirtualMachineInstance): NonNullable<Container['resources']> {
  const dedicated = vmi.spec.domain.cpu?.dedicatedCpuPlacement === true;
  const guaranteed = dedicated || wantsGuaranteedQos(vmi.spec);
  const limits = { memory: '80M', cpu: '100m' };
  return {
    requests: {
      cpu: dedicated || guaranteed ? limits.cpu : '10m',
      memory: guaranteed ? limits.memory : '1M',
    },
    limits,
  };
}

function container(vmi: VirtualMachineInstance, v: Volume, o: VirtiofsOptions): Container {
  const mounts: VolumeMount[] = [{ name: VIRTIOFS_VOLUME, mountPath: L.virtiofsDir }];
  if (v.serviceAccount === undefined) mounts.push({ name: v.name, mountPath: sharedDir(v) });
  return {
    name: `virtiofs-${v.name}`,
    image: o.image,
    imagePullPolicy: o.imagePullPolicy ?? 'IfNotPresent',
    command: [o.binary],
    args: [
      `--socket-path=${path.join(L.virtiofsDir, `${v.name}.sock`)}`,
      `--shared-dir=${sharedDir(v)}`,
      '--sandbox=none',
      '--cache=auto',
      // Files that cannot be migrated become errors in the guest rather than a failed migration.
      '--migration-on-error=guest-error',
      '--migration-mode=find-paths',
    ],
    volumeMounts: mounts,
    resources: resources(vmi),
    securityContext: {
      runAsUser: NON_ROOT_UID,
      runAsGroup: NON_ROOT_UID,
      runAsNonRoot: true,
      allowPrivilegeEscalation: false,
      capabilities: { drop: ['ALL'] },
    },
  };
}

export function virtiofsContainers(vmi: VirtualMachineInstance, o: VirtiofsOptions): Container[] {
  const shared = new Set((vmi.spec.domain.devices.filesystems ?? []).map((fs) => fs.name));
  return (vmi.spec.volumes ?? []).filter((v) => shared.has(v.name)).map((v) => container(vmi, v, o));
}
