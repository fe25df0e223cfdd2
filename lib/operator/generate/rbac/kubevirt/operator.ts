/**
 * virt-operator's own rules as KubeVirt grants them (pkg/virt-operator/resource/generate/rbac/operator.go,
 * NewOperatorClusterRole and NewOperatorRole before the components' rules are appended, and the rules of
 * system:auth-delegator it adds so it may bind virt-api to that role; tag v1.6.2), in KubeVirt's names.
 */
import { CORE, rule, type PolicyRule } from '../policy.ts';
import type { KubeVirtRbac } from './types.ts';

const MANAGE = 'get list watch create delete update patch';

export const KUBEVIRT_OPERATOR: KubeVirtRbac = {
  cluster: [
    rule('kubevirt.io', ['kubevirts'], 'get list watch patch update patch'),
    rule(
      CORE,
      ['serviceaccounts', 'services', 'endpoints', 'pods/exec'],
      'get list watch create update delete patch',
    ),
    rule(CORE, ['configmaps'], 'patch delete'),
    rule('batch', ['jobs'], 'get list watch create delete patch'),
    rule('apps', ['controllerrevisions'], 'watch list create delete patch'),
    rule('apps', ['deployments', 'daemonsets'], 'get list watch create delete patch'),
    rule(
      'rbac.authorization.k8s.io',
      ['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'],
      'get list watch create delete patch update',
    ),
    rule('apiextensions.k8s.io', ['customresourcedefinitions'], 'get list watch create delete patch'),
    rule('security.openshift.io', ['securitycontextconstraints'], 'create get list watch'),
    rule('security.openshift.io', ['securitycontextconstraints'], 'get patch update', ['privileged']),
    rule('security.openshift.io', ['securitycontextconstraints'], 'get list watch update delete', [
      'kubevirt-handler',
      'kubevirt-controller',
    ]),
    rule(
      'admissionregistration.k8s.io',
      [
        'validatingwebhookconfigurations',
        'mutatingwebhookconfigurations',
        'validatingadmissionpolicybindings',
        'validatingadmissionpolicies',
      ],
      MANAGE,
    ),
    rule('apiregistration.k8s.io', ['apiservices'], MANAGE),
    rule('monitoring.coreos.com', ['servicemonitors', 'prometheusrules'], MANAGE),
    rule(CORE, ['namespaces'], 'get list watch patch'),
  ],
  namespaced: [
    rule(CORE, ['secrets'], 'create get list watch patch delete', [
      'kubevirt-ca',
      'kubevirt-export-ca',
      'kubevirt-virt-handler-certs',
      'kubevirt-virt-handler-server-certs',
      'kubevirt-operator-certs',
      'kubevirt-virt-api-certs',
      'kubevirt-controller-certs',
      'kubevirt-exportproxy-certs',
      'kubevirt-synchronization-controller-certs',
      'kubevirt-synchronization-controller-server-certs',
    ]),
    rule(CORE, ['configmaps'], 'create get list watch patch delete'),
    rule('route.openshift.io', ['routes'], 'create get list watch patch delete'),
    rule('route.openshift.io', ['routes/custom-host'], 'create'),
    rule('coordination.k8s.io', ['leases'], 'get list watch delete update create patch'),
  ],
};

/** What system:auth-delegator grants: the operator holds it to bind virt-api to that ClusterRole. */
export const AUTH_DELEGATION: readonly PolicyRule[] = [
  rule('authentication.k8s.io', ['tokenreviews'], 'create'),
  rule('authorization.k8s.io', ['subjectaccessreviews'], 'create'),
];
