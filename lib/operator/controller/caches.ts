/**
 * What the operator watches while it leads (KubeVirt's virt-operator informers: pkg/virt-operator/kubevirt.go
 * and util/informers): the KubeVirt resources of its namespace, through the kubevirt.io client, and every kind it
 * installs, selected by the install label, as stored (the direct client). Any change to one of them wakes the
 * KubeVirt resources, so an object deleted or edited by hand is seen and restored.
 */
import type { Clock } from '../../kernel/clock.ts';
import { objectKey } from '../../kernel/controller/keys.ts';
import type { EventHandler } from '../../kernel/informer/informer.ts';
import { SharedInformer } from '../../kernel/informer/informer.ts';
import type { GroupVersionResource, KubeClient, KubeObject } from '../../kernel/kube/types.ts';
import type { StoreReader } from '../../kernel/informer/store.ts';
import type { Logger } from '../../kernel/log/log.ts';
import { KUBEVIRTS, type KubeVirt } from '../../kubevirt/index.ts';
import { installSelector } from '../generate/meta.ts';
import { INSTALLED_KINDS } from '../apply/kinds.ts';

type Lifecycle = Pick<SharedInformer<KubeObject>, 'run' | 'waitForSync' | 'hasSynced'>;

/** What a reconcile reads: the KubeVirt resources and the installed objects. */
export interface OperatorCacheReader {
  readonly kubevirts: { readonly store: StoreReader<KubeVirt> };
  /** The live object of an installed kind, as stored; undefined when it does not exist. */
  live(gvr: GroupVersionResource, namespace: string | undefined, name: string): KubeObject | undefined;
  /** Every live object of every installed kind. */
  installedObjects(): { gvr: GroupVersionResource; obj: KubeObject }[];
}

export interface OperatorCaches extends OperatorCacheReader {
  readonly kubevirts: SharedInformer<KubeVirt>;
  /** One informer per installed kind, by resource (`deployments`, `secrets`, …). */
  readonly installed: ReadonlyMap<string, SharedInformer<KubeObject>>;
  /** Every informer, to start and wait for. */
  all(): Lifecycle[];
}

export interface OperatorCachesOptions {
  /** Speaks kubevirt.io (the rewriting client): the KubeVirt resource. */
  kubevirtClient: KubeClient;
  /** Speaks the stored names: what the operator installs. */
  client: KubeClient;
  namespace: string;
  clock: Clock;
  log: Logger;
  resyncPeriodMs: number;
}

export function operatorCaches(o: OperatorCachesOptions): OperatorCaches {
  const common = { clock: o.clock, log: o.log, resyncPeriodMs: o.resyncPeriodMs };
  const kubevirts = new SharedInformer<KubeVirt>({
    ...common,
    client: o.kubevirtClient,
    gvr: KUBEVIRTS,
    namespace: o.namespace,
  });
  const installed = new Map(
    INSTALLED_KINDS.map((gvr) => [
      gvr.resource,
      new SharedInformer<KubeObject>({
        ...common,
        client: o.client,
        gvr,
        labelSelector: installSelector(),
        ...(gvr.namespaced && { namespace: o.namespace }),
      }),
    ]),
  );
  return {
    kubevirts,
    installed,
    all: () => [kubevirts, ...installed.values()],
    live: (gvr, namespace, name) =>
      installed.get(gvr.resource)?.store.get(gvr.namespaced ? `${namespace ?? ''}/${name}` : name),
    installedObjects: () =>
      INSTALLED_KINDS.flatMap((gvr) =>
        (installed.get(gvr.resource)?.store.list() ?? []).map((obj) => ({ gvr, obj })),
      ),
  };
}

/** Wakes every KubeVirt resource in the cache on any change of an installed object, its own key for its own. */
export function wakeKubeVirts(caches: OperatorCaches, enqueue: (key: string) => void): void {
  const all = (): void => {
    for (const kv of caches.kubevirts.store.list()) enqueue(objectKey(kv));
  };
  const any: EventHandler<KubeObject> = { onAdd: all, onUpdate: all, onDelete: all };
  for (const inf of caches.installed.values()) inf.addEventHandler(any);
  const own = (kv: KubeVirt): void => {
    enqueue(objectKey(kv));
  };
  caches.kubevirts.addEventHandler({
    onAdd: own,
    onUpdate: (_o, kv) => {
      own(kv);
    },
    onDelete: own,
  });
}
