/**
 * The operator's controller (KubeVirt's pkg/virt-operator/kubevirt.go KubeVirtController): one queue of
 * KubeVirt resource keys, woken by the resource and by every installed object, one worker. A resource being
 * deleted is uninstalled; otherwise it gets the finalizer first, then its install synced. Only the oldest
 * KubeVirt resource of the namespace installs (KubeVirt's checkForActiveInstall); a second one is left alone,
 * as the create webhook refuses it.
 */
import { addFinalizer, hasFinalizer } from '../../kernel/controller/finalizers.ts';
import type { Reconciler } from '../../kernel/controller/runner.ts';
import type { KubeClient } from '../../kernel/kube/types.ts';
import type { KubeVirt } from '../../kubevirt/index.ts';
import { syncInstall, type InstallDeps } from './reconcile.ts';
import { KUBEVIRT_FINALIZER, setFinalizers, syncDeletion } from './uninstall.ts';

export interface OperatorControllerDeps extends InstallDeps {
  /** Speaks kubevirt.io: the KubeVirt resource's finalizer. */
  readonly kubevirtClient: Pick<KubeClient, 'patch'>;
}

function oldest(kvs: readonly KubeVirt[]): KubeVirt | undefined {
  const live = kvs.filter((k) => k.metadata.deletionTimestamp === undefined);
  return live.sort((a, b) =>
    (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? ''),
  )[0];
}

export function operatorReconciler(deps: OperatorControllerDeps): Reconciler {
  return async (key, ctx) => {
    const kv = deps.caches.kubevirts.store.get(key);
    if (kv === undefined) return undefined;
    const log = ctx.log.with({ namespace: kv.metadata.namespace, name: kv.metadata.name });
    if (kv.metadata.deletionTimestamp !== undefined) return syncDeletion(kv, { ...deps, log });
    const active = oldest(deps.caches.kubevirts.store.list());
    if (active !== undefined && active.metadata.uid !== kv.metadata.uid) {
      log.warning('another KubeVirt resource is installed here; this one is ignored', {
        installed: active.metadata.name,
      });
      return undefined;
    }
    if (!hasFinalizer(kv, KUBEVIRT_FINALIZER)) {
      await setFinalizers(deps.kubevirtClient, kv, addFinalizer(kv.metadata.finalizers, KUBEVIRT_FINALIZER));
      return undefined;
    }
    return syncInstall(kv, { ...deps, log });
  };
}
