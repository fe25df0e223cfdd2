/**
 * RBAC PolicyRules as the generators write them, a terse constructor for the transcriptions of KubeVirt's rules
 * (pkg/virt-operator/resource/generate/rbac, tag v1.6.2), and `renamed`: a rule with its kubevirt.io groups and
 * resources turned into the internal names the API server stores and checks, through the rewriter's own rules
 * (the fork's operator writes its roles through kube-api-rewriter, which renames them the same way).
 */
import { KUBEVIRT_RENAME } from '../../../kubevirt/internal-gvr.ts';
import { rewriteDocument } from '../../../rename/index.ts';

export const RBAC_GROUP = 'rbac.authorization.k8s.io';
export const RBAC_API_VERSION = `${RBAC_GROUP}/v1`;

export interface PolicyRule {
  readonly apiGroups?: readonly string[];
  readonly resources?: readonly string[];
  readonly resourceNames?: readonly string[];
  readonly nonResourceURLs?: readonly string[];
  readonly verbs: readonly string[];
}

/** The core API group. */
export const CORE = '';

/** One group, its resources, space-separated verbs and, when given, the only object names it allows. */
export function rule(
  group: string,
  resources: readonly string[],
  verbs: string,
  resourceNames?: readonly string[],
): PolicyRule {
  return {
    apiGroups: [group],
    resources,
    ...(resourceNames !== undefined && { resourceNames }),
    verbs: verbs.split(' '),
  };
}

/** A rule over non-resource URLs (`/metrics`). */
export function urlRule(urls: readonly string[], verbs: string): PolicyRule {
  return { nonResourceURLs: urls, verbs: verbs.split(' ') };
}

interface RoleStub {
  rules: PolicyRule[];
}

/**
 * The rule as the cluster stores the resources: kubevirt.io and its sibling groups renamed with their resources
 * (and `/subresource`), every other group (core, apps, subresources.kubevirt.io, …) as it was; `*` stays `*`.
 */
export function renamed(r: PolicyRule): PolicyRule {
  const stub = { apiVersion: RBAC_API_VERSION, kind: 'ClusterRole', metadata: { name: 'rule' }, rules: [r] };
  const [out] = (rewriteDocument(stub, KUBEVIRT_RENAME) as RoleStub).rules;
  return out ?? r;
}

/** Rules without exact repeats, first occurrence kept (a union of several roles' rules). */
export function distinctRules(rules: readonly PolicyRule[]): PolicyRule[] {
  const seen = new Set<string>();
  return rules.filter((r) => {
    const key = JSON.stringify(r);
    if (seen.has(key)) return false;
    seen.add(key);
    return true;
  });
}
