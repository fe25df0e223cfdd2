/**
 * The operator's caches for unit tests: a frozen store of KubeVirt resources and a map of installed objects by
 * kind, namespace and name, listed in creation order as the informers' caches would be read.
 */
import { Store } from '../../../kernel/informer/store.ts';
import type { GroupVersionResource, KubeObject } from '../../../kernel/kube/types.ts';
import { deepFreeze } from '../../../kernel/informer/index-funcs.ts';
import type { KubeVirt } from '../../../kubevirt/index.ts';
import { creationRank, installedKind, apiVersionOf } from '../../apply/kinds.ts';
import type { OperatorCacheReader } from '../caches.ts';

export interface LiveObject {
  readonly gvr: GroupVersionResource;
  readonly obj: KubeObject;
}

const keyOf = (gvr: GroupVersionResource, namespace: string | undefined, name: string): string =>
  `${gvr.resource}|${gvr.namespaced ? (namespace ?? '') : ''}|${name}`;

export class FakeCaches implements OperatorCacheReader {
  readonly kubevirts = { store: new Store<KubeVirt>({ freeze: true }) };
  private readonly objects = new Map<string, LiveObject>();

  /** Adds or replaces an installed object (its apiVersion and kind say which cache). */
  put(obj: KubeObject): void {
    const gvr = installedKind(obj.apiVersion, obj.kind);
    const frozen = deepFreeze(structuredClone(obj));
    this.objects.set(keyOf(gvr, obj.metadata.namespace, obj.metadata.name ?? ''), { gvr, obj: frozen });
  }

  drop(gvr: GroupVersionResource, namespace: string | undefined, name: string): void {
    this.objects.delete(keyOf(gvr, namespace, name));
  }

  live(gvr: GroupVersionResource, namespace: string | undefined, name: string): KubeObject | undefined {
    return this.objects.get(keyOf(gvr, namespace, name))?.obj;
  }

  /** The installed object of this kind and name, or a test failure. */
  get(kind: string, name: string): KubeObject {
    const found = [...this.objects.values()].find((o) => o.gvr.kind === kind && o.obj.metadata.name === name);
    if (found === undefined) throw new Error(`no ${kind} ${name} in the caches`);
    return found.obj;
  }

  installedObjects(): LiveObject[] {
    const rank = (o: LiveObject): number => creationRank(apiVersionOf(o.gvr), o.gvr.kind);
    return [...this.objects.values()].sort((a, b) => rank(a) - rank(b));
  }
}
