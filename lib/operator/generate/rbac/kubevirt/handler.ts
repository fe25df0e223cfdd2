/**
 * virt-handler's rules as KubeVirt grants them (pkg/virt-operator/resource/generate/rbac/handler.go,
 * newHandlerClusterRole and newHandlerRole, tag v1.6.2), in KubeVirt's names and order.
 */
import { CORE, rule } from '../policy.ts';
import type { KubeVirtRbac } from './types.ts';

export const KUBEVIRT_HANDLER: KubeVirtRbac = {
  cluster: [
    rule('kubevirt.io', ['virtualmachineinstances'], 'update list watch'),
    rule(CORE, ['nodes'], 'patch list watch get'),
    rule(CORE, ['configmaps'], 'get list watch'),
    rule(CORE, ['events'], 'create patch'),
    rule('apiextensions.k8s.io', ['customresourcedefinitions'], 'get list watch'),
    rule('kubevirt.io', ['kubevirts'], 'get list watch'),
    rule('migrations.kubevirt.io', ['migrationpolicies'], 'get list watch'),
  ],
  namespaced: [rule(CORE, ['configmaps'], 'get list watch')],
};
