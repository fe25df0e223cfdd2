/**
 * Merge patches between an object read from the cache and the object a sync wants, limited to the fields the
 * controller owns (writes.ts adds metadata.resourceVersion as the precondition).
 */
import type { KubeObject } from '../../kernel/kube/types.ts';
import { mergeDiff } from './merge-diff.ts';

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
    const d = mergeDiff(
      pick((old as unknown as Record<string, unknown>)[field], keys),
      pick((desired as unknown as Record<string, unknown>)[field], keys),
    );
    if (d !== undefined) patch[field] = d;
  }
  if (meta !== undefined) patch['metadata'] = meta;
  return Object.keys(patch).length === 0 ? undefined : patch;
}
