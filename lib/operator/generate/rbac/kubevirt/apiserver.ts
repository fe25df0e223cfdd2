/**
 * virt-api's rules as KubeVirt grants them (pkg/virt-operator/resource/generate/rbac/apiserver.go,
 * newApiServerClusterRole and newApiServerRole, tag v1.6.2), in KubeVirt's names. Its TokenReviews and
 * SubjectAccessReviews come from the binding to system:auth-delegator, not from these rules.
 */
import { CORE, rule } from '../policy.ts';
import { INSTANCETYPE_RESOURCES, type KubeVirtRbac } from './types.ts';

export const KUBEVIRT_API: KubeVirtRbac = {
  cluster: [
    rule(CORE, ['pods'], 'get list delete patch'),
    rule('kubevirt.io', ['virtualmachines', 'virtualmachineinstances'], 'get list watch patch update'),
    rule(CORE, ['persistentvolumeclaims'], 'get list'),
    rule('kubevirt.io', ['virtualmachines/status'], 'patch'),
    rule('kubevirt.io', ['virtualmachineinstancemigrations'], 'create get list watch patch'),
    rule('kubevirt.io', ['virtualmachineinstancepresets'], 'watch list'),
    rule(CORE, ['configmaps'], 'get list watch'),
    rule(CORE, ['limitranges'], 'watch list'),
    rule('apiextensions.k8s.io', ['customresourcedefinitions'], 'get list watch'),
    rule('kubevirt.io', ['kubevirts'], 'get list watch'),
    rule(
      'snapshot.kubevirt.io',
      ['virtualmachinesnapshots', 'virtualmachinerestores', 'virtualmachinesnapshotcontents'],
      'get list watch',
    ),
    rule('cdi.kubevirt.io', ['datasources', 'datavolumes'], 'get list watch'),
    rule(CORE, ['namespaces'], 'get list watch'),
    rule('instancetype.kubevirt.io', INSTANCETYPE_RESOURCES, 'get list watch'),
    rule('migrations.kubevirt.io', ['migrationpolicies'], 'get list watch'),
    rule('apps', ['controllerrevisions'], 'create list get'),
  ],
  namespaced: [rule(CORE, ['configmaps'], 'get list watch')],
};
