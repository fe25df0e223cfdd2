/**
 * ValidatingAdmissionPolicies (spec.matchConstraints) and their bindings (spec.matchResources):
 * resourceRules, excludeResourceRules and objectSelector.
 */
import type { RewriteContext } from './context.ts';
import { updateLabelSelector } from './label-selector.ts';
import { updateArray, updateIn, type JsonRecord } from './json.ts';
import { rewriteResourceRules } from './resource-rules.ts';

function rewriteMatchResources(match: JsonRecord, ctx: RewriteContext): JsonRecord {
  let out = updateArray(match, 'resourceRules', (rules) => rewriteResourceRules(rules, ctx));
  out = updateArray(out, 'excludeResourceRules', (rules) => rewriteResourceRules(rules, ctx));
  return updateLabelSelector(out, 'objectSelector', ctx);
}

export function rewriteAdmissionPolicy(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateIn(obj, ['spec', 'matchConstraints'], (m) => rewriteMatchResources(m, ctx));
}

export function rewriteAdmissionPolicyBinding(obj: JsonRecord, ctx: RewriteContext): JsonRecord {
  return updateIn(obj, ['spec', 'matchResources'], (m) => rewriteMatchResources(m, ctx));
}
