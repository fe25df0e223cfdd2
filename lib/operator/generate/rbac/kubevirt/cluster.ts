/**
 * KubeVirt's ClusterRoles for users (pkg/virt-operator/resource/generate/rbac/cluster.go, GetAllCluster, tag
 * v1.6.2): kubevirt.io:default and instancetype.kubevirt.io:view, bound to every authenticated user, and the
 * admin, edit and view roles aggregated into Kubernetes' own, plus kubevirt.io:migrate; in KubeVirt's names.
 */
import { rule, type PolicyRule } from '../policy.ts';
import { INSTANCETYPE_RESOURCES } from './types.ts';

export interface KubeVirtClusterRole {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly annotations?: Readonly<Record<string, string>>;
  /** A ClusterRoleBinding of the same name binds it to every authenticated user. */
  readonly boundToAuthenticated: boolean;
  readonly rules: readonly PolicyRule[];
}

const SUB = 'subresources.kubevirt.io';
const AUTOUPDATE = { 'rbac.authorization.kubernetes.io/autoupdate': 'true' } as const;
const WRITE = 'get delete create update patch list watch';
const READ = 'get list watch';

const VMI_GET = [
  'virtualmachineinstances/console',
  'virtualmachineinstances/vnc',
  'virtualmachineinstances/vnc/screenshot',
  'virtualmachineinstances/portforward',
  'virtualmachineinstances/guestosinfo',
  'virtualmachineinstances/filesystemlist',
  'virtualmachineinstances/userlist',
  'virtualmachineinstances/sev/fetchcertchain',
  'virtualmachineinstances/sev/querylaunchmeasurement',
  'virtualmachineinstances/usbredir',
  'virtualmachines/objectgraph',
  'virtualmachineinstances/objectgraph',
];
const VMI_UPDATE = [
  'virtualmachineinstances/pause',
  'virtualmachineinstances/unpause',
  'virtualmachineinstances/addvolume',
  'virtualmachineinstances/removevolume',
  'virtualmachineinstances/freeze',
  'virtualmachineinstances/unfreeze',
  'virtualmachineinstances/softreboot',
  'virtualmachineinstances/reset',
  'virtualmachineinstances/sev/setupsession',
  'virtualmachineinstances/sev/injectlaunchsecret',
];
const VM_UPDATE = [
  'virtualmachines/start',
  'virtualmachines/stop',
  'virtualmachines/restart',
  'virtualmachines/addvolume',
  'virtualmachines/removevolume',
  'virtualmachines/memorydump',
];
const WORKLOADS = [
  'virtualmachines',
  'virtualmachineinstances',
  'virtualmachineinstancepresets',
  'virtualmachineinstancereplicasets',
];
const SNAPSHOTS = ['virtualmachinesnapshots', 'virtualmachinesnapshotcontents', 'virtualmachinerestores'];

/** admin and edit differ only in deletecollection and in edit's read of the KubeVirt CR. */
function editorRules(verbs: string, kubevirts: boolean): PolicyRule[] {
  return [
    rule(SUB, VMI_GET, 'get'),
    rule(SUB, VMI_UPDATE, 'update'),
    rule(SUB, ['virtualmachines/expand-spec', 'virtualmachines/portforward'], 'get'),
    rule(SUB, VM_UPDATE, 'update'),
    rule(SUB, ['expand-vm-spec'], 'update'),
    rule('kubevirt.io', WORKLOADS, verbs),
    rule('kubevirt.io', ['virtualmachineinstancemigrations'], READ),
    rule('snapshot.kubevirt.io', SNAPSHOTS, verbs),
    rule('export.kubevirt.io', ['virtualmachineexports'], verbs),
    rule('clone.kubevirt.io', ['virtualmachineclones'], verbs),
    rule('instancetype.kubevirt.io', INSTANCETYPE_RESOURCES, verbs),
    rule('pool.kubevirt.io', ['virtualmachinepools'], verbs),
    ...(kubevirts ? [rule('kubevirt.io', ['kubevirts'], 'get list')] : []),
    rule('migrations.kubevirt.io', ['migrationpolicies'], READ),
  ];
}

const aggregateTo = (role: string): Record<string, string> => ({
  [`rbac.authorization.k8s.io/aggregate-to-${role}`]: 'true',
});

export const KUBEVIRT_CLUSTER_ROLES: readonly KubeVirtClusterRole[] = [
  {
    name: 'kubevirt.io:default',
    labels: { 'kubernetes.io/bootstrapping': 'rbac-defaults' },
    annotations: AUTOUPDATE,
    boundToAuthenticated: true,
    rules: [rule('kubevirt.io', ['kubevirts'], 'get list'), rule(SUB, ['version', 'guestfs'], 'get list')],
  },
  {
    name: 'kubevirt.io:admin',
    labels: aggregateTo('admin'),
    boundToAuthenticated: false,
    rules: editorRules(`${WRITE} deletecollection`, false),
  },
  {
    name: 'kubevirt.io:edit',
    labels: aggregateTo('edit'),
    boundToAuthenticated: false,
    rules: editorRules(WRITE, true),
  },
  {
    name: 'kubevirt.io:view',
    labels: aggregateTo('view'),
    boundToAuthenticated: false,
    rules: [
      rule('kubevirt.io', ['kubevirts'], 'get list'),
      rule(
        SUB,
        [
          'virtualmachines/expand-spec',
          'virtualmachineinstances/guestosinfo',
          'virtualmachineinstances/filesystemlist',
          'virtualmachineinstances/userlist',
          'virtualmachineinstances/sev/fetchcertchain',
          'virtualmachineinstances/sev/querylaunchmeasurement',
          'virtualmachines/objectgraph',
          'virtualmachineinstances/objectgraph',
        ],
        'get',
      ),
      rule(SUB, ['expand-vm-spec'], 'update'),
      rule('kubevirt.io', [...WORKLOADS, 'virtualmachineinstancemigrations'], READ),
      rule('snapshot.kubevirt.io', SNAPSHOTS, READ),
      rule('export.kubevirt.io', ['virtualmachineexports'], READ),
      rule('clone.kubevirt.io', ['virtualmachineclones'], READ),
      rule('instancetype.kubevirt.io', INSTANCETYPE_RESOURCES, READ),
      rule('pool.kubevirt.io', ['virtualmachinepools'], READ),
      rule('migrations.kubevirt.io', ['migrationpolicies'], READ),
    ],
  },
  {
    name: 'instancetype.kubevirt.io:view',
    labels: {},
    boundToAuthenticated: true,
    rules: [
      rule(
        'instancetype.kubevirt.io',
        ['virtualmachineclusterinstancetypes', 'virtualmachineclusterpreferences'],
        READ,
      ),
    ],
  },
  {
    name: 'kubevirt.io:migrate',
    labels: {},
    boundToAuthenticated: false,
    rules: [
      rule(SUB, ['virtualmachines/migrate'], 'update'),
      rule('kubevirt.io', ['virtualmachineinstancemigrations'], `${WRITE} deletecollection`),
    ],
  },
];
