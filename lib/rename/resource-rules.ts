/**
 * Rules that name API groups and resources: RBAC PolicyRules, webhook RuleWithOperations and admission policy
 * resourceRules. Groups with rules are renamed; resources (with `/subresource`) are renamed when one of the
 * rule's groups (or '*') has them. '*' stays '*'.
 */
import type { RewriteContext } from './context.ts';
import { mapRecords, mapStrings, updateArray, type JsonRecord } from './json.ts';
import { pluralOf, resourceEntryOf, rewriteGroup } from './names.ts';

function sourceGroups(apiGroups: readonly unknown[], ctx: RewriteContext): string[] {
  const known = ctx.dir === 'rename' ? ctx.rules.groupByOriginal : ctx.rules.groupByRenamed;
  if (apiGroups.includes('*')) return [...known.keys()];
  return apiGroups.filter((g): g is string => typeof g === 'string' && known.has(g));
}

function rewriteRuleResource(resource: string, groups: readonly string[], ctx: RewriteContext): string {
  if (resource === '' || resource === '*' || resource.startsWith('*/')) return resource;
  for (const group of groups) {
    const entry = resourceEntryOf(group, resource, ctx);
    if (entry === undefined) continue;
    const slash = resource.indexOf('/');
    return pluralOf(entry, ctx.dir, ctx.rules) + (slash === -1 ? '' : resource.slice(slash));
  }
  return resource;
}

function rewriteResourceRule(rule: JsonRecord, ctx: RewriteContext): JsonRecord {
  const apiGroups = rule['apiGroups'];
  if (!Array.isArray(apiGroups)) return rule;
  const groups = sourceGroups(apiGroups, ctx);
  if (groups.length === 0) return rule;
  const out = updateArray(rule, 'apiGroups', (gs) => mapStrings(gs, (g) => rewriteGroup(g, ctx)));
  return updateArray(out, 'resources', (rs) => mapStrings(rs, (r) => rewriteRuleResource(r, groups, ctx)));
}

export function rewriteResourceRules(rules: unknown[], ctx: RewriteContext): unknown[] {
  return mapRecords(rules, (rule) => rewriteResourceRule(rule, ctx));
}
