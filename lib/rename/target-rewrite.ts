/**
 * Rewriting a parsed target: group and plural in `/apis/...` paths of resources with rules, CRD names, label and
 * field selectors. Paths without rules keep their raw text. Also: which targets carry bodies to rewrite.
 */
import type { RewriteContext } from './context.ts';
import { groupRuleOf, pluralOf, resourceEntryOf, rewriteCrdName } from './names.ts';
import { rewriteQuery } from './query.ts';
import type { RuleIndex } from './rules/rule-index.ts';
import { formatTargetPath, type ApiTarget } from './target.ts';

/**
 * Resources outside the rule set whose bodies are still rewritten (labels, selectors, owner references...)
 * (kube-api-rewriter target_request.go shouldRewriteResource). Namespaces are deliberately not among them.
 */
export const REWRITTEN_RESOURCES: ReadonlySet<string> = new Set([
  'nodes',
  'pods',
  'configmaps',
  'secrets',
  'services',
  'serviceaccounts',
  'mutatingwebhookconfigurations',
  'validatingwebhookconfigurations',
  'clusterroles',
  'roles',
  'rolebindings',
  'clusterrolebindings',
  'deployments',
  'statefulsets',
  'daemonsets',
  'replicasets',
  'jobs',
  'persistentvolumeclaims',
  'prometheusrules',
  'servicemonitors',
  'poddisruptionbudgets',
  'controllerrevisions',
  'apiservices',
  'validatingadmissionpolicies',
  'validatingadmissionpolicybindings',
  'events',
]);

function rewritePathParts(apiTarget: ApiTarget, ctx: RewriteContext): Partial<ApiTarget> | undefined {
  if (apiTarget.type !== 'apis') return undefined;
  if (apiTarget.isCRD) {
    const name = rewriteCrdName(apiTarget.name, ctx);
    return name === apiTarget.name ? undefined : { name };
  }
  const rule = groupRuleOf(apiTarget.group, ctx);
  if (rule === undefined) return undefined;
  const group = ctx.dir === 'rename' ? rule.renamed : rule.group;
  if (apiTarget.resource === '') return { group };
  const entry = resourceEntryOf(apiTarget.group, apiTarget.resource, ctx);
  return entry === undefined ? undefined : { group, resource: pluralOf(entry, ctx.dir, ctx.rules) };
}

/** The target with its path and query rewritten; the same target when nothing changes. */
export function rewriteTarget(t: ApiTarget, ctx: RewriteContext): ApiTarget {
  const query = rewriteQuery(t.query, { crd: t.isCRD, events: t.resource === 'events' }, ctx);
  const parts = rewritePathParts(t, ctx);
  if (parts === undefined && query === t.query) return t;
  const next: ApiTarget = { ...t, ...parts, query };
  return parts === undefined ? next : { ...next, path: formatTargetPath(next) };
}

/**
 * Whether request and response bodies of this target go through the rewriter: webhooks, discovery, CRDs,
 * resources of a group with rules (either side), and REWRITTEN_RESOURCES. Everything else passes untouched.
 */
export function shouldRewriteBodies(apiTarget: ApiTarget, rules: RuleIndex): boolean {
  switch (apiTarget.type) {
    case 'webhook':
      return true;
    case 'root':
    case 'unknown':
      return false;
    case 'core':
    case 'apis':
      if (apiTarget.isDiscovery || apiTarget.isCRD) return true;
      if (rules.groupByOriginal.has(apiTarget.group) || rules.groupByRenamed.has(apiTarget.group)) return true;
      return REWRITTEN_RESOURCES.has(apiTarget.resource);
  }
}
