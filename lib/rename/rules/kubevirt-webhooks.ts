/**
 * The KubeVirt admission webhook paths (24; the reference notes say 23) served behind the webhook proxy
 * (deckhouse/virtualization src/kubevirt-rules/kubevirt_rules.go, KubevirtWebhooks), and KubeVirt's pod
 * eviction path, which Deckhouse's list leaves out: its reviews have nothing to restore, but only the paths
 * listed here reach the api with the proxy's client certificate. Path → what it admits.
 */
import type { WebhookRule } from './types.ts';

const KV = 'kubevirt.io';

const ENTRIES: readonly (readonly [path: string, group: string, resource: string])[] = [
  ['/virtualmachineinstances-validate-create', KV, 'virtualmachineinstances'],
  ['/virtualmachineinstances-validate-update', KV, 'virtualmachineinstances'],
  ['/virtualmachines-validate', KV, 'virtualmachines'],
  ['/virtualmachinereplicaset-validate', KV, 'virtualmachineinstancereplicasets'],
  ['/virtualmachinepool-validate', 'pool.kubevirt.io', 'virtualmachinepools'],
  ['/vmipreset-validate', KV, 'virtualmachineinstancepresets'],
  ['/migration-validate-create', KV, 'virtualmachineinstancemigrations'],
  ['/migration-validate-update', KV, 'virtualmachineinstancemigrations'],
  ['/virtualmachinesnapshots-validate', 'snapshot.kubevirt.io', 'virtualmachinesnapshots'],
  ['/virtualmachinerestores-validate', 'snapshot.kubevirt.io', 'virtualmachinerestores'],
  ['/virtualmachineexports-validate', 'export.kubevirt.io', 'virtualmachineexports'],
  ['/virtualmachineinstancetypes-validate', 'instancetype.kubevirt.io', 'virtualmachineinstancetypes'],
  [
    '/virtualmachineclusterinstancetypes-validate',
    'instancetype.kubevirt.io',
    'virtualmachineclusterinstancetypes',
  ],
  ['/virtualmachinepreferences-validate', 'instancetype.kubevirt.io', 'virtualmachinepreferences'],
  [
    '/virtualmachineclusterpreferences-validate',
    'instancetype.kubevirt.io',
    'virtualmachineclusterpreferences',
  ],
  [
    '/status-validate',
    KV,
    'virtualmachines/status,virtualmachineinstancereplicasets/status,virtualmachineinstancemigrations/status',
  ],
  ['/migration-policy-validate-create', 'migrations.kubevirt.io', 'migrationpolicies'],
  ['/vm-clone-validate-create', 'clone.kubevirt.io', 'virtualmachineclones'],
  ['/kubevirt-validate-delete', KV, 'kubevirts'],
  ['/kubevirt-validate-update', KV, 'kubevirts'],
  ['/virtualmachines-mutate', KV, 'virtualmachines'],
  ['/virtualmachineinstances-mutate', KV, 'virtualmachineinstances'],
  ['/migration-mutate-create', KV, 'virtualmachineinstancemigrations'],
  ['/vm-clone-mutate-create', 'clone.kubevirt.io', 'virtualmachineclones'],
  ['/pod-eviction-validate', '', 'pods/eviction'],
];

export const KUBEVIRT_WEBHOOKS: Readonly<Record<string, WebhookRule>> = Object.fromEntries(
  ENTRIES.map(([path, group, resource]) => [path, { path, group, resource }]),
);
