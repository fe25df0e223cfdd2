/**
 * Name mappings: group, apiVersion, kind/listKind, resource plural (with a subresource suffix), short names,
 * categories and CRD names `<plural>.<group>`. Unknown names come back unchanged.
 */
import type { RewriteContext } from './context.ts';
import { joinKey, type KindEntry, type ResourceEntry, type RuleIndex } from './rules/rule-index.ts';
import type { Direction, GroupRule } from './rules/types.ts';

export function groupRuleOf(group: string, ctx: RewriteContext): GroupRule | undefined {
  return ctx.dir === 'rename' ? ctx.rules.groupByOriginal.get(group) : ctx.rules.groupByRenamed.get(group);
}

export function rewriteGroup(group: string, ctx: RewriteContext): string {
  const rule = groupRuleOf(group, ctx);
  if (rule === undefined) return group;
  return ctx.dir === 'rename' ? rule.renamed : rule.group;
}

/** 'v1' → ['', 'v1']; 'kubevirt.io/v1' → ['kubevirt.io', 'v1']. */
export function splitApiVersion(apiVersion: string): readonly [group: string, version: string] {
  const slash = apiVersion.indexOf('/');
  return slash === -1 ? ['', apiVersion] : [apiVersion.slice(0, slash), apiVersion.slice(slash + 1)];
}

export function rewriteApiVersion(apiVersion: string, ctx: RewriteContext): string {
  const [group, version] = splitApiVersion(apiVersion);
  if (group === '') return apiVersion;
  const next = rewriteGroup(group, ctx);
  return next === group ? apiVersion : `${next}/${version}`;
}

/** The rule for a kind or list kind, looked up on the side the direction starts from. */
export function kindEntryOf(group: string, kind: string, ctx: RewriteContext): KindEntry | undefined {
  const map = ctx.dir === 'rename' ? ctx.rules.kindByOriginal : ctx.rules.kindByRenamed;
  return map.get(joinKey(group, kind));
}

/** Group and kind on the other side; undefined when the pair has no rule. */
export function rewriteGroupKind(
  group: string,
  kind: string,
  ctx: RewriteContext,
): { group: string; kind: string } | undefined {
  const entry = kindEntryOf(group, kind, ctx);
  if (entry === undefined) return undefined;
  const original = entry.isList ? entry.resource.listKind : entry.resource.kind;
  return ctx.dir === 'rename'
    ? { group: entry.group.renamed, kind: ctx.rules.rules.kindPrefix + original }
    : { group: entry.group.group, kind: original };
}

/** The rule for a plural resource name (a '/subresource' suffix is ignored). */
export function resourceEntryOf(
  group: string,
  resource: string,
  ctx: RewriteContext,
): ResourceEntry | undefined {
  const slash = resource.indexOf('/');
  const plural = slash === -1 ? resource : resource.slice(0, slash);
  const map = ctx.dir === 'rename' ? ctx.rules.resourceByOriginal : ctx.rules.resourceByRenamed;
  return map.get(joinKey(group, plural));
}

export function pluralOf(entry: ResourceEntry, dir: Direction, rules: RuleIndex): string {
  return dir === 'rename' ? rules.rules.resourceTypePrefix + entry.resource.plural : entry.resource.plural;
}

/** 'virtualmachines/status' in kubevirt.io → 'internalvirtualizationvirtualmachines/status'. */
export function rewriteResource(group: string, resource: string, ctx: RewriteContext): string {
  const entry = resourceEntryOf(group, resource, ctx);
  if (entry === undefined) return resource;
  const slash = resource.indexOf('/');
  const suffix = slash === -1 ? '' : resource.slice(slash);
  return pluralOf(entry, ctx.dir, ctx.rules) + suffix;
}

export function rewriteShortName(shortName: string, ctx: RewriteContext): string {
  const prefix = ctx.rules.rules.shortNamePrefix;
  if (ctx.dir === 'rename') return prefix + shortName;
  return shortName.startsWith(prefix) ? shortName.slice(prefix.length) : shortName;
}

/** The resource a short name stands for ('vm' on rename, 'intvirtvm' on restore). */
export function shortNameEntryOf(shortName: string, ctx: RewriteContext): ResourceEntry | undefined {
  return (ctx.dir === 'rename' ? ctx.rules.shortNameByOriginal : ctx.rules.shortNameByRenamed).get(shortName);
}

/** Renamed resources are in the rule set's categories; restored ones get their own back. Empty stays empty. */
export function rewriteCategories(
  categories: readonly unknown[],
  entry: ResourceEntry,
  ctx: RewriteContext,
): unknown[] {
  if (categories.length === 0) return [];
  return ctx.dir === 'rename' ? [...ctx.rules.rules.categories] : [...entry.resource.categories];
}

function crdNameOf(plural: string, group: string): string {
  return `${plural}.${group}`;
}

/** The rule for a CRD name `<plural>.<group>`, on the side the direction starts from. */
export function crdEntryOf(name: string, ctx: RewriteContext): ResourceEntry | undefined {
  const dot = name.indexOf('.');
  if (dot <= 0) return undefined;
  return resourceEntryOf(name.slice(dot + 1), name.slice(0, dot), ctx);
}

/** `virtualmachines.kubevirt.io` ↔ `internalvirtualizationvirtualmachines.internal.virtualization.deckhouse.io`. */
export function rewriteCrdName(name: string, ctx: RewriteContext): string {
  const entry = crdEntryOf(name, ctx);
  if (entry === undefined) return name;
  const group = ctx.dir === 'rename' ? entry.group.renamed : entry.group.group;
  return crdNameOf(pluralOf(entry, ctx.dir, ctx.rules), group);
}
