import { describe, expect, it } from '@jest/globals';
import { installConfig } from '../../testing/config.ts';
import { SERVICE_ACCOUNT } from '../names.ts';
import { componentRbac } from './components.ts';
import { KUBEVIRT_OPERATOR } from './kubevirt/operator.ts';
import { operatorRbac } from './operator.ts';
import type { PolicyRule } from './policy.ts';
import { covers, fmtRule, rulesOf } from './testing/rules.ts';
import { added, expectTable, INT, narrowed, omitted, P, same, type Row } from './testing/table.ts';

const cfg = installConfig();
const operator = operatorRbac(cfg);
const installed = componentRbac(cfg);
const NAME = SERVICE_ACCOUNT['virt-operator'];
const clusterRules = (): PolicyRule[] => rulesOf(operator, 'ClusterRole', NAME);
const roleRules = (): PolicyRule[] => rulesOf(operator, 'Role', NAME);
const ofKind = (kind: string): PolicyRule[] =>
  installed.filter((o) => o.kind === kind).flatMap((o) => o['rules'] as PolicyRule[]);

const MANAGE = 'get,list,watch,create,delete,update,patch';
const SCC = 'security.openshift.io securitycontextconstraints';
const OPENSHIFT = 'OpenShift only: this install makes no SCC or Route';

const OWN_CLUSTER: readonly Row[] = [
  narrowed(
    'kubevirt.io kubevirts: get,list,watch,patch,update,patch',
    `${INT} ${P}kubevirts: get,list,watch,patch,update`,
    'the repeated verb once',
  ),
  narrowed(
    'core serviceaccounts,services,endpoints,pods/exec: get,list,watch,create,update,delete,patch',
    'core serviceaccounts,services,endpoints: get,list,watch,create,update,delete,patch',
    'KubeVirt keeps pods/exec only to test upgrades from old virt-api versions',
  ),
  same('core configmaps: patch,delete'),
  same('batch jobs: get,list,watch,create,delete,patch'),
  same('apps controllerrevisions: watch,list,create,delete,patch'),
  same('apps deployments,daemonsets: get,list,watch,create,delete,patch'),
  same(
    'rbac.authorization.k8s.io clusterroles,clusterrolebindings,roles,rolebindings: get,list,watch,create,delete,patch,update',
  ),
  same('apiextensions.k8s.io customresourcedefinitions: get,list,watch,create,delete,patch'),
  omitted(`${SCC}: create,get,list,watch`, OPENSHIFT),
  omitted(`${SCC}: get,patch,update [privileged]`, OPENSHIFT),
  omitted(`${SCC}: get,list,watch,update,delete [kubevirt-handler,kubevirt-controller]`, OPENSHIFT),
  same(
    'admissionregistration.k8s.io validatingwebhookconfigurations,mutatingwebhookconfigurations,' +
      `validatingadmissionpolicybindings,validatingadmissionpolicies: ${MANAGE}`,
  ),
  same(`apiregistration.k8s.io apiservices: ${MANAGE}`),
  same(`monitoring.coreos.com servicemonitors,prometheusrules: ${MANAGE}`),
  same('core namespaces: get,list,watch,patch'),
];

const KUBEVIRT_SECRETS = [
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
];
const OUR_SECRETS = [
  'kubevirt-ca',
  'kubevirt-virt-api-certs',
  'kubevirt-virt-handler-certs',
  'kubevirt-virt-handler-server-certs',
  'kubevirt-api-rewriter-client-certs',
  'kubevirt-controller-certs',
  'kubevirt-operator-certs',
];

const OWN_ROLE: readonly Row[] = [
  narrowed(
    `core secrets: create,get,list,watch,patch,delete [${KUBEVIRT_SECRETS.join(',')}]`,
    `core secrets: create,get,list,watch,patch,delete [${OUR_SECRETS.join(',')}]`,
    'the certificates this install makes (no export or synchronization ones; the rewriter client one)',
  ),
  same('core configmaps: create,get,list,watch,patch,delete'),
  omitted('route.openshift.io routes: create,get,list,watch,patch,delete', OPENSHIFT),
  omitted('route.openshift.io routes/custom-host: create', OPENSHIFT),
  same('coordination.k8s.io leases: get,list,watch,delete,update,create,patch'),
];

const AUTH_DELEGATION = [
  'authentication.k8s.io tokenreviews: create',
  'authorization.k8s.io subjectaccessreviews: create',
];
const REVIEWS = "its /metrics; system:auth-delegator's rules, which it binds virt-api to";
const OWN_EXTRA: readonly Row[] = [
  added(
    `${INT} ${P}virtualmachines,${P}virtualmachineinstances: list`,
    'kubevirt/admission/kubevirt-lookup.ts: the KubeVirt CR delete webhook asks for any VM or VMI',
  ),
  ...AUTH_DELEGATION.map((r) => added(r, REVIEWS)),
];

describe('the operator ClusterRole: its own rules, and those of the ClusterRoles it installs', () => {
  expectTable([...OWN_CLUSTER, ...OWN_EXTRA], KUBEVIRT_OPERATOR.cluster, clusterRules, () =>
    ofKind('ClusterRole'),
  );
});

describe('the operator Role: its own rules, and those of the Roles it installs', () => {
  expectTable(OWN_ROLE, KUBEVIRT_OPERATOR.namespaced, roleRules, () => ofKind('Role'));
});

describe('the operator may grant what it installs', () => {
  it('holds every rule of every ClusterRole it installs', () => {
    expect(
      ofKind('ClusterRole')
        .filter((r) => !covers(clusterRules(), r))
        .map(fmtRule),
    ).toEqual([]);
  });

  it('holds every rule of every Role it installs, there', () => {
    const held = [...clusterRules(), ...roleRules()];
    expect(
      ofKind('Role')
        .filter((r) => !covers(held, r))
        .map(fmtRule),
    ).toEqual([]);
  });
});
