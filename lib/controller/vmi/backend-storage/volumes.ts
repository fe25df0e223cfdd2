/**
 * The backend-storage claim in the launcher Pod (kubevirt pkg/virt-controller/services/rendervolumes.go
 * withBackendStorage, tag v1.6.2, its non-root branch): the claim as volume `vm-state`, its `meta`
 * subdirectory for the migration marker, `swtpm` and `swtpm-localca` where swtpm keeps a persistent TPM's state
 * and local CA, and `nvram` where libvirt keeps a persistent EFI variable store. Each directory a subPath mount
 * lands in gets its parents as emptyDirs: made by the kubelet they would be root's, and libvirt, running as
 * the Pod's user, writes beside the mounts. KubeVirt does this for /var/run/kubevirt-private/libvirt{,/qemu};
 * here swtpm's directories sit below the launcher libvirt's `/lv` instead (lib/rpc/pod-layout.ts), so
 * `/lv/libvirt{,/qemu}` get the same treatment.
 */
import path from 'node:path';
import type { VolumeMount } from '../../../kubevirt/core/pod.ts';
import { hasPersistentEfi, hasPersistentTpm, needsBackendStorage } from '../../../kubevirt/index.ts';
import type { VirtualMachineInstanceSpec } from '../../../kubevirt/index.ts';
import { POD_LAYOUT as L } from '../../../rpc/index.ts';

const VOLUME = 'vm-state';

type PodVolume = { name: string } & Record<string, unknown>;

export interface BackendStorageVolumes {
  readonly volumes: PodVolume[];
  readonly mounts: VolumeMount[];
}

const onClaim = (subPath: string, mountPath: string): VolumeMount => ({
  name: VOLUME,
  mountPath,
  subPath,
  readOnly: false,
});

/** emptyDirs at `dir` and its parent, so that a mount at `<dir>/<x>` leaves both writable by the Pod's user. */
function parentsOf(dir: string, names: readonly [string, string]): BackendStorageVolumes {
  const [outer, inner] = names;
  return {
    volumes: [
      { name: outer, emptyDir: {} },
      { name: inner, emptyDir: {} },
    ],
    mounts: [
      { name: outer, mountPath: path.dirname(dir) },
      { name: inner, mountPath: dir },
    ],
  };
}

/** Nothing when the VMI keeps no state across restarts. */
export function backendStorageVolumes(
  spec: VirtualMachineInstanceSpec,
  claimName: string,
): BackendStorageVolumes {
  if (!needsBackendStorage(spec)) return { volumes: [], mounts: [] };
  const out: BackendStorageVolumes = {
    volumes: [{ name: VOLUME, persistentVolumeClaim: { claimName, readOnly: false } }],
    mounts: [onClaim('meta', L.backendStorageMetaDir)],
  };
  const add = (more: BackendStorageVolumes): void => {
    out.volumes.push(...more.volumes);
    out.mounts.push(...more.mounts);
  };
  add(parentsOf(path.dirname(L.nvramDir), ['private-libvirt', 'private-libvirt-qemu']));
  if (hasPersistentTpm(spec)) {
    add(parentsOf(path.dirname(L.swtpmStateDir), ['lv-libvirt', 'lv-libvirt-qemu']));
    out.mounts.push(onClaim('swtpm', L.swtpmStateDir), onClaim('swtpm-localca', L.swtpmLocalCaDir));
  }
  if (hasPersistentEfi(spec)) out.mounts.push(onClaim('nvram', L.nvramDir));
  return out;
}
