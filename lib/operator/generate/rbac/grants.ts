/**
 * What ours grants where KubeVirt's rules (kubevirt/*.ts) are not enough or too much: `granted` maps each
 * KubeVirt rule to the rule we grant for it (renamed to the internal names; OpenShift-only rules left out;
 * narrowed where KubeVirt grants what this install never needs), and EXTRA holds the rules our roles'
 * code needs beyond KubeVirt's, each beside the code that needs it. Every component serves /metrics only to a
 * bearer token a TokenReview accepts and a SubjectAccessReview allows, so each may create both.
 */
import type { Component } from '../../config/install-config.ts';
import { SECRETS } from '../names.ts';
import { CORE, renamed, rule, type PolicyRule } from './policy.ts';

/** Route and SecurityContextConstraints exist on OpenShift only; this install makes neither. */
const OPENSHIFT_GROUPS = new Set(['route.openshift.io', 'security.openshift.io']);

/** KubeVirt grants the operator pods/exec only to test upgrades from old virt-api versions. */
const DROPPED_RESOURCES = new Set(['pods/exec']);

function narrowed(r: PolicyRule): PolicyRule {
  const verbs = [...new Set(r.verbs)];
  const resources = r.resources?.filter((x) => !DROPPED_RESOURCES.has(x));
  // The operator's Secrets by name: the certificates this install makes, not KubeVirt's export and
  // synchronization ones.
  const secretsByName = r.resourceNames !== undefined && resources?.includes('secrets') === true;
  return {
    ...r,
    ...(resources !== undefined && { resources }),
    ...(secretsByName && { resourceNames: Object.values(SECRETS) }),
    verbs,
  };
}

/** The rules ours grants for KubeVirt's, in the names the cluster stores. */
export function granted(kubevirt: readonly PolicyRule[]): PolicyRule[] {
  return kubevirt
    .filter((r) => r.apiGroups?.every((g) => OPENSHIFT_GROUPS.has(g)) !== true)
    .map((r) => renamed(narrowed(r)));
}

const METRICS_AUTH_TOKENS = rule('authentication.k8s.io', ['tokenreviews'], 'create');
const METRICS_AUTH_ACCESS = rule('authorization.k8s.io', ['subjectaccessreviews'], 'create');

interface Extra {
  readonly cluster: readonly PolicyRule[];
  readonly namespaced: readonly PolicyRule[];
}

/** Rules beyond KubeVirt's, in kubevirt.io names (renamed like KubeVirt's), per component. */
const EXTRA: Readonly<Record<Component, Extra>> = {
  'virt-api': {
    // TokenReviews and SubjectAccessReviews (its /metrics and its rewriter sidecar's, which runs as virt-api):
    // the system:auth-delegator binding, as in KubeVirt.
    cluster: [
      // apiserver/rest/shell.ts handlerOf: the handler's address is its Node's.
      rule(CORE, ['nodes'], 'get'),
    ],
    namespaced: [],
  },
  'virt-controller': {
    // /metrics (subjectaccessreviews create is KubeVirt's already).
    cluster: [METRICS_AUTH_TOKENS],
    namespaced: [],
  },
  'virt-handler': {
    cluster: [
      // handler/start.ts: the informer over the node's launcher Pods; handler/hotplug/lookup.ts: the
      // attachment and launcher Pods of a hotplugged volume.
      rule(CORE, ['pods'], 'get list watch'),
      // handler/hotplug/lookup.ts: the claim of a hotplugged volume and its PersistentVolume.
      rule(CORE, ['persistentvolumeclaims', 'persistentvolumes'], 'get'),
      // handler/vmi/controller.ts: VMI status and labels are written as merge patches (the fork grants it too).
      rule('kubevirt.io', ['virtualmachineinstances'], 'patch'),
      // /metrics.
      METRICS_AUTH_TOKENS,
      METRICS_AUTH_ACCESS,
    ],
    namespaced: [],
  },
};

/** A component's rules beyond KubeVirt's, renamed. */
export function extraRules(component: Component): Extra {
  const e = EXTRA[component];
  return { cluster: e.cluster.map(renamed), namespaced: e.namespaced.map(renamed) };
}

/**
 * The operator's own rules beyond KubeVirt's, in kubevirt.io names (renamed): it holds those of the roles it
 * installs too, but its own code must not depend on what they happen to grant.
 */
const OPERATOR_EXTRA: readonly PolicyRule[] = [
  // kubevirt/admission/kubevirt-lookup.ts anyVmi, anyVm: the KubeVirt CR's delete webhook refuses while any
  // VMI or VM exists (the KubeVirt CRs it lists, and the dry-run placement probes, are KubeVirt's own rules).
  rule('kubevirt.io', ['virtualmachines', 'virtualmachineinstances'], 'list'),
  // /metrics.
  METRICS_AUTH_TOKENS,
  METRICS_AUTH_ACCESS,
];

/** The operator's own rules beyond KubeVirt's, renamed. */
export function operatorExtraRules(): PolicyRule[] {
  return OPERATOR_EXTRA.map(renamed);
}
