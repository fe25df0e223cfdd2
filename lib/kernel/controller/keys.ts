/** Queue keys: `namespace/name`, as the informer store keys objects. */
import type { OwnerReference, KubeObject } from '../kube/types.ts';
import { objectKey } from '../informer/index-funcs.ts';
import type { EventHandler } from '../informer/informer.ts';

export { objectKey };

/** Key of the owner an object's controller reference names, when it is of kind `kind`. */
export function ownerKey(obj: KubeObject, ref: OwnerReference | undefined, kind: string): string | undefined {
  if (ref?.kind !== kind) return undefined;
  const ns = obj.metadata.namespace;
  return ns ? `${ns}/${ref.name}` : ref.name;
}

/** Informer handler that wakes the object's own key on every add, update and delete. */
export function enqueueOwnKey<T extends KubeObject>(enqueue: (key: string) => void): EventHandler<T> {
  const wake = (obj: T): void => {
    enqueue(objectKey(obj));
  };
  return {
    onAdd: wake,
    onUpdate: (_old, obj): void => {
      wake(obj);
    },
    onDelete: wake,
  };
}
