/**
 * The KubeVirt resource being deleted (KubeVirt's kubevirt.go syncDeletion): phase Deleting, every object the
 * install labelled deleted in reverse creation order, and once the caches hold none of them, phase Deleted and
 * the finalizer removed, so the resource goes. Workloads left behind are the webhook's to refuse (it answers the
 * delete under BlockUninstallIfWorkloadsExist); once deletion has begun it is carried through, so the
 * resource never hangs in Deleting.
 */
import { removeFinalizer } from '../../kernel/controller/finalizers.ts';
import { isNotFound } from '../../kernel/errors/errors.ts';
import type { ReconcileResult } from '../../kernel/controller/runner.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { KUBEVIRTS, type KubeVirt } from '../../kubevirt/index.ts';
import { deleteAll, describe, type ApplyClient } from '../apply/apply-set.ts';
import type { OperatorCacheReader } from './caches.ts';
import type { StatusWriter } from './status-writer.ts';

/** KubeVirt's finalizer on the KubeVirt resource. */
export const KUBEVIRT_FINALIZER = 'foregroundDeleteKubeVirt';

/** How often to look while objects are still going (their deletion events wake it sooner). */
const DELETION_POLL_MS = 2000;

export interface UninstallDeps {
  readonly caches: OperatorCacheReader;
  readonly client: ApplyClient;
  /** Speaks kubevirt.io: the finalizer. */
  readonly kubevirtClient: Pick<KubeClient, 'patch'>;
  readonly status: StatusWriter;
  readonly log: Logger;
}

export function syncDeletion(kv: KubeVirt, deps: UninstallDeps): Promise<ReconcileResult> {
  return uninstallPass(kv, deps).catch((err: unknown) => {
    // A pass on a cache that still holds the resource after its finalizer went: it is gone, all is done.
    if (isNotFound(err)) return undefined;
    throw err;
  });
}

async function uninstallPass(kv: KubeVirt, deps: UninstallDeps): Promise<ReconcileResult> {
  const left = deps.caches.installedObjects();
  // The status write answers with the resource as it now stands: the finalizers come off that version.
  const current = await deps.status.write(kv, {
    deleting: true,
    remaining: left.map(({ gvr, obj }) => describe({ ...obj, kind: gvr.kind })),
  });
  if (left.length > 0) {
    const deleted = await deleteAll(left, deps.client);
    deps.log.info('uninstalling', { deleted });
    return { requeueAfterMs: DELETION_POLL_MS };
  }
  if (!(current.metadata.finalizers ?? []).includes(KUBEVIRT_FINALIZER)) return undefined;
  await setFinalizers(
    deps.kubevirtClient,
    current,
    removeFinalizer(current.metadata.finalizers, KUBEVIRT_FINALIZER),
  );
  deps.log.info('KubeVirt deleted', { name: kv.metadata.name });
  return undefined;
}

/** The resource's finalizers set to `finalizers`, on the version read (a conflict retries the reconcile). */
export async function setFinalizers(
  client: Pick<KubeClient, 'patch'>,
  kv: KubeVirt,
  finalizers: string[],
): Promise<void> {
  await client.patch(
    KUBEVIRTS,
    kv.metadata.name ?? '',
    { metadata: { finalizers, resourceVersion: kv.metadata.resourceVersion } },
    { type: 'merge', ...(kv.metadata.namespace !== undefined && { namespace: kv.metadata.namespace }) },
  );
}
