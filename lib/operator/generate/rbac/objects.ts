/**
 * The RBAC objects every generator here returns, with the install's metadata (metadataFor): ServiceAccounts,
 * ClusterRoles and Roles, and bindings of a role to one of the install's ServiceAccounts or to a group
 * (KubeVirt's rbac/*.go build the same objects one function each). Each object owns its rules (copies): a
 * caller may patch one without touching another.
 */
import type { InstallConfig, Rendered } from '../../config/install-config.ts';
import { metadataFor, type MetaOptions } from '../meta.ts';
import { RBAC_API_VERSION, RBAC_GROUP, type PolicyRule } from './policy.ts';

/** What metadataFor takes, without clusterScoped: each builder knows its own scope. */
type RbacMeta = Omit<MetaOptions, 'clusterScoped'>;

type Subject =
  | { readonly kind: 'ServiceAccount'; readonly name: string; readonly namespace: string }
  | { readonly kind: 'Group'; readonly name: string };

function serviceAccount(cfg: InstallConfig, meta: RbacMeta): Rendered {
  return { apiVersion: 'v1', kind: 'ServiceAccount', metadata: metadataFor(cfg, meta) };
}

export function clusterRole(cfg: InstallConfig, meta: RbacMeta, rules: readonly PolicyRule[]): Rendered {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRole',
    metadata: metadataFor(cfg, { ...meta, clusterScoped: true }),
    rules: structuredClone(rules),
  };
}

function role(cfg: InstallConfig, meta: RbacMeta, rules: readonly PolicyRule[]): Rendered {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'Role',
    metadata: metadataFor(cfg, meta),
    rules: structuredClone(rules),
  };
}

/** The install's ServiceAccount `name`, as a binding's subject. */
export function installAccount(cfg: InstallConfig, name: string): Subject {
  return { kind: 'ServiceAccount', name, namespace: cfg.namespace };
}

function subjectJson(s: Subject): Record<string, string> {
  return s.kind === 'Group' ? { kind: 'Group', apiGroup: RBAC_GROUP, name: s.name } : { ...s };
}

/** A ClusterRoleBinding of the ClusterRole `roleName` to `subject`. */
export function clusterRoleBinding(
  cfg: InstallConfig,
  meta: RbacMeta,
  binding: { readonly roleName: string; readonly subject: Subject },
): Rendered {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'ClusterRoleBinding',
    metadata: metadataFor(cfg, { ...meta, clusterScoped: true }),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'ClusterRole', name: binding.roleName },
    subjects: [subjectJson(binding.subject)],
  };
}

/** A RoleBinding, in the install namespace, of the Role `roleName` there to `subject`. */
function roleBinding(
  cfg: InstallConfig,
  meta: RbacMeta,
  binding: { readonly roleName: string; readonly subject: Subject },
): Rendered {
  return {
    apiVersion: RBAC_API_VERSION,
    kind: 'RoleBinding',
    metadata: metadataFor(cfg, meta),
    roleRef: { apiGroup: RBAC_GROUP, kind: 'Role', name: binding.roleName },
    subjects: [subjectJson(binding.subject)],
  };
}

/**
 * A ServiceAccount with its ClusterRole, Role and their bindings, all named `name` (KubeVirt names every part of a
 * component's RBAC after its ServiceAccount); a Role and its binding only when there are namespaced rules.
 */
export function accountWithRoles(
  cfg: InstallConfig,
  o: { readonly name: string; readonly component: string },
  rules: { readonly cluster: readonly PolicyRule[]; readonly namespaced: readonly PolicyRule[] },
): Rendered[] {
  const meta = { name: o.name, component: o.component };
  const binding = { roleName: o.name, subject: installAccount(cfg, o.name) };
  return [
    serviceAccount(cfg, meta),
    clusterRole(cfg, meta, rules.cluster),
    clusterRoleBinding(cfg, meta, binding),
    ...(rules.namespaced.length === 0
      ? []
      : [role(cfg, meta, rules.namespaced), roleBinding(cfg, meta, binding)]),
  ];
}
