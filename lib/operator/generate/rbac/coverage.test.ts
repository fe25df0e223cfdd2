/**
 * What each role's code asks of the API server (read from the code: the paths beside each row), checked against
 * the generated RBAC as the API server's authorizer would, so no role meets a 403. The kubevirt.io resources
 * appear under their stored names: the roles speak kubevirt.io through the in-process rename.
 */
import { describe, expect, it } from '@jest/globals';
import type { Component } from '../../config/install-config.ts';
import { installConfig } from '../../testing/config.ts';
import { SECRETS, SERVICE_ACCOUNT } from '../names.ts';
import { componentRbac } from './components.ts';
import { operatorRbac } from './operator.ts';
import { allowed, type ResourceRequest } from './testing/rules.ts';
import { INT, P } from './testing/table.ts';

const cfg = installConfig();
const objects = [...componentRbac(cfg), ...operatorRbac(cfg)];
const INSTALL = cfg.namespace;
const VMS = 'tenant';

/** What a request is for. */
type Target = Omit<ResourceRequest, 'verb'>;

type Call = readonly [where: string, verbs: string, request: Target];

const res = (group: string, resource: string, namespace?: string, name?: string): Target => ({
  group,
  resource,
  ...(namespace !== undefined && { namespace }),
  ...(name !== undefined && { name }),
});
const core = (resource: string, namespace?: string, name?: string): Target =>
  res('', resource, namespace, name);
const kv = (resource: string, namespace?: string): Target => res(INT, P + resource, namespace);

const METRICS: readonly Call[] = [
  ['/metrics: TokenReview of the bearer token', 'create', res('authentication.k8s.io', 'tokenreviews')],
  [
    '/metrics: SubjectAccessReview of its user',
    'create',
    res('authorization.k8s.io', 'subjectaccessreviews'),
  ],
];

const API: readonly Call[] = [
  [
    'apiserver/role.ts readAuth',
    'get',
    core('configmaps', 'kube-system', 'extension-apiserver-authentication'),
  ],
  ['apiserver/auth/sar.ts', 'create', res('authorization.k8s.io', 'subjectaccessreviews')],
  ['apiserver/role.ts cachedLookup', 'list watch', kv('virtualmachineinstances')],
  ['apiserver/role.ts cachedLookup', 'list watch', kv('virtualmachineinstancemigrations')],
  ['apiserver/role.ts cachedLookup', 'list watch', kv('kubevirts', INSTALL)],
  ['apiserver/rest/shell.ts vm, vmi', 'get', kv('virtualmachines', VMS)],
  ['apiserver/rest/shell.ts vm, vmi', 'get', kv('virtualmachineinstances', VMS)],
  ['apiserver/rest/shell.ts carryOut', 'patch', kv('virtualmachines', VMS)],
  ['apiserver/rest/shell.ts carryOut', 'patch', kv('virtualmachines/status', VMS)],
  ['apiserver/rest/shell.ts carryOut', 'patch', kv('virtualmachineinstances', VMS)],
  ['apiserver/rest/shell.ts handlerOf', 'get', core('nodes')],
  ['apiserver/rest/shell.ts deleteLauncherPod', 'list delete', core('pods', VMS)],
  // Its own /metrics and its rewriter sidecar's (the sidecar runs as virt-api).
  ...METRICS,
];

const CONTROLLER: readonly Call[] = [
  ['controller/node: handlers, controller', 'list watch patch', core('nodes')],
  ['controller/vm, vmi, node', 'list watch create delete patch', kv('virtualmachineinstances', VMS)],
  ['controller/vm, vmi', 'list watch patch', kv('virtualmachines', VMS)],
  ['controller/vm/controller.ts status', 'patch', kv('virtualmachines/status', VMS)],
  ['controller/vm/controller.ts: the VMI owned by its VM', 'update', kv('virtualmachines/finalizers', VMS)],
  [
    'controller/vmi: the launcher Pod owned by its VMI',
    'update',
    kv('virtualmachineinstances/finalizers', VMS),
  ],
  ['controller/vmi/handlers.ts, node/handlers.ts', 'list watch', core('pods')],
  ['controller/vmi/controller.ts, attachment-sync.ts', 'create delete', core('pods', VMS)],
  [
    'controller/vmi/attachment-sync.ts: the attachment Pod owned by its launcher',
    'update',
    core('pods/finalizers', VMS),
  ],
  ['controller/vmi/handlers.ts', 'list watch', core('persistentvolumeclaims')],
  ['controller/vmi/handlers.ts', 'list watch', kv('kubevirts', INSTALL)],
  ['kernel/controller/events.ts', 'create', core('events', VMS)],
  ['kernel/leader/lease-lock.ts', 'get create update', res('coordination.k8s.io', 'leases', INSTALL)],
  ...METRICS,
];

