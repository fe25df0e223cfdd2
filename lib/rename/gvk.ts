/** Object references: `{apiVersion, kind}` (ownerReferences, involvedObject) and `{apiGroup, kind}` (dataSourceRef). */
import type { RewriteContext } from './context.ts';
import { getString, type JsonRecord } from './json.ts';
import { rewriteGroupKind, splitApiVersion } from './names.ts';

export function rewriteVersionKindRef<T extends JsonRecord>(ref: T, ctx: RewriteContext): T {
  const apiVersion = getString(ref, 'apiVersion');
  const kind = getString(ref, 'kind');
  if (apiVersion === undefined || kind === undefined) return ref;
  const [group, version] = splitApiVersion(apiVersion);
  if (group === '') return ref;
  const next = rewriteGroupKind(group, kind, ctx);
  if (next === undefined) return ref;
  return { ...ref, apiVersion: `${next.group}/${version}`, kind: next.kind };
}

export function rewriteGroupKindRef<T extends JsonRecord>(ref: T, ctx: RewriteContext): T {
  const group = getString(ref, 'apiGroup');
  const kind = getString(ref, 'kind');
  if (group === undefined || kind === undefined) return ref;
  const next = rewriteGroupKind(group, kind, ctx);
  if (next === undefined) return ref;
  return { ...ref, apiGroup: next.group, kind: next.kind };
}
