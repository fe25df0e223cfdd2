/**
 * A claim of the local StorageClass, bound, whose hostPath volume holds a 16 MiB raw disk.img (what an importer
 * would have written), optionally starting with a marker line the guest can read: the tests' hotplug source.
 */
import { open } from 'node:fs/promises';
import { join } from 'node:path';
import type { PersistentVolume } from '../../../lib/api/core/pv.ts';
import type { PersistentVolumeClaim } from '../../../lib/api/core/pvc.ts';
import {
  PERSISTENT_VOLUME_CLAIMS,
  PERSISTENT_VOLUMES,
  type KubeClient,
} from '../../../lib/kernel/kube/index.ts';
import { waitFor } from '../../../lib/kernel/testing/wait.ts';
import { STORAGE_CLASS } from '../storage.ts';

export async function claimWithDisk(
  direct: KubeClient,
  ns: string,
  name: string,
  marker?: string,
): Promise<void> {
  const claim: PersistentVolumeClaim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: ns },
    spec: {
      storageClassName: STORAGE_CLASS,
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
      resources: { requests: { storage: '1Gi' } },
    },
  };
  await direct.create(PERSISTENT_VOLUME_CLAIMS, claim);
  const bound = await waitFor(
    async () => {
      const c = await direct.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, name, { namespace: ns });
      return c.status?.phase === 'Bound' && c;
    },
    `the claim ${name} bound`,
    { timeoutMs: 60_000 },
  );
  const pv = await direct.get<PersistentVolume>(PERSISTENT_VOLUMES, bound.spec?.volumeName ?? '');
  const dir = pv.spec?.hostPath?.path ?? '';
  if (dir === '') throw new Error(`the volume of claim ${name} has no hostPath`);
  const disk = await open(join(dir, 'disk.img'), 'w');
  if (marker !== undefined) await disk.write(`${marker}\n`);
  await disk.truncate(16 * 2 ** 20);
  await disk.close();
}
