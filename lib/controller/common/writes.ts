/**
 * Writes with a resourceVersion precondition, and the object they leave behind: the cached object with the
 * patch applied and the new resourceVersion from the answer (with the precondition, nothing else changed).
 */
import type { GroupVersionResource, KubeClient, KubeObject } from '../../kernel/kube/types.ts';
import { applyMergePatch } from './merge-diff.ts';

export interface MergePatch<T extends KubeObject> {
  obj: T;
  patch: Record<string, unknown>;
  subresource?: 'status';
}

/** Merge-patches obj with patch (metadata.resourceVersion = obj's is added) and returns the patched object. */
export async function mergePatch<T extends KubeObject>(
  client: KubeClient,
  gvr: GroupVersionResource,
  { obj, patch, subresource }: MergePatch<T>,
): Promise<T> {
  const rv = obj.metadata.resourceVersion;
  const meta = (patch['metadata'] ?? {}) as Record<string, unknown>;
  const body = { ...patch, metadata: { ...meta, ...(rv !== undefined && { resourceVersion: rv }) } };
  const answer = await client.patch<T>(gvr, obj.metadata.name ?? '', body, {
    type: 'merge',
    ...(obj.metadata.namespace !== undefined && { namespace: obj.metadata.namespace }),
    ...(subresource !== undefined && { subresource }),
  });
  const next = applyMergePatch(obj, patch);
  const newRv = answer.metadata.resourceVersion;
  if (newRv !== undefined) next.metadata = { ...next.metadata, resourceVersion: newRv };
  return next;
}
