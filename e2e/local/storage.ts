/**
 * The `local` StorageClass (kubernetes.io/no-provisioner, Immediate binding: kube-controller-manager's PV
 * binder binds a claim as soon as it is made) and a pool of pre-created hostPath PersistentVolumes under
 * the stack dir serving it. `up` tops the pool up to POOL_SIZE Available volumes; a volume released by
 * its claim (Retain) is deleted with its directory and replaced.
 */
import { randomBytes } from 'node:crypto';
import { chmod, mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import type { Api, List, Obj } from './kube.ts';

export const STORAGE_CLASS = 'local';
const POOL_SIZE = 6;
const PV_CAPACITY = '10Gi';
const POOL_LABEL = 'kubevirt-ts.local/pool';

interface Pv extends Obj {
  spec?: { hostPath?: { path?: string } };
  status?: { phase?: string };
}

function storageClass(): Obj {
  return {
    apiVersion: 'storage.k8s.io/v1',
    kind: 'StorageClass',
    metadata: { name: STORAGE_CLASS, annotations: { 'storageclass.kubernetes.io/is-default-class': 'true' } },
    provisioner: 'kubernetes.io/no-provisioner',
    reclaimPolicy: 'Retain',
    volumeBindingMode: 'Immediate',
  };
}

function hostPathPv(name: string, path: string): Obj {
  return {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name, labels: { [POOL_LABEL]: STORAGE_CLASS } },
    spec: {
      storageClassName: STORAGE_CLASS,
      capacity: { storage: PV_CAPACITY },
      accessModes: ['ReadWriteOnce', 'ReadWriteMany'],
      persistentVolumeReclaimPolicy: 'Retain',
      volumeMode: 'Filesystem',
      hostPath: { path, type: 'Directory' },
    },
  };
}

async function removePv(api: Api, pv: Pv, pvDir: string): Promise<void> {
  await api.remove(`/api/v1/persistentvolumes/${pv.metadata?.name ?? ''}`);
  const path = pv.spec?.hostPath?.path ?? '';
  if (path.startsWith(`${pvDir}/`)) await rm(path, { recursive: true, force: true });
}

/** Deletes released or failed pool volumes (and their dirs); returns how many are still usable. */
async function prunePool(api: Api, pvDir: string): Promise<number> {
  const pvs = await api.get<List<Pv>>(`/api/v1/persistentvolumes?labelSelector=${POOL_LABEL}`);
  let usable = 0;
  for (const pv of pvs.items) {
    const phase = pv.status?.phase ?? 'Pending';
    if (phase !== 'Released' && phase !== 'Failed') {
      if (phase !== 'Bound') usable++;
      continue;
    }
    await removePv(api, pv, pvDir);
  }
  return usable;
}

/** Ensures the StorageClass and POOL_SIZE unbound PVs; returns how many PVs it created. */
export async function ensureStorage(api: Api, pvDir: string): Promise<number> {
  await api.ensure('/apis/storage.k8s.io/v1/storageclasses', storageClass());
  let created = 0;
  for (let usable = await prunePool(api, pvDir); usable < POOL_SIZE; usable++, created++) {
    const name = `local-pv-${randomBytes(4).toString('hex')}`;
    const path = join(pvDir, name);
    await mkdir(path, { recursive: true });
    await chmod(path, 0o777);
    await api.create('/api/v1/persistentvolumes', hostPathPv(name, path));
  }
  return created;
}
