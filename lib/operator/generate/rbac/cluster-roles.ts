/**
 * The ClusterRoles for users (KubeVirt's GetAllCluster) as the fork names them, with their rules renamed to the
 * internal names: the fork moves kubevirt.io:default, :admin, :edit, :view and instancetype.kubevirt.io:view under
 * kubevirt.internal.virtualization.deckhouse.io and keeps kubevirt.io:migrate; admin, edit and view still
 * aggregate into Kubernetes' own. Also the ClusterRole that lets a scraper GET /metrics from every component.
 */
import type { InstallConfig, Rendered } from '../../config/install-config.ts';
import { METRICS_READER_CLUSTER_ROLE } from '../names.ts';
import { granted } from './grants.ts';
import { KUBEVIRT_CLUSTER_ROLES, type KubeVirtClusterRole } from './kubevirt/cluster.ts';
import { clusterRole, clusterRoleBinding } from './objects.ts';
import { urlRule } from './policy.ts';

const FORK_DOMAIN = 'kubevirt.internal.virtualization.deckhouse.io';

/** KubeVirt's name → the fork's (3p-kubevirt rbac/cluster.go). */
const FORK_NAMES: Readonly<Record<string, string>> = {
  'kubevirt.io:default': `${FORK_DOMAIN}:default`,
  'kubevirt.io:admin': `${FORK_DOMAIN}:admin`,
  'kubevirt.io:edit': `${FORK_DOMAIN}:edit`,
  'kubevirt.io:view': `${FORK_DOMAIN}:view`,
  'instancetype.kubevirt.io:view': `instancetype.${FORK_DOMAIN}:view`,
  'kubevirt.io:migrate': 'kubevirt.io:migrate',
};

function forUsers(cfg: InstallConfig, kv: KubeVirtClusterRole): Rendered[] {
  const name = FORK_NAMES[kv.name] ?? kv.name;
  const role = clusterRole(
    cfg,
    { name, labels: kv.labels, ...(kv.annotations !== undefined && { annotations: kv.annotations }) },
    granted(kv.rules),
  );
  if (!kv.boundToAuthenticated) return [role];
  const binding = clusterRoleBinding(
    cfg,
    { name, annotations: { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } },
    { roleName: name, subject: { kind: 'Group', name: 'system:authenticated' } },
  );
  return [role, binding];
}

export function clusterRolesForUsers(cfg: InstallConfig): Rendered[] {
  return [
    ...KUBEVIRT_CLUSTER_ROLES.flatMap((kv) => forUsers(cfg, kv)),
    clusterRole(cfg, { name: METRICS_READER_CLUSTER_ROLE }, [urlRule(['/metrics'], 'get')]),
  ];
}
