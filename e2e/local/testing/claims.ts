/**
 * A claim of the local StorageClass, bound, whose hostPath volume holds a 16 MiB raw disk.img (what an importer
 * would have written), optionally starting with a marker line the guest can read: the tests' hotplug source.
 * Or a hostPath volume of the test's own, pre-bound to its claim, for tests that change the volume's files.
 */
import { randomBytes } from 'node:crypto';
import { mkdir, open, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { PersistentVolume } from '../../../lib/kubevirt/core/pv.ts';
import { isNotFound } from '../../../lib/kernel/errors/errors.ts';
import type { PersistentVolumeClaim } from '../../../lib/kubevirt/core/pvc.ts';
import {
  PERSISTENT_VOLUME_CLAIMS,
  PERSISTENT_VOLUMES,
  type KubeClient,
} from '../../../lib/kernel/kube/index.ts';
import { waitFor } from '../../../lib/kernel/testing/wait.ts';
import { STORAGE_CLASS } from '../storage.ts';

type AccessMode = 'ReadWriteOnce' | 'ReadWriteMany';

/**
 * A claim of the local StorageClass, Bound: its volume's directory on the node (the PV's hostPath). The pool's
 * volumes take either access mode (both nodes of the local cluster see the same directory).
 */
export async function boundClaimDir(
  direct: KubeClient,
  ns: string,
  name: string,
  accessMode: AccessMode = 'ReadWriteOnce',
): Promise<string> {
  const claim: PersistentVolumeClaim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name, namespace: ns },
    spec: {
      storageClassName: STORAGE_CLASS,
      accessModes: [accessMode],
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
  return dir;
}

export async function claimWithDisk(
  direct: KubeClient,
  ns: string,
  name: string,
  o: { marker?: string; accessMode?: AccessMode } = {},
): Promise<void> {
  const dir = await boundClaimDir(direct, ns, name, o.accessMode);
  const disk = await open(join(dir, 'disk.img'), 'w');
  if (o.marker !== undefined) await disk.write(`${o.marker}\n`);
  await disk.truncate(16 * 2 ** 20);
  await disk.close();
}

export interface OwnVolume {
  readonly pvName: string;
  /** The volume's directory on the node (the PV's hostPath). */
  readonly dir: string;
}

/**
 * A hostPath PersistentVolume of the test's own (not the pool's) under `parent`, pre-bound to the claim ns/name,
 * and that claim, Bound; its disk.img holds `content`. removeOwnVolume deletes both the volume and its dir.
 */
export async function ownClaimWithDisk(
  direct: KubeClient,
  o: { ns: string; name: string; parent: string; content: string },
): Promise<OwnVolume> {
  const pvName = `kvts-own-${randomBytes(4).toString('hex')}`;
  const dir = join(o.parent, pvName);
  await mkdir(dir, { recursive: true });
  await writeFile(join(dir, 'disk.img'), o.content);
  const pv: PersistentVolume = {
    apiVersion: 'v1',
    kind: 'PersistentVolume',
    metadata: { name: pvName },
    spec: {
      storageClassName: STORAGE_CLASS,
      capacity: { storage: '1Gi' },
      accessModes: ['ReadWriteOnce'],
      persistentVolumeReclaimPolicy: 'Retain',
      volumeMode: 'Filesystem',
      hostPath: { path: dir, type: 'Directory' },
      claimRef: { namespace: o.ns, name: o.name },
    },
  } as PersistentVolume;
  await direct.create(PERSISTENT_VOLUMES, pv);
  const claim: PersistentVolumeClaim = {
    apiVersion: 'v1',
    kind: 'PersistentVolumeClaim',
    metadata: { name: o.name, namespace: o.ns },
    spec: {
      storageClassName: STORAGE_CLASS,
      accessModes: ['ReadWriteOnce'],
      volumeMode: 'Filesystem',
      volumeName: pvName,
      resources: { requests: { storage: '1Gi' } },
    },
  };
  await direct.create(PERSISTENT_VOLUME_CLAIMS, claim);
  await waitFor(
    async () =>
      (await direct.get<PersistentVolumeClaim>(PERSISTENT_VOLUME_CLAIMS, o.name, { namespace: o.ns })).status
        ?.phase === 'Bound',
    `the claim ${o.name} bound`,
    { timeoutMs: 60_000 },
  );
  return { pvName, dir };
}

/** Deletes an own volume (once its claim is gone the volume goes too) and its directory. */
export async function removeOwnVolume(direct: KubeClient, v: OwnVolume): Promise<void> {
  await direct.delete(PERSISTENT_VOLUMES, v.pvName).catch(() => undefined);
  await waitFor(
    () =>
      direct.get(PERSISTENT_VOLUMES, v.pvName).then(
        () => false,
        (err: unknown) => isNotFound(err),
      ),
    `the volume ${v.pvName} gone`,
    { timeoutMs: 120_000, intervalMs: 500 },
  ).catch(() => undefined);
  await rm(v.dir, { recursive: true, force: true });
}
