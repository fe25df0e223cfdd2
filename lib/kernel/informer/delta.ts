/**
 * What a relist changed, computed against the cache: new keys are adds, keys whose resourceVersion moved
 * are updates (an unchanged resourceVersion means an unchanged object), keys that vanished are deletes and
 * carry the last state the cache knew.
 */
import type { KubeObject } from '../kube/types.ts';
import { objectKey } from './index-funcs.ts';
import type { StoreReader } from './store.ts';

export interface ListDelta<T> {
  adds: T[];
  updates: { oldObj: T; newObj: T }[];
  deletes: T[];
}

export function listDelta<T extends KubeObject>(cache: StoreReader<T>, items: readonly T[]): ListDelta<T> {
  const delta: ListDelta<T> = { adds: [], updates: [], deletes: [] };
  const seen = new Set<string>();
  for (const obj of items) {
    const key = objectKey(obj);
    seen.add(key);
    const old = cache.get(key);
    if (!old) delta.adds.push(obj);
    else if (old.metadata.resourceVersion !== obj.metadata.resourceVersion) {
      delta.updates.push({ oldObj: old, newObj: obj });
    }
  }
  for (const key of cache.listKeys()) {
    const old = cache.get(key);
    if (old && !seen.has(key)) delta.deletes.push(old);
  }
  return delta;
}
