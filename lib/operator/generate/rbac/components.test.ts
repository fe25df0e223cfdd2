import { describe } from '@jest/globals';
import { installConfig } from '../../testing/config.ts';
import { SERVICE_ACCOUNT } from '../names.ts';
import { componentRbac } from './components.ts';
import { KUBEVIRT_API } from './kubevirt/apiserver.ts';
import { KUBEVIRT_CONTROLLER } from './kubevirt/controller.ts';
import { KUBEVIRT_HANDLER } from './kubevirt/handler.ts';
import { rulesOf } from './testing/rules.ts';
import { added, expectTable, INT, omitted, P, same, to, type Row } from './testing/table.ts';

const objects = componentRbac(installConfig());
const clusterRules = (name: string) => () => rulesOf(objects, 'ClusterRole', name);
const roleRules = (name: string) => () => rulesOf(objects, 'Role', name);

const READ = 'get,list,watch';
const ALL = 'get,list,watch,create,update,delete,patch';
const INSTANCETYPES = [
  'virtualmachineinstancetypes',
  'virtualmachineclusterinstancetypes',
  'virtualmachinepreferences',
  'virtualmachineclusterpreferences',
];
const internal = (resources: readonly string[]): string => resources.map((r) => P + r).join(',');
const METRICS = '/metrics is served only to a token a TokenReview accepts';
const OPENSHIFT = 'OpenShift only: this install makes no Route';

const API_CLUSTER: readonly Row[] = [
  same('core pods: get,list,delete,patch'),
  to(
    'kubevirt.io virtualmachines,virtualmachineinstances: get,list,watch,patch,update',
    `${INT} ${P}virtualmachines,${P}virtualmachineinstances: get,list,watch,patch,update`,
  ),
  same('core persistentvolumeclaims: get,list'),
  to('kubevirt.io virtualmachines/status: patch', `${INT} ${P}virtualmachines/status: patch`),
  to(
    'kubevirt.io virtualmachineinstancemigrations: create,get,list,watch,patch',
    `${INT} ${P}virtualmachineinstancemigrations: create,get,list,watch,patch`,
  ),
  to(
    'kubevirt.io virtualmachineinstancepresets: watch,list',
    `${INT} ${P}virtualmachineinstancepresets: watch,list`,
  ),
  same(`core configmaps: ${READ}`),
  same('core limitranges: watch,list'),
  same(`apiextensions.k8s.io customresourcedefinitions: ${READ}`),
  to(`kubevirt.io kubevirts: ${READ}`, `${INT} ${P}kubevirts: ${READ}`),
  to(
    `snapshot.kubevirt.io virtualmachinesnapshots,virtualmachinerestores,virtualmachinesnapshotcontents: ${READ}`,
    `snapshot.${INT} ${internal(['virtualmachinesnapshots', 'virtualmachinerestores', 'virtualmachinesnapshotcontents'])}: ${READ}`,
  ),
  same(`cdi.kubevirt.io datasources,datavolumes: ${READ}`),
  same(`core namespaces: ${READ}`),
  to(
    `instancetype.kubevirt.io ${INSTANCETYPES.join(',')}: ${READ}`,
    `instancetype.${INT} ${internal(INSTANCETYPES)}: ${READ}`,
  ),
  to(`migrations.kubevirt.io migrationpolicies: ${READ}`, `migrations.${INT} ${P}migrationpolicies: ${READ}`),
  same('apps controllerrevisions: create,list,get'),
  added('core nodes: get', "apiserver/rest/shell.ts handlerOf: a handler's address is its Node's"),
];

// The KubeVirt CR's webhooks are the operator's: virt-api creates no dry-run placement probes.
const API_ROLE: readonly Row[] = [same(`core configmaps: ${READ}`)];

const SNAPSHOT_RESOURCES = [
  'virtualmachinesnapshots',
  'virtualmachinesnapshots/status',
  'virtualmachinesnapshots/finalizers',
  'virtualmachinesnapshotcontents',
  'virtualmachinesnapshotcontents/status',
  'virtualmachinesnapshotcontents/finalizers',
  'virtualmachinerestores',
  'virtualmachinerestores/status',
];
const EXPORT_RESOURCES = [
  'virtualmachineexports',
  'virtualmachineexports/status',
  'virtualmachineexports/finalizers',
];
const POOL_RESOURCES = [
  'virtualmachinepools',
  'virtualmachinepools/finalizers',
  'virtualmachinepools/status',
  'virtualmachinepools/scale',
];
const CLONE_RESOURCES = [
  'virtualmachineclones',
  'virtualmachineclones/status',
  'virtualmachineclones/finalizers',
];
const CONTROLLER_SUBRESOURCES = [
  'virtualmachines/stop',
  'virtualmachineinstances/addvolume',
  'virtualmachineinstances/removevolume',
  'virtualmachineinstances/freeze',
  'virtualmachineinstances/unfreeze',
  'virtualmachineinstances/reset',
  'virtualmachineinstances/softreboot',
  'virtualmachineinstances/sev/setupsession',
  'virtualmachineinstances/sev/injectlaunchsecret',
];

