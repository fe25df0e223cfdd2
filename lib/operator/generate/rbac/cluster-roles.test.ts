import { describe, expect, it } from '@jest/globals';
import { installConfig } from '../../testing/config.ts';
import { METRICS_READER_CLUSTER_ROLE } from '../names.ts';
import { clusterRolesForUsers } from './cluster-roles.ts';
import { KUBEVIRT_CLUSTER_ROLES } from './kubevirt/cluster.ts';
import { fmtRule, objectOf, rulesOf } from './testing/rules.ts';
import { expectTable, INT, P, same, to, type Row } from './testing/table.ts';

const objects = clusterRolesForUsers(installConfig());
const FORK = 'kubevirt.internal.virtualization.deckhouse.io';
const SUB = 'subresources.kubevirt.io';
const READ = 'get,list,watch';
const WRITE = 'get,delete,create,update,patch,list,watch';
const ADMIN = `${WRITE},deletecollection`;

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
].join(',');
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
].join(',');
const VM_UPDATE =
  'virtualmachines/start,virtualmachines/stop,virtualmachines/restart,virtualmachines/addvolume,virtualmachines/removevolume,virtualmachines/memorydump';
const WORKLOADS = [
  'virtualmachines',
  'virtualmachineinstances',
  'virtualmachineinstancepresets',
  'virtualmachineinstancereplicasets',
];
const SNAPSHOTS = ['virtualmachinesnapshots', 'virtualmachinesnapshotcontents', 'virtualmachinerestores'];
const INSTANCETYPES = [
  'virtualmachineinstancetypes',
  'virtualmachineclusterinstancetypes',
  'virtualmachinepreferences',
  'virtualmachineclusterpreferences',
];
const kv = (resources: readonly string[]): string => resources.join(',');
const internal = (resources: readonly string[]): string => resources.map((r) => P + r).join(',');

/** The rows admin and edit share, with their verbs for the objects users make. */
function editorRows(verbs: string): Row[] {
  return [
    same(`${SUB} ${VMI_GET}: get`),
    same(`${SUB} ${VMI_UPDATE}: update`),
    same(`${SUB} virtualmachines/expand-spec,virtualmachines/portforward: get`),
    same(`${SUB} ${VM_UPDATE}: update`),
    same(`${SUB} expand-vm-spec: update`),
    to(`kubevirt.io ${kv(WORKLOADS)}: ${verbs}`, `${INT} ${internal(WORKLOADS)}: ${verbs}`),
    to(
      `kubevirt.io virtualmachineinstancemigrations: ${READ}`,
      `${INT} ${P}virtualmachineinstancemigrations: ${READ}`,
    ),
    to(`snapshot.kubevirt.io ${kv(SNAPSHOTS)}: ${verbs}`, `snapshot.${INT} ${internal(SNAPSHOTS)}: ${verbs}`),
    to(
      `export.kubevirt.io virtualmachineexports: ${verbs}`,
      `export.${INT} ${P}virtualmachineexports: ${verbs}`,
    ),
    to(`clone.kubevirt.io virtualmachineclones: ${verbs}`, `clone.${INT} ${P}virtualmachineclones: ${verbs}`),
    to(
      `instancetype.kubevirt.io ${kv(INSTANCETYPES)}: ${verbs}`,
      `instancetype.${INT} ${internal(INSTANCETYPES)}: ${verbs}`,
    ),
    to(`pool.kubevirt.io virtualmachinepools: ${verbs}`, `pool.${INT} ${P}virtualmachinepools: ${verbs}`),
    to(
      `migrations.kubevirt.io migrationpolicies: ${READ}`,
      `migrations.${INT} ${P}migrationpolicies: ${READ}`,
    ),
  ];
}

const KUBEVIRTS_READ = to('kubevirt.io kubevirts: get,list', `${INT} ${P}kubevirts: get,list`);

