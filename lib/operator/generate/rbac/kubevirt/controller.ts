/**
 * virt-controller's rules as KubeVirt grants them (pkg/virt-operator/resource/generate/rbac/controller.go,
 * newControllerClusterRole and newControllerRole, tag v1.6.2), in KubeVirt's names and order.
 */
import { CORE, rule } from '../policy.ts';
import { INSTANCETYPE_RESOURCES, type KubeVirtRbac } from './types.ts';

const ALL = 'get list watch create update delete patch';

export const KUBEVIRT_CONTROLLER: KubeVirtRbac = {
  cluster: [
    rule(CORE, ['namespaces'], 'get list watch patch'),
    rule('policy', ['poddisruptionbudgets'], 'get list watch delete create patch'),
    rule(CORE, ['pods', 'configmaps', 'endpoints', 'services'], 'get list watch delete update create patch'),
    rule(CORE, ['events'], 'update create patch'),
    rule(CORE, ['secrets'], 'create'),
    rule(CORE, ['pods/finalizers'], 'update'),
    rule(CORE, ['pods/eviction'], 'create'),
    rule(CORE, ['pods/status'], 'patch'),
    rule(CORE, ['nodes'], 'get list watch update patch'),
    rule('apps', ['daemonsets'], 'list'),
    rule('apps', ['controllerrevisions'], 'watch list create delete get update'),
    rule(CORE, ['persistentvolumeclaims'], ALL),
    rule(
      'snapshot.kubevirt.io',
      [
        'virtualmachinesnapshots',
        'virtualmachinesnapshots/status',
        'virtualmachinesnapshots/finalizers',
        'virtualmachinesnapshotcontents',
        'virtualmachinesnapshotcontents/status',
        'virtualmachinesnapshotcontents/finalizers',
        'virtualmachinerestores',
        'virtualmachinerestores/status',
      ],
      ALL,
    ),
    rule(
      'export.kubevirt.io',
      ['virtualmachineexports', 'virtualmachineexports/status', 'virtualmachineexports/finalizers'],
      ALL,
    ),
    rule(
      'pool.kubevirt.io',
      [
        'virtualmachinepools',
        'virtualmachinepools/finalizers',
        'virtualmachinepools/status',
        'virtualmachinepools/scale',
      ],
      'watch list create delete update patch get',
    ),
    rule('kubevirt.io', ['*'], '*'),
    rule('kubevirt.io', ['virtualmachines/finalizers', 'virtualmachineinstances/finalizers'], 'update'),
    rule(
      'subresources.kubevirt.io',
      [
        'virtualmachines/stop',
        'virtualmachineinstances/addvolume',
        'virtualmachineinstances/removevolume',
        'virtualmachineinstances/freeze',
        'virtualmachineinstances/unfreeze',
        'virtualmachineinstances/reset',
        'virtualmachineinstances/softreboot',
        'virtualmachineinstances/sev/setupsession',
        'virtualmachineinstances/sev/injectlaunchsecret',
      ],
      'update',
    ),
    rule('cdi.kubevirt.io', ['*'], '*'),
    rule('k8s.cni.cncf.io', ['network-attachment-definitions'], 'get'),
    rule('apiextensions.k8s.io', ['customresourcedefinitions'], 'get list watch'),
    rule('authorization.k8s.io', ['subjectaccessreviews'], 'create'),
    rule('snapshot.storage.k8s.io', ['volumesnapshotclasses'], 'get list watch'),
    rule('snapshot.storage.k8s.io', ['volumesnapshots'], 'get list watch create update delete'),
    rule('storage.k8s.io', ['storageclasses'], 'get list watch'),
    rule('instancetype.kubevirt.io', INSTANCETYPE_RESOURCES, 'get list watch'),
    rule('migrations.kubevirt.io', ['migrationpolicies'], 'get list watch'),
    rule(
      'clone.kubevirt.io',
      ['virtualmachineclones', 'virtualmachineclones/status', 'virtualmachineclones/finalizers'],
      'get list watch update patch delete',
    ),
    rule(CORE, ['namespaces'], 'get'),
    rule(CORE, ['resourcequotas'], 'list watch'),
    rule('batch', ['jobs'], 'create get delete'),
    rule('resource.k8s.io', ['resourceslices', 'resourceclaims'], 'list watch get'),
  ],
  namespaced: [
    rule('route.openshift.io', ['routes'], 'list get watch'),
    rule(CORE, ['secrets'], 'list get watch'),
    rule('networking.k8s.io', ['ingresses'], 'list get watch'),
    rule('coordination.k8s.io', ['leases'], 'get list watch delete update create patch'),
  ],
};
