/**
 * The VM's backend-storage claim before its launcher Pod (kubevirt vmi/storage.go handleBackendStorage and
 * backend-storage.go IsPVCReady, tag v1.6.2): a VMI keeping a persistent TPM or EFI state gets its claim made
 * (in the KubeVirt resource's vmStateStorageClass, else the default class) and its Pod waits until the claim
 * is Bound, or Pending in a WaitForFirstConsumer class (the Pod is what binds it). A Lost claim, or a class
 * that is not there, is a failure. Storage classes are read from the API only when a claim is made or Pending.
 */
import { isAlreadyExists, KvError } from '../../../kernel/errors/errors.ts';
import type { StoreReader } from '../../../kernel/informer/store.ts';
import { PERSISTENT_VOLUME_CLAIMS, type KubeClient, type KubeObject } from '../../../kernel/kube/index.ts';
import type { OwnerReference } from '../../../kernel/kube/types.ts';
import type { PersistentVolumeClaim } from '../../../kubevirt/core/pvc.ts';
import { needsBackendStorage, type KubeVirt, type VirtualMachineInstance } from '../../../kubevirt/index.ts';
import {
  backendStorageAccessMode,
  backendStorageClaimFor,
  backendStorageClass,
  newBackendStorageClaim,
} from './pvc.ts';

const STORAGE_CLASSES = {
  group: 'storage.k8s.io',
  version: 'v1',
  resource: 'storageclasses',
  kind: 'StorageClass',
  namespaced: false,
} as const;

interface StorageClass extends KubeObject {
  volumeBindingMode?: string;
}

export type BackendStorage =
  /** No claim needed, or the claim the Pod mounts. */
  | { readonly ready: true; readonly claim?: string }
  /** Not yet: why, for the log. */
  | { readonly ready: false; readonly waiting: string };

export interface BackendStorageInput {
  readonly client: KubeClient;
  readonly pvcs: StoreReader<PersistentVolumeClaim>;
  readonly kubevirt: KubeVirt | undefined;
  readonly vmi: VirtualMachineInstance;
  readonly vmiRef: OwnerReference;
}

async function createClaim(i: BackendStorageInput): Promise<string> {
  const configured = i.kubevirt?.spec.configuration?.vmStateStorageClass;
  const classConfigured = configured !== undefined && configured !== '';
  const classes = classConfigured ? [] : (await i.client.list<StorageClass>(STORAGE_CLASSES)).items;
  const claim = newBackendStorageClaim(i.vmi, {
    storageClass: backendStorageClass(configured, classes),
    accessMode: backendStorageAccessMode({ classConfigured }),
    vmiRef: i.vmiRef,
  });
  try {
    await i.client.create(PERSISTENT_VOLUME_CLAIMS, claim, { namespace: claim.metadata.namespace ?? '' });
  } catch (err) {
    if (!isAlreadyExists(err)) throw err;
  }
  return claim.metadata.name ?? '';
}

async function pendingIsReady(client: KubeClient, claim: PersistentVolumeClaim): Promise<boolean> {
  const className = claim.spec?.storageClassName ?? '';
  if (className === '') throw new KvError('KV_ERR_CONFIG', 'backend storage claim has no storage class');
  const sc = await client.get<StorageClass>(STORAGE_CLASSES, className).catch(() => undefined);
  if (sc === undefined) throw new KvError('KV_ERR_CONFIG', `storage class ${className} not found`);
  return sc.volumeBindingMode === 'WaitForFirstConsumer';
}

export async function ensureBackendStorage(i: BackendStorageInput): Promise<BackendStorage> {
  if (!needsBackendStorage(i.vmi.spec)) return { ready: true };
  const claim = backendStorageClaimFor(i.pvcs.list(), i.vmi);
  if (claim === undefined)
    return { ready: false, waiting: `created backend storage claim ${await createClaim(i)}` };
  const name = claim.metadata.name ?? '';
  const phase = claim.status?.phase ?? 'Pending';
  if (phase === 'Lost') throw new KvError('KV_ERR_CONFIG', `backend storage claim ${name} is Lost`);
  if (phase === 'Bound' || (await pendingIsReady(i.client, claim))) return { ready: true, claim: name };
  return { ready: false, waiting: `backend storage claim ${name} is ${phase}` };
}
