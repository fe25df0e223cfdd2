/**
 * The VM's backend-storage claim, where a persistent TPM's state and a persistent EFI variable store outlive
 * the launcher Pod (kubevirt pkg/storage/backend-storage/backend-storage.go, tag v1.6.2: PVCForVMI,
 * getStorageClass, getAccessMode, createPVC). Pure: the caller lists the claims, storage classes and CDI
 * storage profile from its caches and creates what this returns (sync.ts).
 */
import { KvError } from '../../../kernel/errors/errors.ts';
import type { KubeObject, OwnerReference } from '../../../kernel/kube/types.ts';
import type { PersistentVolumeClaim } from '../../../kubevirt/core/pvc.ts';
import type { VirtualMachineInstance } from '../../../kubevirt/index.ts';

/** The claim's name prefix, and the label naming the VM whose state it holds. */
const BACKEND_STORAGE_PREFIX = 'persistent-state-for';
/** KubeVirt asks for 10Mi; CDI's storage-profile webhook may raise it to the provisioner's minimum. */
const BACKEND_STORAGE_SIZE = '10Mi';
const APPLY_STORAGE_PROFILE = 'cdi.kubevirt.io/applyStorageProfile';
const KUBEVIRT_DEFAULT_CLASS = 'storageclass.kubevirt.io/is-default-virt-class';
const KUBE_DEFAULT_CLASS = 'storageclass.kubernetes.io/is-default-class';

type AccessMode = 'ReadWriteOnce' | 'ReadWriteMany';

/** A CDI StorageProfile's status.claimPropertySets entry. */
export interface ClaimPropertySet {
  readonly accessModes?: readonly string[];
  readonly volumeMode?: string;
}

const legacyName = (vmi: VirtualMachineInstance): string =>
  `${BACKEND_STORAGE_PREFIX}-${vmi.metadata.name ?? ''}`;

/**
 * The VMI's claim among `claims`: one in its namespace, not being deleted, labelled for it; else one with the
 * legacy name (`persistent-state-for-<vmi>`, from before the label).
 */
export function backendStorageClaimFor(
  claims: readonly PersistentVolumeClaim[],
  vmi: VirtualMachineInstance,
): PersistentVolumeClaim | undefined {
  const live = claims.filter(
    (c) => c.metadata.namespace === vmi.metadata.namespace && c.metadata.deletionTimestamp === undefined,
  );
  return (
    live.find((c) => c.metadata.labels?.[BACKEND_STORAGE_PREFIX] === vmi.metadata.name) ??
    live.find((c) => c.metadata.name === legacyName(vmi))
  );
}

/**
 * The storage class: the KubeVirt CR's `configuration.vmStateStorageClass`, else the class annotated as
 * KubeVirt's default, else the cluster's default (the last one listed of each wins, as in KubeVirt).
 */
export function backendStorageClass(configured: string | undefined, classes: readonly KubeObject[]): string {
  if (configured !== undefined && configured !== '') return configured;
  const marked = (annotation: string): string | undefined =>
    classes.findLast((c) => c.metadata.annotations?.[annotation] === 'true')?.metadata.name;
  const found = marked(KUBEVIRT_DEFAULT_CLASS) ?? marked(KUBE_DEFAULT_CLASS);
  if (found === undefined) throw new KvError('KV_ERR_CONFIG', 'no default storage class found');
  return found;
}

/**
 * ReadWriteMany when the storage profile offers it for filesystem claims, else ReadWriteOnce when it offers
 * that; without an answer from the profile, ReadWriteMany for a configured class and ReadWriteOnce for a
 * default one.
 */
export function backendStorageAccessMode(o: {
  classConfigured: boolean;
  profile?: readonly ClaimPropertySet[];
}): AccessMode {
  const offered = (o.profile ?? [])
    .filter((p) => p.volumeMode === 'Filesystem')
    .flatMap((p) => p.accessModes ?? []);
  if (offered.includes('ReadWriteMany')) return 'ReadWriteMany';
  if (offered.includes('ReadWriteOnce')) return 'ReadWriteOnce';
  return o.classConfigured ? 'ReadWriteMany' : 'ReadWriteOnce';
}

/**
 * The claim to create for the VMI: `persistent-state-for-<vmi>` (the name KubeVirt gave it before it let the API
 * server generate one: a create racing a stale cache then meets AlreadyExists instead of making a second
 * claim), labelled for the VMI and for CDI's storage profile webhook, owned by the VMI's owners (its VM), or by
 * the VMI itself when it has none (then the state lives only as long as the VMI).
 */
export function newBackendStorageClaim(
  vmi: VirtualMachineInstance,
  o: { storageClass: string; accessMode: AccessMode; vmiRef: OwnerReference },
): PersistentVolumeClaim {
  const owners = vmi.metadata.ownerReferences ?? [];
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: {
      name: legacyName(vmi),
      ...(vmi.metadata.namespace !== undefined && { namespace: vmi.metadata.namespace }),
      ownerReferences: owners.length > 0 ? structuredClone(owners) : [o.vmiRef],
      labels: { [BACKEND_STORAGE_PREFIX]: vmi.metadata.name ?? '', [APPLY_STORAGE_PROFILE]: 'true' },
    },
    spec: {
      accessModes: [o.accessMode],
      resources: { requests: { storage: BACKEND_STORAGE_SIZE } },
      storageClassName: o.storageClass,
      volumeMode: 'Filesystem',
    },
  };
}
