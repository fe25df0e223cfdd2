/** ClusterRoles and Roles: rules (groups and resources) and the aggregation label selectors. */
import type { RewriteContext } from './context.ts';
import { rewriteLabelSelector } from './label-selector.ts';
import { mapRecords, updateArray, updateRecord, type JsonRecord } from './json.ts';
import { rewriteResourceRules } from './resource-rules.ts';

export function rewriteRole(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  const out = updateArray(obj, 'rules', (rules) => rewriteResourceRules(rules, ctx));
  return updateRecord(out, 'aggregationRule', (agg) =>
    updateArray(agg, 'clusterRoleSelectors', (sels) => mapRecords(sels, (s) => rewriteLabelSelector(s, ctx))),
  );
}
