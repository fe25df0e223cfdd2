import { describe } from '@jest/globals';
import { KV, roundTrip, SYN } from './testing/round-trip-rows.ts';

const IG = 'internal.virtualization.deckhouse.io';
const INT = `kubevirt.${IG}`;

describe('webhook configurations', () => {
  const hook = (
    group: string,
    resources: string[],
    path: string,
    selectorKey: string,
  ): Record<string, unknown> => ({
    name: 'virtualmachine-validator.kubevirt.io',
    clientConfig: { service: { name: 'virt-api', namespace: 'kubevirt', path } },
    rules: [{ operations: ['CREATE'], apiGroups: [group], apiVersions: ['v1'], resources }],
    objectSelector: { matchLabels: { [selectorKey]: 'virt-launcher' } },
  });
  roundTrip(
    'ValidatingWebhookConfiguration',
    KV,
    {
      kind: 'ValidatingWebhookConfiguration',
      apiVersion: 'admissionregistration.k8s.io/v1',
      metadata: { name: 'v' },
      webhooks: [
        hook(
          'kubevirt.io',
          ['virtualmachines', 'virtualmachines/status'],
          '/virtualmachines-validate',
          'kubevirt.io',
        ),
      ],
    },
    {
      kind: 'ValidatingWebhookConfiguration',
      apiVersion: 'admissionregistration.k8s.io/v1',
      metadata: { name: 'v' },
      webhooks: [
        hook(
          IG,
          ['internalvirtualizationvirtualmachines', 'internalvirtualizationvirtualmachines/status'],
          '/virtualmachines-validate',
          INT,
        ),
      ],
    },
  );
  roundTrip(
    'MutatingWebhookConfigurationList with the synthetic webhook path map',
    SYN,
    {
      kind: 'MutatingWebhookConfigurationList',
      apiVersion: 'admissionregistration.k8s.io/v1',
      items: [
        {
          metadata: { name: 'm' },
          webhooks: [
            hook(
              'original.group.io',
              ['someresources'],
              '/validate-original-group-io-v1-someresource',
              'app',
            ),
          ],
        },
      ],
    },
    {
      kind: 'MutatingWebhookConfigurationList',
      apiVersion: 'admissionregistration.k8s.io/v1',
      items: [
        {
          metadata: { name: 'm' },
          webhooks: [
            hook(
              'prefixed.resources.group.io',
              ['prefixedsomeresources'],
              '/validate-prefixed-resources-group-io-v1-prefixedsomeresource',
              'app',
            ),
          ],
        },
      ],
    },
  );
});

describe('RBAC rules', () => {
  const role = (rules: object[], labelKey = 'rbac.example.io/aggregate'): object => ({
    kind: 'ClusterRole',
    apiVersion: 'rbac.authorization.k8s.io/v1',
    metadata: { name: 'r' },
    rules,
    aggregationRule: { clusterRoleSelectors: [{ matchLabels: { [labelKey]: 'true' } }] },
  });
  roundTrip(
    'ClusterRole',
    KV,
    role(
      [
        {
          apiGroups: ['kubevirt.io'],
          resources: ['virtualmachines', 'virtualmachineinstances/status', '*'],
          verbs: ['get'],
        },
        {
          apiGroups: ['', 'snapshot.kubevirt.io'],
          resources: ['pods', 'virtualmachinesnapshots'],
          verbs: ['list'],
        },
        { apiGroups: ['*'], resources: ['virtualmachines/finalizers'], verbs: ['update'] },
        { apiGroups: ['apps'], resources: ['virtualmachines'], verbs: ['get'] },
        { nonResourceURLs: ['/healthz'], verbs: ['get'] },
      ],
      'kubevirt.io/aggregate',
    ),
    role(
      [
        {
          apiGroups: [IG],
          resources: [
            'internalvirtualizationvirtualmachines',
            'internalvirtualizationvirtualmachineinstances/status',
            '*',
          ],
          verbs: ['get'],
        },
        {
          apiGroups: ['', `snapshot.${IG}`],
          resources: ['pods', 'internalvirtualizationvirtualmachinesnapshots'],
          verbs: ['list'],
        },
        {
          apiGroups: ['*'],
          resources: ['internalvirtualizationvirtualmachines/finalizers'],
          verbs: ['update'],
        },
        { apiGroups: ['apps'], resources: ['virtualmachines'], verbs: ['get'] },
        { nonResourceURLs: ['/healthz'], verbs: ['get'] },
      ],
      `${INT}/aggregate`,
    ),
  );
  roundTrip(
    'Role (synthetic)',
    SYN,
    {
      kind: 'Role',
      metadata: { name: 'r' },
      rules: [{ apiGroups: ['original.group.io'], resources: ['someresources', 'someresources/scale'] }],
    },
    {
      kind: 'Role',
      metadata: { name: 'r' },
      rules: [
        {
          apiGroups: ['prefixed.resources.group.io'],
          resources: ['prefixedsomeresources', 'prefixedsomeresources/scale'],
        },
      ],
    },
  );
});

describe('ValidatingAdmissionPolicy and binding', () => {
  const rule = (group: string, res: string): object => ({
    apiGroups: [group],
    apiVersions: ['*'],
    operations: ['*'],
    resources: [res],
  });
  roundTrip(
    'ValidatingAdmissionPolicy',
    KV,
    {
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: {
        matchConstraints: {
          resourceRules: [rule('kubevirt.io', 'virtualmachines')],
          excludeResourceRules: [rule('', 'nodes')],
          objectSelector: { matchLabels: { 'kubevirt.io': 'x' } },
        },
      },
    },
    {
      kind: 'ValidatingAdmissionPolicy',
      metadata: { name: 'p' },
      spec: {
        matchConstraints: {
          resourceRules: [rule(IG, 'internalvirtualizationvirtualmachines')],
          excludeResourceRules: [rule('', 'nodes')],
          objectSelector: { matchLabels: { [INT]: 'x' } },
        },
      },
    },
  );
  roundTrip(
    'ValidatingAdmissionPolicyBindingList',
    KV,
    {
      kind: 'ValidatingAdmissionPolicyBindingList',
      items: [
        {
          metadata: { name: 'b' },
          spec: { matchResources: { resourceRules: [rule('pool.kubevirt.io', 'virtualmachinepools')] } },
        },
      ],
    },
    {
      kind: 'ValidatingAdmissionPolicyBindingList',
      items: [
        {
          metadata: { name: 'b' },
          spec: {
            matchResources: {
              resourceRules: [rule(`pool.${IG}`, 'internalvirtualizationvirtualmachinepools')],
            },
          },
        },
      ],
    },
  );
});