const HANDLER: readonly Call[] = [
  ['handler/start.ts: the node VMIs', 'list watch', kv('virtualmachineinstances')],
  ['handler/vmi/controller.ts', 'patch', kv('virtualmachineinstances', VMS)],
  ["handler/start.ts: the node's launcher Pods", 'list watch', core('pods')],
  ['handler/hotplug/lookup.ts', 'get', core('pods', VMS)],
  ['handler/hotplug/lookup.ts', 'get', core('persistentvolumeclaims', VMS)],
  ['handler/hotplug/lookup.ts', 'get', core('persistentvolumes')],
  ['handler/node/heartbeat.ts', 'get patch', core('nodes')],
  ['kernel/controller/events.ts', 'create', core('events', VMS)],
  ...METRICS,
];

/** What the operator installs, each applied (server-side: patch), read, listed for clean-up and deleted. */
const MANAGE = 'get list watch patch delete';
const OPERATOR: readonly Call[] = [
  ['the KubeVirt CR', 'get list watch patch update', kv('kubevirts', INSTALL)],
  ['the KubeVirt CR status', 'patch update', kv('kubevirts/status', INSTALL)],
  ['operator/apply/install-crds.ts', 'get patch', res('apiextensions.k8s.io', 'customresourcedefinitions')],
  ['ServiceAccounts', MANAGE, core('serviceaccounts', INSTALL)],
  ['Services', MANAGE, core('services', INSTALL)],
  ['ConfigMaps', MANAGE, core('configmaps', INSTALL)],
  ['Secrets, listed', 'list watch', core('secrets', INSTALL)],
  ...Object.values(SECRETS).map((name): Call => [
    'Secrets',
    'get patch delete',
    core('secrets', INSTALL, name),
  ]),
  ['Deployments', MANAGE, res('apps', 'deployments', INSTALL)],
  ['DaemonSets', MANAGE, res('apps', 'daemonsets', INSTALL)],
  ['PodDisruptionBudgets', MANAGE, res('policy', 'poddisruptionbudgets', INSTALL)],
  ...['clusterroles', 'clusterrolebindings', 'roles', 'rolebindings'].map((r): Call => [
    r,
    MANAGE,
    res('rbac.authorization.k8s.io', r, r.startsWith('cluster') ? undefined : INSTALL),
  ]),
  ...[
    'validatingwebhookconfigurations',
    'mutatingwebhookconfigurations',
    'validatingadmissionpolicies',
    'validatingadmissionpolicybindings',
  ].map((r): Call => [r, MANAGE, res('admissionregistration.k8s.io', r)]),
  ['APIService (install mode kubevirt)', MANAGE, res('apiregistration.k8s.io', 'apiservices')],
  ['its leader Lease', 'get create update', res('coordination.k8s.io', 'leases', INSTALL)],
  ['Events', 'create', core('events', INSTALL)],
  // Its KubeVirt CR webhooks, for a KubeVirt CR in any namespace.
  ['kubevirt/admission/kubevirt-lookup.ts kubevirts', 'list', kv('kubevirts')],
  ['kubevirt/admission/kubevirt-lookup.ts anyVmi', 'list', kv('virtualmachineinstances')],
  ['kubevirt/admission/kubevirt-lookup.ts anyVm', 'list', kv('virtualmachines')],
  ...[INSTALL, VMS].flatMap((ns) =>
    ['deployments', 'daemonsets'].map((r): Call => [
      'kubevirt/admission/kubevirt-lookup.ts dryRunCreate',
      'create',
      res('apps', r, ns),
    ]),
  ),
  ...METRICS,
];

const ROLES: readonly (readonly [Component | 'virt-operator', readonly Call[]])[] = [
  ['virt-api', API],
  ['virt-controller', CONTROLLER],
  ['virt-handler', HANDLER],
  ['virt-operator', OPERATOR],
];

function described(verb: string, q: Target): string {
  const where = q.namespace === undefined ? 'cluster-wide' : `in ${q.namespace}`;
  return `${verb} ${q.group === '' ? 'core' : q.group} ${q.resource}${q.name === undefined ? '' : ` ${q.name}`} ${where}`;
}

describe.each(ROLES)('%s may', (component, calls) => {
  const account = { namespace: INSTALL, name: SERVICE_ACCOUNT[component] };
  const rows = calls.flatMap(([where, verbs, request]) =>
    verbs.split(' ').map((verb) => [described(verb, request), where, { verb, ...request }] as const),
  );
  it.each(rows)('%s (%s)', (_title, _where, request) => {
    expect(allowed(objects, account, request)).toBe(true);
  });
});

describe('the authorizer of these tests', () => {
  const refused = [
    ['virt-handler', 'delete', core('pods', VMS)],
    ['virt-handler', 'create', kv('virtualmachineinstances', VMS)],
    ['virt-api', 'create', res('apps', 'deployments', INSTALL)],
    ['virt-api', 'list', core('secrets', INSTALL)],
    ['virt-operator', 'delete', core('secrets', INSTALL, 'someone-elses')],
    ['virt-operator', 'create', core('pods/exec', VMS)],
  ] as const;
  it.each(refused.map(([c, verb, request]) => [c, described(verb, request), { verb, ...request }] as const))(
    'refuses %s what it was not granted: %s',
    (component, _title, request) => {
      const account = { namespace: INSTALL, name: SERVICE_ACCOUNT[component] };
      expect(allowed(objects, account, request)).toBe(false);
    },
  );
});
