/**
 * Merge patches (RFC 7386) the controllers write:
 * - deepEqual ignores key order; mergeDiff(from, to) is the smallest merge patch turning `from` into `to`
 *   (objects recurse, removed keys become null, arrays and scalars are replaced whole), undefined when equal;
 * - scopedMergePatch limits the diff between a cached object and the object a sync wants to the fields the
 *   controller owns;
 * - mergePatch writes one with metadata.resourceVersion as the precondition and returns the object it leaves
 *   behind (the cached object with the patch applied and the new resourceVersion from the answer).
 */
import type { GroupVersionResource, KubeClient, KubeObject } from '../kube/types.ts';

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

export function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a)) {
    return Array.isArray(b) && a.length === b.length && a.every((v, i) => deepEqual(v, b[i]));
  }
  if (!isObject(a) || !isObject(b)) return false;
  const ka = Object.keys(a).filter((k) => a[k] !== undefined);
  const kb = Object.keys(b).filter((k) => b[k] !== undefined);
  return ka.length === kb.length && ka.every((k) => deepEqual(a[k], b[k]));
}

/** The merge patch from `from` to `to`; undefined when nothing differs. */
export function mergeDiff(from: unknown, to: unknown): unknown {
  if (deepEqual(from, to)) return undefined;
  if (!isObject(from) || !isObject(to)) return to === undefined ? null : to;
  const patch: Record<string, unknown> = {};
  for (const key of new Set([...Object.keys(from), ...Object.keys(to)])) {
    const next = to[key];
    if (next === undefined) {
      if (from[key] !== undefined) patch[key] = null;
      continue;
    }
    const d = mergeDiff(from[key], next);
    if (d !== undefined) patch[key] = d;
  }
  return patch;
}

/** RFC 7386: patch applied to target (a new value; neither input is touched). */
function applyMergePatch<T>(target: T, patch: unknown): T {
  if (!isObject(patch)) return structuredClone(patch) as T;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [k, v] of Object.entries(patch)) {
    if (v === null) Reflect.deleteProperty(out, k);
    else out[k] = applyMergePatch(out[k], v);
  }
  return out as T;
}

export interface PatchScope {
  /** metadata fields compared (labels, annotations, finalizers, ...). */
  metadata?: readonly string[];
  /** Top-level fields compared: every key under it, or only those listed. */
  top?: Readonly<Record<string, 'all' | readonly string[]>>;
}

function pick(obj: unknown, keys: 'all' | readonly string[]): Record<string, unknown> {
  const rec = typeof obj === 'object' && obj !== null ? (obj as Record<string, unknown>) : {};
  if (keys === 'all') return rec;
  const out: Record<string, unknown> = {};
  for (const k of keys) if (rec[k] !== undefined) out[k] = rec[k];
  return out;
}

/** A top-level field of an object, undefined when it has none. */
const fieldOf = (obj: object, field: string): unknown => (isObject(obj) ? obj[field] : undefined);

/** The merge patch from old to desired within scope; undefined when nothing changes. */
export function scopedMergePatch<T extends KubeObject>(
  old: T,
  desired: T,
  scope: PatchScope,
): Record<string, unknown> | undefined {
  const patch: Record<string, unknown> = {};
  const meta = mergeDiff(
    pick(old.metadata, scope.metadata ?? []),
    pick(desired.metadata, scope.metadata ?? []),
  );
  for (const [field, keys] of Object.entries(scope.top ?? {})) {
    const d = mergeDiff(pick(fieldOf(old, field), keys), pick(fieldOf(desired, field), keys));
    if (d !== undefined) patch[field] = d;
  }
  if (meta !== undefined) patch['metadata'] = meta;
  return Object.keys(patch).length === 0 ? undefined : patch;
}

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
