/** Pure helpers for controller owner references (apimachinery `metav1.GetControllerOf` / `NewControllerRef`). */
import { KvError } from '../errors/errors.ts';
import type { KubeObject, OwnerReference } from '../kube/types.ts';

export interface GroupVersionKind {
  /** '' for the core group. */
  group: string;
  version: string;
  kind: string;
}

/** The owner reference marked controller: true, if any. */
export function controllerRefOf(obj: KubeObject): OwnerReference | undefined {
  return obj.metadata.ownerReferences?.find((r) => r.controller === true);
}

/** A controller reference to owner; the owner must have a name and a uid (it was read from the API). */
export function newControllerRef(owner: KubeObject, gvk: GroupVersionKind): OwnerReference {
  const { name, uid } = owner.metadata;
  if (!name || !uid) {
    throw new KvError(
      'KV_ERR_INTERNAL',
      'owner reference needs an owner with metadata.name and metadata.uid',
    );
  }
  return {
    apiVersion: gvk.group ? `${gvk.group}/${gvk.version}` : gvk.version,
    kind: gvk.kind,
    name,
    uid,
    controller: true,
    blockOwnerDeletion: true,
  };
}

/** Whether owner is the controller of obj (compared by uid). */
export function isControlledBy(obj: KubeObject, owner: KubeObject): boolean {
  const uid = owner.metadata.uid;
  return uid !== undefined && controllerRefOf(obj)?.uid === uid;
}
