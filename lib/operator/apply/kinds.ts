/**
 * The kinds the operator installs, by apiVersion and kind, with their resources (KubeVirt's install strategy
 * holds the same set: pkg/virt-operator/resource/generate/install/strategy.go), in the order they are created:
 * identities and permissions first, then configuration and certificates, Services, workloads, and last the
 * registrations that send traffic to them. Deletion runs in reverse.
 */
import { KvError } from '../../kernel/errors/errors.ts';
import type { GroupVersionResource } from '../../kernel/kube/types.ts';

const gvr = (
  apiVersion: string,
  resource: string,
  kind: string,
  namespaced: boolean,
): GroupVersionResource => {
  const [group, version] = apiVersion.includes('/') ? apiVersion.split('/') : ['', apiVersion];
  return { group: group ?? '', version: version ?? '', resource, kind, namespaced };
};

export const INSTALLED_KINDS: readonly GroupVersionResource[] = [
  gvr('v1', 'serviceaccounts', 'ServiceAccount', true),
  gvr('rbac.authorization.k8s.io/v1', 'clusterroles', 'ClusterRole', false),
  gvr('rbac.authorization.k8s.io/v1', 'clusterrolebindings', 'ClusterRoleBinding', false),
  gvr('rbac.authorization.k8s.io/v1', 'roles', 'Role', true),
  gvr('rbac.authorization.k8s.io/v1', 'rolebindings', 'RoleBinding', true),
  gvr('v1', 'secrets', 'Secret', true),
  gvr('v1', 'configmaps', 'ConfigMap', true),
  gvr('v1', 'services', 'Service', true),
  gvr('policy/v1', 'poddisruptionbudgets', 'PodDisruptionBudget', true),
  gvr('apps/v1', 'deployments', 'Deployment', true),
  gvr('apps/v1', 'daemonsets', 'DaemonSet', true),
  gvr(
    'admissionregistration.k8s.io/v1',
    'validatingwebhookconfigurations',
    'ValidatingWebhookConfiguration',
    false,
  ),
  gvr(
    'admissionregistration.k8s.io/v1',
    'mutatingwebhookconfigurations',
    'MutatingWebhookConfiguration',
    false,
  ),
  gvr('apiregistration.k8s.io/v1', 'apiservices', 'APIService', false),
];

export const apiVersionOf = (g: GroupVersionResource): string =>
  g.group === '' ? g.version : `${g.group}/${g.version}`;

/** The resource of an object the operator installs; anything else is a programming error. */
export function installedKind(
  apiVersion: string | undefined,
  kind: string | undefined,
): GroupVersionResource {
  const found = INSTALLED_KINDS.find((g) => g.kind === kind && apiVersionOf(g) === apiVersion);
  if (found === undefined)
    throw new KvError('KV_ERR_INTERNAL', `the operator does not install ${apiVersion ?? '?'} ${kind ?? '?'}`);
  return found;
}

/** Where an object stands in the creation order (its kind's index). */
export function creationRank(apiVersion: string | undefined, kind: string | undefined): number {
  return INSTALLED_KINDS.indexOf(installedKind(apiVersion, kind));
}
