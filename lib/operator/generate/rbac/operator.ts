/**
 * The operator's own RBAC (KubeVirt's GetAllOperator, for manifests/: whoever installs the operator applies
 * it): its ServiceAccount, ClusterRole and Role with their bindings, holding KubeVirt's rules for it as ours
 * grants them and those its own code needs beyond (its KubeVirt CR webhooks, its /metrics). As in KubeVirt, the
 * operator may grant only what it holds (the API server's escalation check), so its ClusterRole also holds every
 * rule of the ClusterRoles it installs and those of system:auth-delegator it binds virt-api to, and its Role
 * those of the Roles it installs.
 */
import type { InstallConfig, Rendered } from '../../config/install-config.ts';
import { SERVICE_ACCOUNT } from '../names.ts';
import { componentRbac } from './components.ts';
import { granted, operatorExtraRules } from './grants.ts';
import { AUTH_DELEGATION, KUBEVIRT_OPERATOR } from './kubevirt/operator.ts';
import { accountWithRoles } from './objects.ts';
import { distinctRules, type PolicyRule } from './policy.ts';

function rulesOf(objects: readonly Rendered[], kind: 'ClusterRole' | 'Role'): PolicyRule[] {
  return objects.filter((o) => o.kind === kind).flatMap((o) => o['rules'] as PolicyRule[]);
}

export function operatorRbac(cfg: InstallConfig): Rendered[] {
  const installed = componentRbac(cfg);
  return accountWithRoles(
    cfg,
    { name: SERVICE_ACCOUNT['virt-operator'], component: 'virt-operator' },
    {
      cluster: distinctRules([
        ...granted(KUBEVIRT_OPERATOR.cluster),
        ...operatorExtraRules(),
        ...rulesOf(installed, 'ClusterRole'),
        ...AUTH_DELEGATION,
      ]),
      namespaced: distinctRules([...granted(KUBEVIRT_OPERATOR.namespaced), ...rulesOf(installed, 'Role')]),
    },
  );
}
