/**
 * What a patch applies to, on the client (original) side: kind and apiVersion to rewrite partial bodies with,
 * and the CRD name for CRD patches (their names are found by metadata.name).
 */
import type { RuleIndex } from './rules/rule-index.ts';
import type { ApiTarget } from './target.ts';

export interface PatchTarget {
  readonly kind?: string;
  readonly apiVersion?: string;
  /** For CustomResourceDefinitions: the CRD name from the path. */
  readonly crdName?: string;
}

/** resource → [apiVersion, kind] for the resources whose kinds have kind-specific rewriting. */
const CORE_KINDS: ReadonlyMap<string, readonly [string, string]> = new Map([
  ['pods', ['v1', 'Pod']],
  ['services', ['v1', 'Service']],
  ['persistentvolumeclaims', ['v1', 'PersistentVolumeClaim']],
  ['events', ['v1', 'Event']],
  ['deployments', ['apps/v1', 'Deployment']],
  ['statefulsets', ['apps/v1', 'StatefulSet']],
  ['daemonsets', ['apps/v1', 'DaemonSet']],
  ['replicasets', ['apps/v1', 'ReplicaSet']],
  ['jobs', ['batch/v1', 'Job']],
  ['cronjobs', ['batch/v1', 'CronJob']],
  ['poddisruptionbudgets', ['policy/v1', 'PodDisruptionBudget']],
  ['clusterroles', ['rbac.authorization.k8s.io/v1', 'ClusterRole']],
  ['roles', ['rbac.authorization.k8s.io/v1', 'Role']],
  ['mutatingwebhookconfigurations', ['admissionregistration.k8s.io/v1', 'MutatingWebhookConfiguration']],
  ['validatingwebhookconfigurations', ['admissionregistration.k8s.io/v1', 'ValidatingWebhookConfiguration']],
  ['validatingadmissionpolicies', ['admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicy']],
  [
    'validatingadmissionpolicybindings',
    ['admissionregistration.k8s.io/v1', 'ValidatingAdmissionPolicyBinding'],
  ],
  ['servicemonitors', ['monitoring.coreos.com/v1', 'ServiceMonitor']],
]);

/** The target of a PATCH on the client side; {} (metadata only) for other subresources and unknown kinds. */
export function patchTargetOf(apiTarget: ApiTarget, rules: RuleIndex): PatchTarget {
  if (apiTarget.subresource !== '' && apiTarget.subresource !== 'status') return {};
  if (apiTarget.isCRD) {
    return { kind: 'CustomResourceDefinition', apiVersion: `${apiTarget.group}/${apiTarget.version}`, crdName: apiTarget.name };
  }
  const entry = rules.resourceByOriginal.get(`${apiTarget.group}/${apiTarget.resource}`);
  if (entry !== undefined) return { kind: entry.resource.kind, apiVersion: `${apiTarget.group}/${apiTarget.version}` };
  const core = CORE_KINDS.get(apiTarget.resource);
  return core === undefined ? {} : { apiVersion: core[0], kind: core[1] };
}
