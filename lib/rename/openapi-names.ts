/**
 * The names an OpenAPI document gives the renamed kinds, restored (pure): schema names as kube-apiserver builds
 * them for a CRD (reversed group, version, kind: io.deckhouse.virtualization.internal.v1.InternalVirtualization
 * VirtualMachine → io.kubevirt.v1.VirtualMachine, as the KubeVirt CRD would get), resource paths, and the
 * operation ids and tags derived from group and kind. SKIP marks what the client must not see: a kind or
 * resource of a renamed group without a rule, and anything of an original group the server itself serves
 * (the restored one takes its place, as in discovery.ts).
 */
import type { RewriteContext } from './context.ts';
import { SKIP, type Skip } from './json.ts';
import { resourceEntryOf, rewriteGroupKind } from './names.ts';

/** 'internal.virtualization.deckhouse.io' ↔ 'io.deckhouse.virtualization.internal'. */
function reverseDomain(name: string): string {
  return name.split('.').reverse().join('.');
}

export function restoreSchemaName(name: string, ctx: RewriteContext): string | Skip {
  const parts = name.split('.');
  if (parts.length < 3) return name;
  const kind = parts[parts.length - 1] ?? '';
  const version = parts[parts.length - 2] ?? '';
  const group = reverseDomain(parts.slice(0, -2).join('.'));
  if (ctx.rules.groupByOriginal.has(group)) return SKIP;
  if (!ctx.rules.groupByRenamed.has(group)) return name;
  const next = rewriteGroupKind(group, kind, ctx);
  return next === undefined ? SKIP : `${reverseDomain(next.group)}.${version}.${next.kind}`;
}

/** Index of the resource segment in `['', 'apis', g, v, (watch,) (namespaces, {namespace},) plural, ...]`. */
function resourceIndex(segs: readonly string[]): number {
  let i = 4;
  if (segs[i] === 'watch') i++;
  if (segs[i] === 'namespaces' && segs.length > i + 2) i += 2;
  return i;
}

/** `/apis/<renamed>/<v>/namespaces/{namespace}/<prefixed plural>/...` → `/apis/<group>/<v>/.../<plural>/...`. */
export function restoreApiPath(path: string, ctx: RewriteContext): string | Skip {
  const segs = path.split('/');
  const group = segs[2];
  if (segs[1] !== 'apis' || group === undefined) return path;
  if (ctx.rules.groupByOriginal.has(group)) return SKIP;
  const rule = ctx.rules.groupByRenamed.get(group);
  if (rule === undefined) return path;
  const out = [...segs];
  out[2] = rule.group;
  const i = resourceIndex(segs);
  const resource = segs[i];
  if (resource === undefined || resource === '') return out.join('/');
  const entry = resourceEntryOf(group, resource, ctx);
  if (entry === undefined) return SKIP;
  out[i] = entry.resource.plural;
  return out.join('/');
}

/** 'internal.virtualization.deckhouse.io' → 'InternalVirtualizationDeckhouseIo' (operation ids). */
function upperCamel(group: string): string {
  return group
    .split(/[.-]/)
    .map((w) => w.charAt(0).toUpperCase() + w.slice(1))
    .join('');
}

function lowerCamel(group: string): string {
  const s = upperCamel(group);
  return s.charAt(0).toLowerCase() + s.slice(1);
}

/**
 * Group and kind names in the human-readable strings of an operation or schema (operationId, tags, description):
 * 'listInternalVirtualizationDeckhouseIoV1NamespacedInternalVirtualizationVirtualMachine' →
 * 'listKubevirtIoV1NamespacedVirtualMachine'. Longer groups first: one group's name can end another's.
 */
export function restoreText(text: string, ctx: RewriteContext): string {
  const groups = [...ctx.rules.groupByRenamed.values()].sort((a, b) => b.renamed.length - a.renamed.length);
  let out = text;
  for (const g of groups) {
    out = out
      .replaceAll(upperCamel(g.renamed), upperCamel(g.group))
      .replaceAll(lowerCamel(g.renamed), lowerCamel(g.group))
      .replaceAll(g.renamed, g.group);
  }
  const { kindPrefix, resourceTypePrefix } = ctx.rules.rules;
  return out.replaceAll(kindPrefix, '').replaceAll(resourceTypePrefix, '');
}
