/**
 * Test support for the RBAC generators: a rule as one line of text (`group res1,res2: verb1,verb2`, the core
 * group as `core`), the rules of a generated role, and a small RBAC authorizer over generated objects (the
 * matching of Kubernetes' rbac/v1 authorizer: `*` in verbs, groups and resources or before a subresource,
 * resourceNames, bindings of ServiceAccounts and of the groups every ServiceAccount is in) to check what a
 * role may do.
 */
import type { Rendered } from '../../../config/install-config.ts';
import type { PolicyRule } from '../policy.ts';

export function fmtRule(r: PolicyRule): string {
  const verbs = r.verbs.join(',');
  if (r.nonResourceURLs !== undefined) return `url ${r.nonResourceURLs.join(',')}: ${verbs}`;
  const groups = (r.apiGroups ?? []).map((g) => (g === '' ? 'core' : g)).join(',');
  const names = r.resourceNames === undefined ? '' : ` [${r.resourceNames.join(',')}]`;
  return `${groups} ${(r.resources ?? []).join(',')}: ${verbs}${names}`;
}

export function objectOf(objects: readonly Rendered[], kind: string, name: string): Rendered {
  const found = objects.find((o) => o.kind === kind && o.metadata.name === name);
  if (found === undefined) throw new Error(`no ${kind} ${name}`);
  return found;
}

export function rulesOf(
  objects: readonly Rendered[],
  kind: 'ClusterRole' | 'Role',
  name: string,
): PolicyRule[] {
  return objectOf(objects, kind, name)['rules'] as PolicyRule[];
}

/** A request for a resource (with `/subresource`) of a group; cluster-wide without a namespace. */
export interface ResourceRequest {
  readonly verb: string;
  readonly group: string;
  readonly resource: string;
  readonly namespace?: string;
  readonly name?: string;
}

/** One API request: for a resource, or for a non-resource URL. */
export type Request = ResourceRequest | { readonly verb: string; readonly url: string };

const anyOr = (list: readonly string[] | undefined, v: string): boolean =>
  list !== undefined && (list.includes('*') || list.includes(v));

function resourceMatches(list: readonly string[] | undefined, resource: string): boolean {
  const slash = resource.indexOf('/');
  return anyOr(list, resource) || (slash > 0 && (list ?? []).includes(`*${resource.slice(slash)}`));
}

/** Whether the rule allows the request; a request without a name needs a rule without resourceNames. */
function ruleAllows(r: PolicyRule, q: Request): boolean {
  if (!anyOr(r.verbs, q.verb)) return false;
  if ('url' in q)
    return (r.nonResourceURLs ?? []).some(
      (u) => u === q.url || (u.endsWith('*') && q.url.startsWith(u.slice(0, -1))),
    );
  if (!anyOr(r.apiGroups, q.group) || !resourceMatches(r.resources, q.resource)) return false;
  if (r.resourceNames === undefined || r.resourceNames.length === 0) return true;
  return q.name !== undefined && r.resourceNames.includes(q.name);
}

/** Every request a rule allows is allowed by one of `owner` (the API server's escalation check). */
export function covers(owner: readonly PolicyRule[], r: PolicyRule): boolean {
  const names = r.resourceNames ?? [undefined];
  const requests = r.verbs.flatMap((verb): Request[] => [
    ...(r.nonResourceURLs ?? []).map((url) => ({ verb, url })),
    ...(r.apiGroups ?? []).flatMap((group) =>
      (r.resources ?? []).flatMap((resource) =>
        names.map((name) => ({ verb, group, resource, ...(name !== undefined && { name }) })),
      ),
    ),
  ]);
  return requests.every((q) => owner.some((o) => ruleAllows(o, q)));
}

interface Binding {
  readonly roleRef: { readonly kind: string; readonly name: string };
  readonly subjects: readonly { readonly kind: string; readonly name: string; readonly namespace?: string }[];
}

const bindingOf = (o: Rendered): Binding => ({
  roleRef: o['roleRef'] as Binding['roleRef'],
  subjects: o['subjects'] as Binding['subjects'],
});

/** Rules of ClusterRoles that exist in every cluster and that generated objects bind to. */
const BUILT_IN: Readonly<Record<string, readonly PolicyRule[]>> = {
  'system:auth-delegator': [
    { apiGroups: ['authentication.k8s.io'], resources: ['tokenreviews'], verbs: ['create'] },
    { apiGroups: ['authorization.k8s.io'], resources: ['subjectaccessreviews'], verbs: ['create'] },
  ],
};

/** Whether ServiceAccount `account` of namespace `namespace` may make the request, by the given objects. */
export function allowed(
  objects: readonly Rendered[],
  account: { readonly namespace: string; readonly name: string },
  q: Request,
): boolean {
  const groups = [
    'system:authenticated',
    'system:serviceaccounts',
    `system:serviceaccounts:${account.namespace}`,
  ];
  const isSubject = (s: Binding['subjects'][number]): boolean =>
    s.kind === 'ServiceAccount'
      ? s.name === account.name && s.namespace === account.namespace
      : s.kind === 'Group' && groups.includes(s.name);
  const namespace = 'url' in q ? undefined : q.namespace;
  const inScope = (o: Rendered): boolean =>
    o.kind.startsWith('Cluster') || o.metadata.namespace === namespace;
  const rules = objects
    .filter((o) => (o.kind === 'ClusterRoleBinding' || o.kind === 'RoleBinding') && inScope(o))
    .map(bindingOf)
    .filter((b) => b.subjects.some(isSubject))
    .flatMap(({ roleRef: ref }) => {
      const role = objects.find((o) => o.kind === ref.kind && o.metadata.name === ref.name && inScope(o));
      return role === undefined ? (BUILT_IN[ref.name] ?? []) : (role['rules'] as PolicyRule[]);
    });
  return rules.some((r) => ruleAllows(r, q));
}
