/** Queue keys: `namespace/name`, as the informer store keys objects. */
import type { OwnerReference, KubeObject } from '../../kernel/kube/types.ts';
import { objectKey } from '../../kernel/informer/index-funcs.ts';

export { objectKey };

/** Key of the owner an object's controller reference names, when it is of kind `kind`. */
export function ownerKey(obj: KubeObject, ref: OwnerReference | undefined, kind: string): string | undefined {
  if (ref?.kind !== kind) return undefined;
  const ns = obj.metadata.namespace;
  return ns ? `${ns}/${ref.name}` : ref.name;
}
