/**
 * The RBAC the operator installs for virt-api, virt-controller and virt-handler (KubeVirt's GetAllApiServer,
 * GetAllController, GetAllHandler) under the fork's names, with the users' ClusterRoles (cluster-roles.ts):
 * each component's ServiceAccount, ClusterRole and Role with their bindings, holding KubeVirt's rules as ours
 * grants them (grants.ts), and virt-api's binding to system:auth-delegator.
 */
import type { Component, InstallConfig, Rendered } from '../../config/install-config.ts';
import { SERVICE_ACCOUNT } from '../names.ts';
import { clusterRolesForUsers } from './cluster-roles.ts';
import { extraRules, granted } from './grants.ts';
import { KUBEVIRT_API } from './kubevirt/apiserver.ts';
import { KUBEVIRT_CONTROLLER } from './kubevirt/controller.ts';
import { KUBEVIRT_HANDLER } from './kubevirt/handler.ts';
import type { KubeVirtRbac } from './kubevirt/types.ts';
import { accountWithRoles, clusterRoleBinding, installAccount } from './objects.ts';

const KUBEVIRT_RULES: Readonly<Record<Component, KubeVirtRbac>> = {
  'virt-api': KUBEVIRT_API,
  'virt-controller': KUBEVIRT_CONTROLLER,
  'virt-handler': KUBEVIRT_HANDLER,
};

/** The fork's name of KubeVirt's kubevirt-apiserver-auth-delegator binding. */
const API_AUTH_DELEGATOR_BINDING = `${SERVICE_ACCOUNT['virt-api']}-auth-delegator`;

/** A component's rules as ours grants them: KubeVirt's adjusted, then the extra ones. */
function componentRules(component: Component): KubeVirtRbac {
  const kv = KUBEVIRT_RULES[component];
  const extra = extraRules(component);
  return {
    cluster: [...granted(kv.cluster), ...extra.cluster],
    namespaced: [...granted(kv.namespaced), ...extra.namespaced],
  };
}

function componentObjects(cfg: InstallConfig, component: Component): Rendered[] {
  const name = SERVICE_ACCOUNT[component];
  return accountWithRoles(cfg, { name, component }, componentRules(component));
}

/** Everything RBAC the operator installs (it applies these with its own rights, operator.ts). */
export function componentRbac(cfg: InstallConfig): Rendered[] {
  const api = SERVICE_ACCOUNT['virt-api'];
  return [
    ...componentObjects(cfg, 'virt-api'),
    clusterRoleBinding(
      cfg,
      { name: API_AUTH_DELEGATOR_BINDING, component: 'virt-api' },
      { roleName: 'system:auth-delegator', subject: installAccount(cfg, api) },
    ),
    ...componentObjects(cfg, 'virt-controller'),
    ...componentObjects(cfg, 'virt-handler'),
    ...clusterRolesForUsers(cfg),
  ];
}