/** KubeVirt's name, the fork's, and the rows of its rules. */
const ROLES: readonly (readonly [string, string, readonly Row[]])[] = [
  ['kubevirt.io:default', `${FORK}:default`, [KUBEVIRTS_READ, same(`${SUB} version,guestfs: get,list`)]],
  ['kubevirt.io:admin', `${FORK}:admin`, editorRows(ADMIN)],
  ['kubevirt.io:edit', `${FORK}:edit`, [...editorRows(WRITE), KUBEVIRTS_READ]],
  [
    'kubevirt.io:view',
    `${FORK}:view`,
    [
      KUBEVIRTS_READ,
      same(
        `${SUB} virtualmachines/expand-spec,virtualmachineinstances/guestosinfo,virtualmachineinstances/filesystemlist,` +
          'virtualmachineinstances/userlist,virtualmachineinstances/sev/fetchcertchain,' +
          'virtualmachineinstances/sev/querylaunchmeasurement,virtualmachines/objectgraph,' +
          'virtualmachineinstances/objectgraph: get',
      ),
      same(`${SUB} expand-vm-spec: update`),
      to(
        `kubevirt.io ${kv([...WORKLOADS, 'virtualmachineinstancemigrations'])}: ${READ}`,
        `${INT} ${internal([...WORKLOADS, 'virtualmachineinstancemigrations'])}: ${READ}`,
      ),
      to(`snapshot.kubevirt.io ${kv(SNAPSHOTS)}: ${READ}`, `snapshot.${INT} ${internal(SNAPSHOTS)}: ${READ}`),
      to(
        `export.kubevirt.io virtualmachineexports: ${READ}`,
        `export.${INT} ${P}virtualmachineexports: ${READ}`,
      ),
      to(`clone.kubevirt.io virtualmachineclones: ${READ}`, `clone.${INT} ${P}virtualmachineclones: ${READ}`),
      to(
        `instancetype.kubevirt.io ${kv(INSTANCETYPES)}: ${READ}`,
        `instancetype.${INT} ${internal(INSTANCETYPES)}: ${READ}`,
      ),
      to(`pool.kubevirt.io virtualmachinepools: ${READ}`, `pool.${INT} ${P}virtualmachinepools: ${READ}`),
      to(
        `migrations.kubevirt.io migrationpolicies: ${READ}`,
        `migrations.${INT} ${P}migrationpolicies: ${READ}`,
      ),
    ],
  ],
  [
    'instancetype.kubevirt.io:view',
    `instancetype.${FORK}:view`,
    [
      to(
        `instancetype.kubevirt.io virtualmachineclusterinstancetypes,virtualmachineclusterpreferences: ${READ}`,
        `instancetype.${INT} ${P}virtualmachineclusterinstancetypes,${P}virtualmachineclusterpreferences: ${READ}`,
      ),
    ],
  ],
  [
    'kubevirt.io:migrate',
    'kubevirt.io:migrate',
    [
      same(`${SUB} virtualmachines/migrate: update`),
      to(
        `kubevirt.io virtualmachineinstancemigrations: ${ADMIN}`,
        `${INT} ${P}virtualmachineinstancemigrations: ${ADMIN}`,
      ),
    ],
  ],
];

describe.each(ROLES)('%s as %s', (kubevirtName, forkName, rows) => {
  const kubevirt = KUBEVIRT_CLUSTER_ROLES.find((r) => r.name === kubevirtName)?.rules ?? [];
  expectTable(rows, kubevirt, () => rulesOf(objects, 'ClusterRole', forkName));
});

describe('the users ClusterRoles', () => {
  it('are exactly the fork-named ones and the metrics reader', () => {
    const roles = objects.filter((o) => o.kind === 'ClusterRole').map((o) => o.metadata.name);
    expect(roles).toEqual([...ROLES.map(([, fork]) => fork), METRICS_READER_CLUSTER_ROLE]);
  });

  it.each([
    [`${FORK}:admin`, 'rbac.authorization.k8s.io/aggregate-to-admin'],
    [`${FORK}:edit`, 'rbac.authorization.k8s.io/aggregate-to-edit'],
    [`${FORK}:view`, 'rbac.authorization.k8s.io/aggregate-to-view'],
    [`${FORK}:default`, 'kubernetes.io/bootstrapping'],
  ])('%s carries %s', (name, label) => {
    expect(Object.keys(objectOf(objects, 'ClusterRole', name).metadata.labels ?? {})).toContain(label);
  });

  it.each([`${FORK}:default`, `instancetype.${FORK}:view`])(
    '%s is bound to every authenticated user',
    (name) => {
      const binding = objectOf(objects, 'ClusterRoleBinding', name);
      expect(binding['roleRef']).toEqual({
        apiGroup: 'rbac.authorization.k8s.io',
        kind: 'ClusterRole',
        name,
      });
      expect(binding['subjects']).toEqual([
        { kind: 'Group', apiGroup: 'rbac.authorization.k8s.io', name: 'system:authenticated' },
      ]);
    },
  );

  it('lets whoever is bound to the metrics reader GET /metrics, and nothing else', () => {
    expect(rulesOf(objects, 'ClusterRole', METRICS_READER_CLUSTER_ROLE).map(fmtRule)).toEqual([
      'url /metrics: get',
    ]);
  });
});