const CONTROLLER_CLUSTER: readonly Row[] = [
  same('core namespaces: get,list,watch,patch'),
  same('policy poddisruptionbudgets: get,list,watch,delete,create,patch'),
  same('core pods,configmaps,endpoints,services: get,list,watch,delete,update,create,patch'),
  same('core events: update,create,patch'),
  same('core secrets: create'),
  same('core pods/finalizers: update'),
  same('core pods/eviction: create'),
  same('core pods/status: patch'),
  same('core nodes: get,list,watch,update,patch'),
  same('apps daemonsets: list'),
  same('apps controllerrevisions: watch,list,create,delete,get,update'),
  same(`core persistentvolumeclaims: ${ALL}`),
  to(
    `snapshot.kubevirt.io ${SNAPSHOT_RESOURCES.join(',')}: ${ALL}`,
    `snapshot.${INT} ${internal(SNAPSHOT_RESOURCES)}: ${ALL}`,
  ),
  to(
    `export.kubevirt.io ${EXPORT_RESOURCES.join(',')}: ${ALL}`,
    `export.${INT} ${internal(EXPORT_RESOURCES)}: ${ALL}`,
  ),
  to(
    `pool.kubevirt.io ${POOL_RESOURCES.join(',')}: watch,list,create,delete,update,patch,get`,
    `pool.${INT} ${internal(POOL_RESOURCES)}: watch,list,create,delete,update,patch,get`,
  ),
  to('kubevirt.io *: *', `${INT} *: *`),
  to(
    'kubevirt.io virtualmachines/finalizers,virtualmachineinstances/finalizers: update',
    `${INT} ${P}virtualmachines/finalizers,${P}virtualmachineinstances/finalizers: update`,
  ),
  same(`subresources.kubevirt.io ${CONTROLLER_SUBRESOURCES.join(',')}: update`),
  same('cdi.kubevirt.io *: *'),
  same('k8s.cni.cncf.io network-attachment-definitions: get'),
  same(`apiextensions.k8s.io customresourcedefinitions: ${READ}`),
  same('authorization.k8s.io subjectaccessreviews: create'),
  same(`snapshot.storage.k8s.io volumesnapshotclasses: ${READ}`),
  same('snapshot.storage.k8s.io volumesnapshots: get,list,watch,create,update,delete'),
  same(`storage.k8s.io storageclasses: ${READ}`),
  to(
    `instancetype.kubevirt.io ${INSTANCETYPES.join(',')}: ${READ}`,
    `instancetype.${INT} ${internal(INSTANCETYPES)}: ${READ}`,
  ),
  to(`migrations.kubevirt.io migrationpolicies: ${READ}`, `migrations.${INT} ${P}migrationpolicies: ${READ}`),
  to(
    `clone.kubevirt.io ${CLONE_RESOURCES.join(',')}: get,list,watch,update,patch,delete`,
    `clone.${INT} ${internal(CLONE_RESOURCES)}: get,list,watch,update,patch,delete`,
  ),
  same('core namespaces: get'),
  same('core resourcequotas: list,watch'),
  same('batch jobs: create,get,delete'),
  same('resource.k8s.io resourceslices,resourceclaims: list,watch,get'),
  added('authentication.k8s.io tokenreviews: create', METRICS),
];

const CONTROLLER_ROLE: readonly Row[] = [
  omitted('route.openshift.io routes: list,get,watch', OPENSHIFT),
  same('core secrets: list,get,watch'),
  same('networking.k8s.io ingresses: list,get,watch'),
  same('coordination.k8s.io leases: get,list,watch,delete,update,create,patch'),
];

const HANDLER_CLUSTER: readonly Row[] = [
  to(
    'kubevirt.io virtualmachineinstances: update,list,watch',
    `${INT} ${P}virtualmachineinstances: update,list,watch`,
  ),
  same('core nodes: patch,list,watch,get'),
  same(`core configmaps: ${READ}`),
  same('core events: create,patch'),
  same(`apiextensions.k8s.io customresourcedefinitions: ${READ}`),
  to(`kubevirt.io kubevirts: ${READ}`, `${INT} ${P}kubevirts: ${READ}`),
  to(`migrations.kubevirt.io migrationpolicies: ${READ}`, `migrations.${INT} ${P}migrationpolicies: ${READ}`),
  added('core pods: get,list,watch', "handler/start.ts: the node's launcher Pods; hotplug/lookup.ts"),
  added(
    'core persistentvolumeclaims,persistentvolumes: get',
    'handler/hotplug/lookup.ts: the claim and its volume',
  ),
  added(`${INT} ${P}virtualmachineinstances: patch`, 'handler/vmi/controller.ts: status as merge patches'),
  added('authentication.k8s.io tokenreviews: create', METRICS),
  added('authorization.k8s.io subjectaccessreviews: create', METRICS),
];

const HANDLER_ROLE: readonly Row[] = [same(`core configmaps: ${READ}`)];

describe.each([
  ['virt-api ClusterRole', API_CLUSTER, KUBEVIRT_API.cluster, clusterRules(SERVICE_ACCOUNT['virt-api'])],
  ['virt-api Role', API_ROLE, KUBEVIRT_API.namespaced, roleRules(SERVICE_ACCOUNT['virt-api'])],
  [
    'virt-controller ClusterRole',
    CONTROLLER_CLUSTER,
    KUBEVIRT_CONTROLLER.cluster,
    clusterRules(SERVICE_ACCOUNT['virt-controller']),
  ],
  [
    'virt-controller Role',
    CONTROLLER_ROLE,
    KUBEVIRT_CONTROLLER.namespaced,
    roleRules(SERVICE_ACCOUNT['virt-controller']),
  ],
  [
    'virt-handler ClusterRole',
    HANDLER_CLUSTER,
    KUBEVIRT_HANDLER.cluster,
    clusterRules(SERVICE_ACCOUNT['virt-handler']),
  ],
  [
    'virt-handler Role',
    HANDLER_ROLE,
    KUBEVIRT_HANDLER.namespaced,
    roleRules(SERVICE_ACCOUNT['virt-handler']),
  ],
])('%s', (_name, rows, kubevirt, generated) => {
  expectTable(rows, kubevirt, generated);
});
