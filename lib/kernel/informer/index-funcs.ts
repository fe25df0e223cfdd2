/**
 * Object keys and the built-in index functions of the informer store.
 * Keys are `namespace/name`, or `name` for cluster-scoped objects (client-go MetaNamespaceKeyFunc).
 */
import type { KubeObject } from '../kube/types.ts';

/** Returns the index values of an object; an object may sit under several values, or none. */
export type Indexer<T extends KubeObject = KubeObject> = (obj: T) => string[];

export function objectKey(obj: KubeObject): string {
  const { namespace, name } = obj.metadata;
  return namespace ? `${namespace}/${name ?? ''}` : (name ?? '');
}

/** Splits a key back into its parts; namespace is '' for cluster-scoped keys. */
export function splitKey(key: string): { namespace: string; name: string } {
  const i = key.indexOf('/');
  return i < 0 ? { namespace: '', name: key } : { namespace: key.slice(0, i), name: key.slice(i + 1) };
}

/** Index by namespace ('' for cluster-scoped objects). */
export const namespaceIndex: Indexer = (obj) => [obj.metadata.namespace ?? ''];

/** Index by the value of one label; objects without the label are not indexed. */
export function labelIndex(key: string): Indexer {
  return (obj) => {
    const v = obj.metadata.labels?.[key];
    return v === undefined ? [] : [v];
  };
}

/**
 * Index by the scalar at a dotted path, e.g. 'spec.nodeName' or 'status.phase'. Objects where the path is
 * missing, null or not a scalar are not indexed.
 */
export function fieldIndex(path: string): Indexer {
  const parts = path.split('.');
  return (obj) => {
    let cur: unknown = obj;
    for (const p of parts) {
      if (typeof cur !== 'object' || cur === null) return [];
      cur = (cur as Record<string, unknown>)[p];
    }
    if (typeof cur === 'string') return [cur];
    if (typeof cur === 'number' || typeof cur === 'boolean') return [String(cur)];
    return [];
  };
}

/** Freezes an object and everything reachable from it (guard against callers mutating cached objects). */
export function deepFreeze<T>(obj: T): T {
  if (typeof obj !== 'object' || obj === null || Object.isFrozen(obj)) return obj;
  for (const v of Object.values(obj)) deepFreeze(v);
  return Object.freeze(obj);
}
